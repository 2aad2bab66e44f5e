/**
 * Real-browser test of finding on `/objekte` (issue 31 item 3) in Chromium at 1280 and 390 px: "Frankfurt" offers
 * the choice of Frankfurt am Main and Frankfurt (Oder); sorting by price keeps its order through the pager's
 * numbered links; a page past the last links to the last page; a radius around Frankfurt am Main takes in
 * Offenbach; a misspelt place suggests the right one; the empty state helps; the price per m² on cards and the
 * listing page. No page scrolls sideways. Screenshots go to `test-output/screenshots/finding-*.png`.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { openTestDb, type ServedTestApp, serveTestApp, type TestDb } from "./helpers.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot } from "./browser_support.ts";

const SHOTS = new URL("../test-output/screenshots/", import.meta.url);

function row(i: number, p: Partial<NewListing>): NewListing {
  return {
    status: "published",
    reference: null,
    title: `Wohnung ${i}`,
    description: null,
    city: "Frankfurt am Main",
    postal_code: "60311",
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: 200_000 + ((i * 7919) % 61) * 5_000,
    total_rooms: 3,
    square_meters: 60 + (i % 5) * 10,
    latitude: 50.11 + (i % 7) * 0.002,
    longitude: 8.68 + (i % 5) * 0.002,
    beispiel: false,
    published_at: new Date(Date.UTC(2026, 10, 1) - i * 3_600_000),
    ...p,
  };
}

/** 60 flats in Frankfurt am Main, 2 in Offenbach (7 km away), 1 in Frankfurt (Oder), 1 rent in München. */
function rows(): NewListing[] {
  return [
    ...Array.from({ length: 60 }, (_, i) => row(i, {})),
    row(60, {
      title: "Offenbacher Altbau",
      city: "Offenbach am Main",
      postal_code: "63065",
      latitude: 50.1,
      longitude: 8.76,
    }),
    row(61, {
      title: "Offenbacher Loft",
      city: "Offenbach am Main",
      postal_code: "63067",
      latitude: 50.104,
      longitude: 8.75,
    }),
    row(62, {
      title: "Wohnung an der Oder",
      city: "Frankfurt (Oder)",
      postal_code: "15230",
      latitude: 52.34,
      longitude: 14.55,
    }),
    row(63, {
      title: "Mietwohnung München",
      city: "München",
      postal_code: "80331",
      transaction_type: "rent",
      asked_price: 1250,
      square_meters: 100,
      latitude: 48.14,
      longitude: 11.58,
    }),
  ];
}

/** The German number at the start of `s` ("245.000" → 245000, "2.500,50" → 2500.5). */
function germanNumber(s: string): number {
  const m = /[0-9.]+(,[0-9]+)?/.exec(s);
  return m ? Number(m[0].replaceAll(".", "").replace(",", ".")) : NaN;
}

/**
 * The widest option text of the select `css` in the select's font against the room its box leaves for it (its
 * width less the padding and about 2rem for the arrow): a longer text is cut off in the closed select.
 */
async function optionRoom(page: Page, css: string): Promise<{ text: number; room: number }> {
  return await page.evaluate(`(() => {
    const e = document.querySelector(${JSON.stringify(css)});
    const s = getComputedStyle(e);
    const ctx = document.createElement("canvas").getContext("2d");
    ctx.font = s.fontWeight + " " + s.fontSize + " " + s.fontFamily;
    const text = Math.max(...[...e.options].map((o) => ctx.measureText(o.text).width));
    const pad = parseFloat(s.paddingLeft) + parseFloat(s.paddingRight);
    return { text, room: e.clientWidth - pad - 2 * parseFloat(s.fontSize) };
  })()`) as { text: number; room: number };
}

async function noSidewaysScroll(page: Page, width: number): Promise<void> {
  const w = await page.evaluate("document.documentElement.scrollWidth") as number;
  assert.ok(w <= width, `page is ${w} px wide at ${width} px`);
}

Deno.test({
  name:
    "browser: finding on /objekte (sort, place choice, pager, radius, suggestions, empty state) at 1280 and 390 px",
  ignore: !HAVE_CHROMIUM,
  async fn(t) {
    await Deno.mkdir(SHOTS, { recursive: true });
    let tdb: TestDb | undefined;
    let served: ServedTestApp | undefined;
    let browser: Browser | undefined;
    try {
      tdb = await openTestDb();
      served = await serveTestApp(tdb.db);
      const { origin } = served;
      const office = await ensureOffice(tdb.db, "Findebüro");
      await insertListings(tdb.db, office, rows());
      const b = browser = await launchChromium();
      for (const width of [1280, 390]) {
        const ctx = await b.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
        ctx.setDefaultTimeout(15_000);
        const page = await ctx.newPage();
        const shot = (name: string) => saveScreenshot(page, new URL(`finding-${width}-${name}.png`, SHOTS));
        try {
          await t.step(`${width} px: "Frankfurt" offers both Frankfurts, with their numbers`, async () => {
            await page.goto(`${origin}/objekte`);
            await page.fill("#city", "Frankfurt");
            await page.click("form[role=search] button[type=submit]");
            await page.waitForURL((u) => u.searchParams.get("city") === "Frankfurt");
            assert.equal(await page.textContent("#empty-title"), "Welchen Ort meinen Sie?");
            const options = await page.locator("#place-options a").allTextContents();
            assert.deepEqual(options, ["Frankfurt am Main", "Frankfurt (Oder)"]);
            assert.match(
              await page.textContent("#place-options") ?? "",
              /^Frankfurt am Main \(60 Objekte\), Frankfurt \(Oder\) \(1 Objekt\)$/,
            );
            await noSidewaysScroll(page, width);
            await shot("1-choice");
            await page.click("#place-options a >> text=Frankfurt am Main");
            await page.waitForURL((u) => u.searchParams.get("city") === "Frankfurt am Main");
            assert.equal(await page.textContent("#total"), "60 Treffer");
            assert.equal(await page.locator("article.card").count(), 24);
            assert.match(
              await page.locator("article.card .per-sqm").first().textContent() ?? "",
              /^Kaufpreis je m²: [0-9.]+\u00a0€\/m²$/,
            );
          });

          await t.step(`${width} px: sort by price, kept through the numbered pager`, async () => {
            const fit = await optionRoom(page, "#sort");
            assert.ok(fit.text <= fit.room, `sort texts ${fit.text} px wide, room ${fit.room} px`);
            await page.selectOption("#sort", "price_asc");
            await page.click("form[role=search] button[type=submit]");
            await page.waitForURL((u) => u.searchParams.get("sort") === "price_asc");
            const prices = async () =>
              (await page.locator("article.card > div > p:not(.per-sqm)").allTextContents())
                .map((s) => germanNumber(s.split(" · ").find((x) => x.includes("€")) ?? ""));
            const p1 = await prices();
            assert.deepEqual(p1, [...p1].sort((a, b) => a - b));
            assert.equal(await page.getAttribute("nav.pager [aria-current=page]", "aria-current"), "page");
            assert.equal(await page.textContent("nav.pager [aria-current=page]"), "1");
            await shot("2-sorted");
            await page.click("nav.pager a[aria-label='Seite 3']");
            await page.waitForURL((u) => u.searchParams.get("page") === "3");
            assert.equal(new URL(page.url()).searchParams.get("sort"), "price_asc");
            assert.equal(await page.textContent("nav.pager [aria-current=page]"), "3");
            const p3 = await prices();
            assert.equal(p3.length, 12);
            assert.ok(p3[0]! >= p1.at(-1)!, "page 3 continues the order");
            assert.equal(await page.locator("nav.pager a[rel=next]").count(), 0);
            await noSidewaysScroll(page, width);
            await shot("3-page-3");
          });

          await t.step(`${width} px: a page past the last says so and links to the last`, async () => {
            await page.goto(`${origin}/objekte?city=Frankfurt+am+Main&sort=price_asc&page=99`);
            assert.equal(
              await page.textContent("#empty-title"),
              "Seite 99 gibt es nicht: Die Suche hat 60 Treffer auf 3 Seiten.",
            );
            assert.equal(await page.locator("text=Seite 99 von").count(), 0);
            await shot("4-past-last");
            await page.click("#to-last-page");
            await page.waitForURL((u) => u.searchParams.get("page") === "3");
            assert.equal(await page.textContent("nav.pager [aria-current=page]"), "3");
          });

          await t.step(`${width} px: 10 km around Frankfurt am Main take in Offenbach`, async () => {
            await page.goto(`${origin}/objekte?city=Frankfurt+am+Main`);
            await page.selectOption("#radius_km", "10");
            await page.click("form[role=search] button[type=submit]");
            await page.waitForURL((u) => u.searchParams.get("radius_km") === "10");
            assert.equal(await page.textContent("#total"), "62 Treffer");
            await page.goto(`${origin}/objekte?city=Offenbach&radius_km=2`);
            assert.equal(await page.textContent("#empty-title"), "Welchen Ort meinen Sie?");
            await page.goto(`${origin}/objekte?city=Offenbach+am+Main&radius_km=2`);
            assert.equal(await page.textContent("#total"), "2 Treffer");
            await shot("5-radius");
          });

          await t.step(`${width} px: a misspelt place suggests the right one`, async () => {
            await page.goto(`${origin}/objekte`);
            await page.fill("#city", "Frankfrut am Main");
            await page.click("form[role=search] button[type=submit]");
            await page.waitForLoadState();
            assert.match(await page.textContent("#empty-title") ?? "", /Diesen Ort finden wir nicht/);
            assert.match(
              await page.textContent("#place-options") ?? "",
              /^Meinten Sie …\? Frankfurt am Main/,
            );
            await noSidewaysScroll(page, width);
            await shot("6-suggestion");
            await page.click("#place-options a >> text=Frankfurt am Main");
            await page.waitForURL((u) => u.searchParams.get("city") === "Frankfurt am Main");
            assert.equal(await page.textContent("#total"), "60 Treffer");
          });

          await t.step(`${width} px: nothing found: one empty state with help`, async () => {
            await page.goto(`${origin}/objekte?city=M%C3%BCnchen&min_price=5000&radius_km=5`);
            assert.equal(await page.textContent("#total"), "0 Treffer");
            assert.equal(await page.textContent("#empty-title"), "Keine Objekte gefunden.");
            assert.equal(await page.textContent("#widen-radius"), "Umkreis auf 10 km erweitern");
            assert.equal(await page.locator("nav.pager").count(), 0);
            await shot("7-empty");
            await page.click("#place-only");
            await page.waitForURL((u) => !u.searchParams.has("min_price"));
            assert.equal(await page.textContent("#total"), "1 Treffer");
            assert.equal(
              await page.textContent("article.card .per-sqm"),
              "Kaltmiete je m²: 12,50\u00a0€/m²",
            );
            await page.click("article.card h2 a");
            await page.waitForURL((u) => u.pathname.startsWith("/objekte/"));
            assert.equal(await page.textContent("#f-price-per-sqm"), "12,50\u00a0€/m²");
            await noSidewaysScroll(page, width);
            await shot("8-listing");
          });
        } finally {
          await ctx.close();
        }
      }
    } finally {
      await browser?.close();
      await served?.close();
      await tdb?.close();
    }
  },
});
