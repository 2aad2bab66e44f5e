/**
 * Real-browser test of the pages reached from mails to inquirers: Chromium (Debian's `/usr/bin/chromium`) driven
 * by playwright-core against the app served on a loopback port, no JavaScript on the pages. A seeker switches mails
 * about their inquiries off on `/konto/benachrichtigungen`; a guest opens the stop link of a mail (GET changes
 * nothing) and confirms it (POST stops). Screenshots go to `test-output/screenshots/`. Without Chromium the test
 * is ignored.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createPerson } from "../auth/accounts.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { inquiryMailTokens } from "../db/inquiry_mail.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { replyToInquiry } from "../inquiries/messages.ts";
import { stopUrl } from "../inquiries/inquiry_address.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot } from "./browser_support.ts";
import {
  officeWho,
  openTestDb,
  sendInquiryAs,
  type ServedTestApp,
  serveTestApp,
  type TestDb,
} from "./helpers.ts";
import { act } from "../deps.ts";

const SHOTS = new URL("../test-output/screenshots/", import.meta.url);
const PASSWORD = "browser-mail-geheim-789";
const SEEKER = { email: "mail-suche@example.org", name: "Mia Mail" };

async function shot(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, new URL(`${name}.png`, SHOTS));
}

Deno.test({
  name: "browser: mail settings and the stop link of a mail to an inquirer in Chromium",
  ignore: !HAVE_CHROMIUM,
  async fn(t) {
    await Deno.mkdir(SHOTS, { recursive: true });
    let tdb: TestDb | undefined;
    let served: ServedTestApp | undefined;
    let browser: Browser | undefined;
    try {
      tdb = await openTestDb();
      const db = tdb.db;
      served = await serveTestApp(db);
      const { origin, app: a } = served;
      const seekerId = await createPerson(a.auth, db, {
        ...SEEKER,
        password: PASSWORD,
        role: "seeker",
        emailVerified: true,
      });
      const officeId = await ensureOffice(db, "Mailbüro");
      const providerId = await insertUser(db, {
        email: "makler-mail@example.org",
        name: "M",
        role: "provider",
      });
      await startMembership(db, providerId, officeId);
      const [listingId] = await insertListings(db, officeId, [
        { ...sampleListing(7, prng(7), Date.now()), beispiel: true, status: "published" },
      ]);
      const b = browser = await launchChromium();
      const ctx = await b.newContext({ locale: "de-DE", viewport: { width: 1000, height: 800 } });
      ctx.setDefaultTimeout(15_000);
      const page = await ctx.newPage();
      const scripts: string[] = [];
      page.on("request", (r) => {
        if (r.resourceType() === "script") scripts.push(r.url());
      });

      await t.step("a seeker switches mails about their inquiries off", async () => {
        await page.goto(`${origin}/anmelden`);
        await page.fill("#email", SEEKER.email);
        await page.fill("#password", PASSWORD);
        await page.click("form[action='/anmelden'] button[type=submit]");
        await page.waitForURL((u) => u.pathname === "/konto");
        await page.goto(`${origin}/konto/benachrichtigungen`);
        const box = page.locator("input[name=anfrage_mails]");
        assert.equal(await box.isChecked(), true, "on by default");
        await box.uncheck();
        await page.click("form[action='/konto/benachrichtigungen'] button[type=submit]");
        await page.waitForURL((u) => u.searchParams.get("gespeichert") === "1");
        assert.match(await page.textContent("p.notice") ?? "", /Gespeichert/);
        assert.equal(await page.locator("input[name=anfrage_mails]").isChecked(), false);
        await shot(page, "inquiry-mail-settings");
        await page.goto(`${origin}/konto/benachrichtigungen`);
        assert.equal(await page.locator("p.notice").count(), 0);
        assert.equal(await page.locator("input[name=anfrage_mails]").isChecked(), false, "stays off");
        const row = await db.kysely.selectFrom("inquiry_mail_settings").select("mails_off")
          .where("user_id", "=", seekerId).executeTakeFirstOrThrow();
        assert.equal(row.mails_off, true);
      });

      await t.step("a guest opens the stop link (nothing changes) and confirms it", async () => {
        const { inquiryId } = await sendInquiryAs(a.deps, {
          listingId: listingId!,
          inquirer: { seekerId: null, name: "Gast", email: "gast-browser@example.net", phone: null },
          message: "Frei?",
          origin: null,
        });
        await act(a.deps, officeWho(officeId, providerId), (x) => replyToInquiry(x, inquiryId, "Ja."));
        const tokens = (await inquiryMailTokens(db.kysely, inquiryId))!;
        const guest = await b.newContext({ locale: "de-DE" });
        try {
          const p = await guest.newPage();
          await p.goto(stopUrl(origin, inquiryId, tokens.stopToken));
          assert.equal(await p.textContent("h1"), "Keine E-Mails mehr zu dieser Anfrage");
          assert.equal(
            (await inquiryMailTokens(db.kysely, inquiryId))!.stopped,
            false,
            "GET changes nothing",
          );
          await shot(p, "inquiry-mail-stop-ask");
          await p.click("button[type=submit]");
          await p.waitForLoadState();
          assert.match(await p.textContent("p.notice") ?? "", /keine weiteren E-Mails/);
          assert.equal((await inquiryMailTokens(db.kysely, inquiryId))!.stopped, true);
          await shot(p, "inquiry-mail-stop-done");
        } finally {
          await guest.close();
        }
      });
      assert.deepEqual(scripts, [], "the pages load no scripts");
      await ctx.close();
    } finally {
      await browser?.close();
      await served?.close();
      await tdb?.close();
    }
  },
});
