/**
 * Real-browser test of every page at 1280 and 390 px (Chromium, `/usr/bin/chromium`, driven by playwright-core):
 * each page renders in standards mode (`document.compatMode === "CSS1Compat"`), fits its width without
 * horizontal scrolling (`scrollWidth <= width`) and has a one-row header. Pages: start, search, listing, inquiry
 * sent, 404, sign-in, sign-up, consent, apps, keys, inquiries and a thread, signed in as a seeker and as a
 * provider with real data in the tables (connected apps, keys with long names, inquiries with long titles). A
 * refused inquiry at 390 px shows its error where the person is. Screenshots: `test-output/<page>-<width>.png`.
 * Without Chromium the test is ignored.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createApiKey } from "../auth/api_keys.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { seedSampleZonesIfEmpty } from "../valuation/sample_zones.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot } from "./browser_support.ts";
import {
  authorizeUrl,
  type OAuthWorld,
  oauthWorld,
  PASSWORD,
  pkce,
  register,
  tokensFor,
} from "./oauth_support.ts";
import { sendInquiryAs } from "./helpers.ts";

const SHOTS = new URL("../test-output/", import.meta.url);
const WIDTHS = [1280, 390] as const;
const LONG = "Donaudampfschifffahrtsgesellschaftskapitänswohnung";

function listing(p: Partial<NewListing>): NewListing {
  return {
    status: "published",
    reference: null,
    title: `Großzügige ${LONG} mit Dachterrasse und Blick über die Altstadt von Köln`,
    description: "intern",
    city: "Köln",
    postal_code: "50667",
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: 1_234_567,
    total_rooms: 4.5,
    square_meters: 123.45,
    latitude: 50.938,
    longitude: 6.96,
    beispiel: false,
    published_at: new Date("2026-10-01T12:00:00Z"),
    contact: {
      provider_name: "Seiten GmbH",
      contact_name: "Petra Seite",
      contact_email: "petra@seiten.example",
      contact_phone: "+49 30 1234567",
    },
    ...p,
  };
}

/** What a page looks like to the test: mode, widths, header height. */
interface Measure {
  compatMode: string;
  scrollWidth: number;
  header: number;
}

async function measure(page: Page): Promise<Measure> {
  // A string runs in the page (this module is type-checked without the DOM library).
  return await page.evaluate<Measure>(`({
    compatMode: document.compatMode,
    scrollWidth: document.documentElement.scrollWidth,
    header: document.querySelector("header.site")?.getBoundingClientRect().height ?? 0,
  })`);
}

/** How the cells of the page's tables are displayed: "block" (stacked cards) or "table-cell" (a table). */
async function cellDisplay(page: Page): Promise<string[]> {
  return await page.evaluate<string[]>(
    `[...new Set([...document.querySelectorAll("tbody td")].map((td) => getComputedStyle(td).display))]`,
  );
}

/** Checks that the page's tables are a table at 1280 px and stacked cards, each value labelled, at 390 px. */
async function checkTables(page: Page, width: number): Promise<void> {
  assert.deepEqual(await cellDisplay(page), [width <= 390 ? "block" : "table-cell"], page.url());
  const labels = await page.locator("tbody td[data-label]").count();
  assert.ok(labels > 0, `labelled cells on ${page.url()}`);
}

/** Opens `path`, checks standards mode, no horizontal scrolling, a one-row header; saves the screenshot. */
async function check(page: Page, origin: string, name: string, path: string, width: number): Promise<void> {
  if (path) await page.goto(`${origin}${path}`);
  const m = await measure(page);
  await saveScreenshot(page, new URL(`${name}-${width}.png`, SHOTS));
  assert.equal(m.compatMode, "CSS1Compat", `${name} at ${width}: quirks mode`);
  assert.ok(m.scrollWidth <= width, `${name} at ${width}: scrollWidth ${m.scrollWidth}`);
  // One row: the tallest item (a button) plus the header's padding, well below two rows.
  assert.ok(m.header > 0 && m.header < 64, `${name} at ${width}: header ${m.header} px high`);
}

/** Signs `email` in through the sign-in form of `ctx`. */
async function signIn(ctx: BrowserContext, origin: string, email: string): Promise<void> {
  const page = await ctx.newPage();
  await page.goto(`${origin}/anmelden`);
  await page.fill("#email", email);
  await page.fill("#password", PASSWORD);
  await page.locator("form[action='/anmelden'] button[type=submit]").click();
  await page.waitForURL((u) => u.pathname !== "/anmelden");
  await page.close();
}

/** The world's data: listings, an invented zone, inquiries, keys and connected apps of both people. */
async function fill(w: OAuthWorld): Promise<{ listingId: string; inquiryId: string }> {
  const db = w.tdb.db;
  await seedSampleZonesIfEmpty(db);
  const ids = await insertListings(db, w.officeId, [
    listing({}),
    listing({ title: "Kleine Wohnung", transaction_type: "rent", asked_price: 812.5 }),
    listing({ title: `${LONG} ohne Ort`, city: null, postal_code: null, latitude: null, longitude: null }),
  ]);
  let inquiryId = "";
  for (const id of ids) {
    const sent = await sendInquiryAs(w.t.deps, {
      listingId: id,
      inquirer: { seekerId: w.seeker.userId, name: "Sucher", email: w.seeker.email, phone: null },
      message: `Guten Tag, ist die ${LONG} noch frei? ${"Bitte melden Sie sich. ".repeat(20)}`,
      origin: null,
    });
    inquiryId ||= sent.inquiryId;
  }
  for (const [userId, n] of [[w.seeker.userId, 3], [w.provider.userId, 2]] as const) {
    for (let i = 0; i < n; i++) await createApiKey(db, userId, `Schlüssel für ${LONG} Nr. ${i + 1}`);
  }
  await tokensFor(w, await register(w.origin, { client_name: `Such-App ${LONG}` }), w.seeker.email);
  await tokensFor(
    w,
    await register(w.origin, { client_name: `Makler-App ${LONG}` }),
    w.provider.email,
    "lesen offline_access",
  );
  return { listingId: ids[0]!, inquiryId };
}

Deno.test({
  name: "browser: every page in standards mode, fitting 1280 and 390 px, a one-row header",
  ignore: !HAVE_CHROMIUM,
  async fn(t) {
    await Deno.mkdir(SHOTS, { recursive: true });
    let w: OAuthWorld | undefined;
    let browser: Browser | undefined;
    try {
      w = await oauthWorld();
      const origin = w.origin;
      const b = browser = await launchChromium();
      const contexts: Record<string, BrowserContext> = {};
      const context = async (who: "anonymous" | "seeker" | "provider", width: number) => {
        const ctx = await b.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
        ctx.setDefaultTimeout(15_000);
        // Requests to the app's redirect URI (a closed port) get a stub page.
        await ctx.route("http://127.0.0.1:9/**", (r) => r.fulfill({ status: 200, body: "App" }));
        if (who !== "anonymous") {
          await signIn(ctx, origin, who === "seeker" ? w!.seeker.email : w!.provider.email);
        }
        contexts[`${who}-${width}`] = ctx;
        return ctx;
      };
      // Everyone signs in before the first OAuth consent of the data set-up (see events_apps_page_test.ts).
      for (const width of WIDTHS) {
        for (const who of ["anonymous", "seeker", "provider"] as const) await context(who, width);
      }
      const { listingId, inquiryId } = await fill(w);

      for (const width of WIDTHS) {
        await t.step(`anonymous pages at ${width} px`, async () => {
          const page = await contexts[`anonymous-${width}`]!.newPage();
          await check(page, origin, "start", "/", width);
          await check(page, origin, "search", "/objekte?max_price=2.000.000&min_rooms=2,5", width);
          assert.equal(await page.inputValue("#max_price"), "2.000.000");
          await check(page, origin, "search-error", "/objekte?min_price=viel", width);
          await check(page, origin, "listing", `/objekte/${listingId}`, width);
          assert.equal(await page.getAttribute("#baseline", "data-invented"), "true");
          await check(page, origin, "inquiry-sent", `/objekte/${listingId}/anfrage/gesendet`, width);
          await check(page, origin, "404", "/gibt-es-nicht", width);
          assert.equal(await page.textContent("h1"), "Seite nicht gefunden");
          await check(page, origin, "sign-in", "/anmelden", width);
          await check(page, origin, "sign-up", "/registrieren", width);
          await check(page, origin, "oauth-error", "/api/auth/error?error=invalid_client", width);
          await page.close();
        });

        await t.step(`seeker pages at ${width} px`, async () => {
          const page = await contexts[`seeker-${width}`]!.newPage();
          await check(page, origin, "start-seeker", "/", width);
          await check(page, origin, "apps", "/konto/apps", width);
          assert.ok(await page.locator("tr[data-client-id]").count() >= 1, "a connected app");
          await checkTables(page, width);
          await check(page, origin, "keys", "/konto/schluessel", width);
          assert.equal(await page.locator("tr[data-key-id]").count(), 3);
          await checkTables(page, width);
          await check(page, origin, "inquiries", "/konto/anfragen", width);
          assert.equal(await page.locator("tr[data-inquiry-id]").count(), 3);
          await checkTables(page, width);
          await check(page, origin, "thread", `/konto/anfragen/${inquiryId}`, width);
          await check(page, origin, "listing-seeker", `/objekte/${listingId}`, width);
          const { challenge } = await pkce();
          const client = await register(origin, { client_name: `Neue App ${LONG}` });
          await page.goto(authorizeUrl(w!, client, { code_challenge: challenge }));
          await page.waitForURL((u) => u.pathname === "/zustimmung");
          await check(page, origin, "consent", "", width);
          await page.close();
        });

        await t.step(`provider pages at ${width} px`, async () => {
          const page = await contexts[`provider-${width}`]!.newPage();
          await check(page, origin, "apps-provider", "/konto/apps", width);
          assert.equal(await page.locator("header.site a[href='/anbieter']").count(), 1);
          assert.ok(await page.locator("tr[data-client-id]").count() >= 1, "a connected app");
          await check(page, origin, "keys-provider", "/konto/schluessel", width);
          assert.equal(await page.locator("tr[data-key-id]").count(), 2);
          await checkTables(page, width);
          await check(page, origin, "inquiries-provider", "/konto/anfragen", width);
          await check(page, origin, "listing-provider", `/objekte/${listingId}`, width);
          assert.equal(await page.locator("header.site a[href='/anbieter']").count(), 1);
          await page.close();
        });
      }

      await t.step("390 px: the account menu opens within the screen", async () => {
        const page = await contexts["seeker-390"]!.newPage();
        await page.goto(`${origin}/konto/apps`);
        const link = page.locator("header.site a[href='/konto/schluessel']");
        assert.equal(await link.isVisible(), false, "closed menu");
        await page.click("header.site details.menu > summary");
        assert.equal(await link.isVisible(), true, "open menu");
        const box = (await link.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
        assert.ok((await measure(page)).scrollWidth <= 390);
        await saveScreenshot(page, new URL("menu-open-390.png", SHOTS), { viewportOnly: true });
        await link.click();
        await page.waitForURL((u) => u.pathname === "/konto/schluessel");
        await page.close();
      });

      await t.step("390 px: a refused inquiry shows its error at the form, the field marked", async () => {
        const page = await contexts["anonymous-390"]!.newPage();
        await page.goto(`${origin}/objekte/${listingId}`);
        await page.fill("#name", "Rita");
        await page.fill("#email", "kein-at");
        await page.fill("#message", "Hallo");
        // The browser's own check would stop "kein-at" before it is sent; the service must answer it too.
        await page.evaluate(`document.querySelector("section#anfrage form").noValidate = true`);
        await page.locator("section#anfrage button[type=submit]").click();
        await page.waitForURL((u) => u.hash === "#anfrage");
        const error = page.locator("#anfrage-fehler");
        assert.match(await error.textContent() ?? "", /^E-Mail-Adresse: /);
        const inView = await page.evaluate<boolean>(`(() => {
          const r = document.getElementById("anfrage-fehler").getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight;
        })()`);
        assert.ok(inView, "the error box is on screen after the reload");
        assert.equal(await page.getAttribute("#email", "aria-invalid"), "true");
        assert.equal(await page.getAttribute("#email", "aria-describedby"), "anfrage-fehler");
        await check(page, origin, "inquiry-error", "", 390);
        await page.close();
      });
    } finally {
      await browser?.close();
      await w?.close();
    }
  },
});
