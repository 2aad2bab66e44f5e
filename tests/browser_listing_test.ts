/**
 * Real-browser test of the listing pages: Chromium (Debian's `/usr/bin/chromium`) driven by playwright-core
 * against the app served on a loopback port. A seeker signs in, searches on /objekte, opens a listing, sends an
 * inquiry with the form, finds it under "Meine Anfragen" and opens the thread; an anonymous visitor sends one
 * too. Screenshots go to `test-output/screenshots/`. Without Chromium the test is ignored.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createPerson } from "../auth/accounts.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { openTestDb, type ServedTestApp, serveTestApp, type TestDb } from "./helpers.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot, submitForm as submit } from "./browser_support.ts";

const SHOTS = new URL("../test-output/screenshots/", import.meta.url);
const PASSWORD = "browser-geheim-456";
const SEEKER = { email: "suche-objekte@example.org", name: "Sina Suche" };
const CONTACT = {
  provider_name: "Vertraulich Makler GmbH",
  contact_name: "Karl Kontakt",
  contact_email: "karl@vertraulich.example",
  contact_phone: "+49 30 9990001",
};

async function shot(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, new URL(`${name}.png`, SHOTS));
}

/** Six rent flats in Berlin 10115 (10 … 15 €/m², trimmed median 12.5) and two buy listings, one a sample. */
function rows(): NewListing[] {
  const base = Date.parse("2026-10-01T12:00:00Z");
  const row = (i: number, p: Partial<NewListing>): NewListing => ({
    status: "published",
    reference: null,
    title: `Objekt ${i}`,
    description: "intern",
    city: "Berlin",
    postal_code: "10115",
    property_type: "apartment",
    transaction_type: "rent",
    asked_price: 800 + i * 80,
    total_rooms: 3,
    square_meters: 80,
    latitude: 52.5321,
    longitude: 13.3849,
    beispiel: false,
    published_at: new Date(base - i * 3_600_000),
    contact: CONTACT,
    ...p,
  });
  return [
    row(0, { title: "Altbauwohnung am Weinbergspark" }),
    ...[1, 2, 3, 4, 5].map((i) => row(i, {})),
    row(6, {
      title: "Einfamilienhaus Pankow",
      property_type: "house",
      transaction_type: "buy",
      asked_price: 690000,
    }),
    row(7, { title: "Beispielhaus", property_type: "house", transaction_type: "buy", beispiel: true }),
  ];
}

Deno.test({
  name: "browser: listing search, listing view, inquiry and my inquiries in Chromium",
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
      const office = await ensureOffice(db, "Browserbüro");
      const ids = await insertListings(db, office, rows());
      const listingId = ids[0]!;

      const b = browser = await launchChromium();
      const newContext = async (locale = "de-DE"): Promise<BrowserContext> => {
        const ctx = await b.newContext({ locale, viewport: { width: 1000, height: 800 } });
        ctx.setDefaultTimeout(15_000);
        return ctx;
      };

      const main = await newContext();
      let inquiryId = "";
      try {
        const page = await main.newPage();
        const scripts: string[] = [];
        page.on("request", (r) => {
          if (r.resourceType() === "script") scripts.push(r.url());
        });

        await t.step("sign in as a seeker", async () => {
          await page.goto(`${origin}/anmelden`);
          await page.fill("#email", SEEKER.email);
          await page.fill("#password", PASSWORD);
          await submit(page, page.locator("form[action='/anmelden'] button[type=submit]"));
          await page.waitForURL((u) => u.pathname === "/konto");
        });

        await t.step("search on /objekte with filters", async () => {
          await page.click("nav a[href='/objekte']");
          await page.waitForURL((u) => u.pathname === "/objekte");
          assert.equal(await page.textContent("h1"), "Objekte suchen");
          assert.equal(await page.locator("article.card").count(), 8);
          await page.fill("#city", "berlin");
          await page.selectOption("#transaction_type", "rent");
          await page.fill("#min_price", "900");
          await page.click("form[role=search] button[type=submit]");
          await page.waitForURL((u) => u.searchParams.get("transaction_type") === "rent");
          assert.equal(new URL(page.url()).searchParams.get("min_price"), "900");
          // 880, 960, 1040, 1120, 1200 → four rents from 900.
          assert.equal(await page.textContent("#total"), "4 Treffer");
          const titles = await page.locator("article.card h2 a").allTextContents();
          assert.deepEqual(titles, ["Objekt 2", "Objekt 3", "Objekt 4", "Objekt 5"]);
          assert.equal(await page.inputValue("#city"), "berlin");
          assert.equal(await page.inputValue("#transaction_type"), "rent");
          await shot(page, "listing-search");

          // A bad value: the page says what is wrong (400) instead of failing.
          await page.fill("#min_price", "viel");
          await page.click("form[role=search] button[type=submit]");
          await page.waitForSelector("div.error[role=alert]");
          assert.match(
            await page.textContent("div.error li") ?? "",
            /^Preis ab \(€\): keine lesbare Zahl ab 0/,
          );
          assert.equal(await page.locator("article.card").count(), 0);

          await page.goto(`${origin}/objekte?property_type=house`);
          const sample = page.locator("article.card", { hasText: "Beispielhaus" });
          assert.equal(await sample.locator(".badge").textContent(), "Beispielobjekt");
          assert.equal(
            await page.locator("article.card", { hasText: "Pankow" }).locator(".badge").count(),
            0,
          );
        });

        await t.step("open a listing: fields, map link, baseline, no contact", async () => {
          await page.goto(`${origin}/objekte?city=Berlin&transaction_type=rent`);
          await page.click("article.card h2 a >> text=Altbauwohnung am Weinbergspark");
          await page.waitForURL((u) => u.pathname === `/objekte/${listingId}`);
          assert.equal(await page.textContent("h1"), "Altbauwohnung am Weinbergspark");
          assert.equal(await page.textContent("#f-city"), "10115 Berlin");
          assert.equal(await page.textContent("#f-transaction-type"), "Miete");
          assert.equal(
            await page.getAttribute("#map-link", "href"),
            "https://www.openstreetmap.org/?mlat=52.5321&mlon=13.3849#map=16/52.5321/13.3849",
          );
          assert.equal(await page.getAttribute("#baseline", "data-source"), "comparables");
          assert.equal(await page.textContent("#baseline strong"), "12,50\u00a0€ je m² Fläche und Monat");
          const text = await page.textContent("body") ?? "";
          for (const secret of Object.values(CONTACT)) assert.ok(!text.includes(secret), secret);
          assert.match(await page.textContent("#sending-as") ?? "", /Sina Suche/);
          assert.equal(await page.locator("#email").count(), 0, "a seeker sends with the account");
          await page.fill("#message", "Guten Tag, ist die Wohnung ab November frei?");
          await shot(page, "listing-view");
        });

        await t.step("send the inquiry with the form", async () => {
          await submit(page, page.locator("button", { hasText: "Anfrage senden" }));
          await page.waitForURL((u) => u.pathname.startsWith("/konto/anfragen/"));
          inquiryId = new URL(page.url()).pathname.split("/").pop()!;
          assert.match(await page.textContent("p.notice[role=status]") ?? "", /Ihre Anfrage wurde/);
          assert.equal(
            await page.textContent("#messages .body"),
            "Guten Tag, ist die Wohnung ab November frei?",
          );
          await shot(page, "inquiry-sent");
          const row = await db.kysely.selectFrom("inquiries").selectAll().where("id", "=", inquiryId)
            .executeTakeFirstOrThrow();
          assert.equal(row.seeker_id, seekerId);
          assert.equal(row.listing_id, listingId);
          assert.equal(row.email, SEEKER.email);
          assert.equal(row.status, "open");
        });

        await t.step("see it in /konto/anfragen and open the thread", async () => {
          await page.click("header.site details.menu > summary");
          await page.click("header.site details.menu a[href='/konto']");
          await page.click("#my-inquiries a[href='/konto/anfragen']");
          await page.waitForURL((u) => u.pathname === "/konto/anfragen");
          assert.equal(await page.textContent("h1"), "Meine Anfragen");
          const row = page.locator(`tr[data-inquiry-id="${inquiryId}"]`);
          assert.equal(await row.count(), 1);
          const cells = await row.locator("td").allTextContents();
          assert.equal(cells[0], "Altbauwohnung am Weinbergspark");
          assert.equal(cells[1], "offen");
          assert.equal(cells[2], "1");
          await shot(page, "my-inquiries");

          await row.locator("a", { hasText: "Öffnen" }).click();
          await page.waitForURL((u) => u.pathname === `/konto/anfragen/${inquiryId}`);
          assert.equal(await page.textContent("h1"), "Altbauwohnung am Weinbergspark");
          await page.fill("#message", "Ich könnte auch samstags.");
          await submit(page, page.locator("button", { hasText: "Nachricht senden" }));
          await page.waitForSelector("p.notice[role=status]");
          assert.equal(await page.textContent("p.notice"), "Ihre Nachricht wurde gesendet.");
          assert.deepEqual(await page.locator("#messages .body").allTextContents(), [
            "Guten Tag, ist die Wohnung ab November frei?",
            "Ich könnte auch samstags.",
          ]);
        });
        assert.deepEqual(scripts, [], "the pages load no JavaScript");
      } finally {
        await main.close();
      }

      await t.step("anonymous inquiry with name and e-mail", async () => {
        const ctx = await newContext();
        try {
          const page = await ctx.newPage();
          await page.goto(`${origin}/objekte/${ids[6]}`);
          assert.equal(await page.textContent("h1"), "Einfamilienhaus Pankow");
          await page.fill("#name", "Otto Ohnekonto");
          await page.fill("#email", "otto@example.org");
          await page.fill("#message", "Gibt es einen Garten?");
          await submit(page, page.locator("button", { hasText: "Anfrage senden" }));
          await page.waitForURL((u) => u.pathname === `/objekte/${ids[6]}/anfrage/gesendet`);
          assert.match(await page.textContent("p.notice") ?? "", /an den Anbieter gesendet/);
          const row = await db.kysely.selectFrom("inquiries").selectAll().where(
            "email",
            "=",
            "otto@example.org",
          )
            .executeTakeFirstOrThrow();
          assert.equal(row.seeker_id, null);
          assert.equal(row.name, "Otto Ohnekonto");
          assert.equal(row.listing_id, ids[6]);
        } finally {
          await ctx.close();
        }
      });
    } finally {
      await browser?.close();
      await served?.close();
      await tdb?.close();
    }
  },
});
