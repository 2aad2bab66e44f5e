/**
 * Real-browser journeys of listing photos and details (issue 31) in Chromium at 1280 and 390 px: the agent
 * creates a rental with its details (energy certificate, costs, floor, description) in the workspace form, sees a
 * wrong detail named, uploads three photos at once, is told why hostile files (not an image by content, a
 * polyglot that starts as HTML, 0 bytes, a decompression bomb) are refused while nothing is stored, sets an alt
 * text, makes the last photo the title image, moves and deletes one (confirmed), publishes; a guest sees the
 * gallery (srcset, lazy below the fold, alt texts, full-size links by keyboard), the facts, description and energy
 * certificate, the thumbnail on the result card and the placeholder of a listing without photos; after the
 * withdrawal the photos are no longer served publicly but still in the workspace. Every page fits its width, and
 * screenshots go to `test-output/photos-<page>-<width>.png`. Without Chromium the test is ignored.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { sql } from "kysely";
import type { Browser, Page } from "playwright-core";
import { createPerson } from "../auth/accounts.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot, submitForm } from "./browser_support.ts";
import { openTestDb, type ServedTestApp, serveTestApp, type TestDb } from "./helpers.ts";
import { concat, pngBombHeader, testImage } from "./photo_fixtures.ts";

const OUT = new URL("../test-output/", import.meta.url);
const PASSWORD = "fotos-geheim-4711";
const WIDTHS = [1280, 390] as const;

/** Fails unless the page fits `width` without horizontal scrolling and is in standards mode. */
async function fits(page: Page, width: number, what: string): Promise<void> {
  const m = await page.evaluate(
    "({ scroll: document.documentElement.scrollWidth, mode: document.compatMode })",
  ) as { scroll: number; mode: string };
  assert.ok(m.scroll <= width, `${what}: scrollWidth ${m.scroll} > ${width}`);
  assert.equal(m.mode, "CSS1Compat", `${what}: standards mode`);
}

async function shot(page: Page, name: string, width: number): Promise<void> {
  await fits(page, width, name);
  await saveScreenshot(page, new URL(`photos-${name}-${width}.png`, OUT));
}

/** A file for `setInputFiles`. */
const file = (name: string, mimeType: string, bytes: Uint8Array) => ({
  name,
  mimeType,
  buffer: Buffer.from(bytes),
});

Deno.test({
  name: "browser: listing photos and details in the workspace and on the public pages at 1280 and 390 px",
  ignore: !HAVE_CHROMIUM,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(OUT, { recursive: true });
    let tdb: TestDb | undefined;
    let served: ServedTestApp | undefined;
    let browser: Browser | undefined;
    try {
      tdb = await openTestDb();
      const db = tdb.db;
      served = await serveTestApp(db);
      const { origin, app: a } = served;
      const office = await ensureOffice(db, "Fotobüro");
      const email = "fotos@example.org";
      const agent = await createPerson(a.auth, db, {
        email,
        name: "Frieda Foto",
        password: PASSWORD,
        role: "provider",
        emailVerified: true,
      });
      await startMembership(db, agent, office);
      // A published listing without photos: its card and page show the placeholder.
      await insertListings(db, office, [{
        status: "published",
        reference: null,
        title: "Bauland ohne Foto",
        description: null,
        city: "Fotostadt",
        postal_code: "04109",
        property_type: "land",
        transaction_type: "buy",
        asked_price: 99000,
        total_rooms: null,
        square_meters: 600,
        latitude: null,
        longitude: null,
        beispiel: false,
        published_at: new Date(Date.now() - 86_400_000),
      }]);
      const photoCount = async (id: string) =>
        (await sql<{ n: number }>`select count(*)::int as n from photos where listing_id = ${id}`
          .execute(db.kysely)).rows[0]!.n;
      const images = {
        jpeg: await testImage(1600, 1200, "jpeg", 3),
        png: await testImage(900, 700, "png", 4),
        webp: await testImage(1400, 1000, "webp", 5),
      };
      browser = await launchChromium();

      for (const width of WIDTHS) {
        const ctx = await browser.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
        ctx.setDefaultTimeout(30_000);
        const page = await ctx.newPage();
        const title = `Altbau mit Fotos ${width}`;
        let id = "";

        await t.step(`${width}: sign in, create a rental with its details`, async () => {
          await page.goto(`${origin}/anmelden`);
          await page.fill("#email", email);
          await page.fill("#password", PASSWORD);
          await submitForm(page, page.locator("form[action='/anmelden'] button[type=submit]"));
          await page.goto(`${origin}/anbieter/objekte/neu`);
          await page.fill("#title", title);
          await page.fill("#city", "Fotostadt");
          await page.fill("#postal_code", "04109");
          await page.selectOption("#property_type", "apartment");
          await page.selectOption("#transaction_type", "rent");
          await page.fill("#asked_price", "950");
          await page.fill("#total_rooms", "3");
          await page.fill("#square_meters", "78,5");
          await page.fill(
            "#public_description",
            "Helle Altbauwohnung <b>mit</b> Stuck.\nRuhige Seitenstraße.\n\nDie Küche ist neu.",
          );
          await page.fill("#warm_rent", "900");
          await page.fill("#service_charges", "180,50");
          await page.fill("#deposit", "2.850");
          await page.fill("#floor", "2");
          await page.fill("#available_from", "1. März 2027");
          await page.fill("#energy_value", "112,4");
          await page.selectOption("#energy_class", "D");
          await page.fill("#energy_carrier", "Fernwärme");
          await page.fill("#construction_year", "1908");
          await page.fill("#energy_certificate_valid_until", "2032-06-30");
          await submitForm(page, page.locator("form[action='/anbieter/objekte/neu'] button[type=submit]"));
          // No certificate type for the value and class, and a Warmmiete below the cold rent: named, nothing made.
          assert.equal(await page.getAttribute("#energy_certificate_type", "aria-invalid"), "true");
          assert.match(await page.textContent("#energy_certificate_type-rule") ?? "", /Nötig, sobald/);
          await page.selectOption("#energy_certificate_type", "verbrauch");
          await submitForm(page, page.locator("form[action='/anbieter/objekte/neu'] button[type=submit]"));
          assert.equal(await page.getAttribute("#warm_rent", "aria-invalid"), "true");
          assert.match(await page.textContent("div.error[role=alert]") ?? "", /Warmmiete/);
          await shot(page, "details-error", width);
          await page.fill("#warm_rent", "1.130,50");
          await submitForm(page, page.locator("form[action='/anbieter/objekte/neu'] button[type=submit]"));
          id = new URL(page.url()).pathname.split("/").pop()!;
          assert.match(id, /^[0-9a-f-]{36}$/);
          assert.equal(await page.inputValue("#warm_rent"), "1.130,5");
          assert.equal(await page.inputValue("#energy_class"), "D");
          assert.equal(await page.inputValue("#floor"), "2");
        });

        await t.step(`${width}: upload three photos at once`, async () => {
          assert.equal(
            await page.getAttribute("#fotos-dateien", "accept"),
            "image/jpeg,image/png,image/webp",
          );
          await page.setInputFiles("#fotos-dateien", [
            file("wohnzimmer.jpg", "image/jpeg", images.jpeg),
            file("kueche.png", "image/png", images.png),
            file("bad.webp", "image/webp", images.webp),
          ]);
          await submitForm(page, page.locator("form.photo-upload button[type=submit]"));
          assert.equal(await page.locator(".ws-photos > li").count(), 3);
          assert.equal(await photoCount(id), 3);
          assert.equal(await page.locator(".ws-photos > li").first().locator(".title-badge").count(), 1);
          // The draft's photos are shown from the workspace's own address, not the public one.
          const src = await page.locator(".ws-photos img").first().getAttribute("src");
          assert.match(src ?? "", /^\/anbieter\/fotos\/[0-9a-f]{64}-\d+\.jpg$/);
          const loaded = await page.evaluate(
            "[...document.querySelectorAll('.ws-photos img')].every((i) => i.complete && i.naturalWidth > 0)",
          );
          assert.equal(loaded, true, "every workspace photo loaded");
          await shot(page, "workspace-photos", width);
        });

        await t.step(
          `${width}: hostile uploads are refused by name and reason; nothing is stored`,
          async () => {
            const cases: Array<[ReturnType<typeof file>[], RegExp]> = [
              [
                [file("rechnung.jpg", "image/jpeg", new TextEncoder().encode("%PDF-1.7 kein Bild"))],
                /kein JPEG/,
              ],
              [[
                file("ok.jpg", "image/jpeg", images.jpeg),
                file("seite.jpg", "image/jpeg", concat(new TextEncoder().encode("<html>"), images.jpeg)),
              ], /Foto 2 \(seite\.jpg\): kein JPEG-, PNG- oder WebP-Bild/],
              [
                [file("leer.png", "image/png", new Uint8Array(0))],
                /Foto 1 \(leer\.png\): die Datei ist leer/,
              ],
              [[file("bombe.png", "image/png", pngBombHeader(20_000, 20_000))], /mehr als 40 Megapixel/],
            ];
            for (const [files, reason] of cases) {
              await page.setInputFiles("#fotos-dateien", files);
              await submitForm(page, page.locator("form.photo-upload button[type=submit]"));
              const problem = await page.textContent("#photo-problem") ?? "";
              assert.match(problem, reason);
              assert.match(problem, /Es wurde nichts gespeichert/);
              assert.equal(await photoCount(id), 3, `${files.map((f) => f.name)}: nothing stored`);
            }
            await shot(page, "upload-refused", width);
            await page.click("a[href$='/" + id + "']");
          },
        );

        await t.step(`${width}: alt text, title image, order, delete (confirmed)`, async () => {
          const items = page.locator(".ws-photos > li");
          const ids = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-photo-id")));
          const first = items.first();
          await first.locator("input[name=alt_text]").fill("Wohnzimmer mit Stuckdecke");
          await submitForm(page, first.locator("button[value=alt]"));
          assert.equal(
            await items.first().locator("input[name=alt_text]").inputValue(),
            "Wohnzimmer mit Stuckdecke",
          );
          await submitForm(page, items.nth(2).locator("button[value=title]"));
          let order = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-photo-id")));
          assert.deepEqual(order, [ids[2], ids[0], ids[1]]);
          await submitForm(page, items.nth(1).locator("button[value=down]"));
          order = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-photo-id")));
          assert.deepEqual(order, [ids[2], ids[1], ids[0]]);
          // Delete needs the disclosure opened first (keyboard: focus the summary, Enter).
          const last = items.nth(2);
          assert.equal(await last.locator("button[value=delete]").isVisible(), false);
          await last.locator("details.confirm summary").focus();
          await page.keyboard.press("Enter");
          await shot(page, "delete-confirm", width);
          await submitForm(page, last.locator("button[value=delete]"));
          assert.equal(await items.count(), 2);
          assert.equal(await photoCount(id), 2);
          await items.nth(1).locator("input[name=alt_text]").fill("Küche mit Fenster");
          await submitForm(page, items.nth(1).locator("button[value=alt]"));
        });

        let photoUrl = "";
        await t.step(
          `${width}: publish; the guest sees gallery, details and energy certificate`,
          async () => {
            await submitForm(page, page.locator("button[value=publish]"));
            const guest =
              await (await browser!.newContext({ locale: "de-DE", viewport: { width, height: 900 } }))
                .newPage();
            await guest.goto(`${origin}/objekte/${id}`);
            const lead = guest.locator(".gallery .lead img");
            assert.equal(await lead.getAttribute("loading"), null, "the title image loads at once");
            assert.match(await lead.getAttribute("alt") ?? "", /Altbau mit Fotos/);
            const srcset = await guest.locator(".gallery .lead source").getAttribute("srcset") ?? "";
            assert.match(
              srcset,
              /\/fotos\/[0-9a-f]{64}-320\.webp 320w, .*-640\.webp 640w, .*-1280\.webp 1280w/,
            );
            const thumb = guest.locator(".gallery ul img").first();
            assert.equal(await thumb.getAttribute("loading"), "lazy");
            assert.equal(await thumb.getAttribute("alt"), "Küche mit Fenster");
            photoUrl = await guest.locator(".gallery .lead a").getAttribute("href") ?? "";
            assert.match(photoUrl, /^\/fotos\/[0-9a-f]{64}-\d+\.webp$/);
            // Keyboard: the first tab stops of the gallery are its full-size links.
            await guest.locator(".gallery .lead a").focus();
            assert.equal(await guest.evaluate("document.activeElement.getAttribute('href')"), photoUrl);
            const text = async (sel: string) => (await guest.textContent(sel))?.replace(/\s/g, " ");
            assert.equal(await text("#f-warm-rent"), "1.130,50 €/Monat");
            assert.equal(await text("#f-service-charges"), "180,50 €/Monat");
            assert.equal(await text("#f-deposit"), "2.850 €");
            assert.equal(await guest.textContent("#f-floor"), "2. Obergeschoss");
            assert.equal(await guest.textContent("#f-available"), "1. März 2027");
            assert.equal(await guest.textContent("#e-type"), "Verbrauchsausweis");
            assert.equal(await guest.textContent("#e-value"), "112,4 kWh/(m²·a)");
            assert.equal(await guest.textContent("#e-class"), "D");
            assert.equal(await guest.textContent("#e-valid"), "30. Juni 2032");
            const paragraphs = await guest.locator(".description p").allTextContents();
            assert.deepEqual(paragraphs, [
              "Helle Altbauwohnung <b>mit</b> Stuck.Ruhige Seitenstraße.",
              "Die Küche ist neu.",
            ], "escaped, lines and paragraphs kept");
            assert.equal(await guest.locator(".description b").count(), 0);
            const en =
              await (await fetch(`${origin}/objekte/${id}`, { headers: { "accept-language": "en" } })).text();
            for (
              const words of [
                "Energy certificate",
                "floor 2",
                "energy consumption certificate",
                "30 June 2032",
              ]
            ) {
              assert.ok(en.includes(words), `English page: ${words}`);
            }
            await guest.evaluate("window.scrollTo(0, document.body.scrollHeight)");
            await guest.waitForFunction(
              "[...document.querySelectorAll('.gallery img')].every((i) => i.complete && i.naturalWidth > 0)",
            );
            const chosen = await guest.evaluate("document.querySelector('.gallery .lead img').currentSrc");
            assert.match(String(chosen), /\.webp$/, "the browser picked a WebP variant");
            await guest.evaluate("window.scrollTo(0, 0)");
            await shot(guest, "listing", width);

            await guest.goto(`${origin}/objekte?city=Fotostadt`);
            const card = guest.locator(`article.card[data-listing-id='${id}']`);
            assert.match(await card.locator("source").getAttribute("srcset") ?? "", /-320\.webp 320w/);
            assert.equal(await card.locator("img").getAttribute("alt"), "");
            const other = guest.locator("article.card", { hasText: "Bauland ohne Foto" });
            assert.equal(
              await other.locator(".placeholder").getAttribute("aria-label"),
              "Grundstück: Kein Foto",
            );
            assert.equal(await other.locator("svg").count(), 1);
            await shot(guest, "search", width);
            await guest.click("article.card h2 a:text('Bauland ohne Foto')");
            assert.equal(await guest.locator(".gallery .placeholder").count(), 1);
            assert.equal(await guest.locator("#energie").count(), 0, "land: no energy block");
            await guest.goto(`${origin}/`);
            assert.equal(await guest.locator(`article.card[data-listing-id='${id}'] picture`).count(), 1);
            await shot(guest, "start", width);
            await guest.context().close();
          },
        );

        await t.step(
          `${width}: withdrawn, its photos are gone publicly and kept in the workspace`,
          async () => {
            assert.equal(
              await fetch(`${origin}${photoUrl}`).then(async (r) => (await r.body?.cancel(), r.status)),
              200,
            );
            await page.goto(`${origin}/anbieter/objekte/${id}`);
            await page.click("details.confirm > summary:has-text('Zurückziehen')");
            await submitForm(page, page.locator("button[name=aktion][value=withdraw]"));
            const res = await fetch(`${origin}${photoUrl}`);
            assert.equal(res.status, 404);
            await res.body?.cancel();
            const own = await page.goto(`${origin}${photoUrl.replace("/fotos/", "/anbieter/fotos/")}`);
            assert.equal(own?.status(), 200);
            assert.equal(own?.headers()["cache-control"], "private, max-age=31536000, immutable");
            const anon = await fetch(`${origin}${photoUrl.replace("/fotos/", "/anbieter/fotos/")}`, {
              redirect: "manual",
            });
            assert.equal(anon.status, 303, "not signed in: to the sign-in page");
            await anon.body?.cancel();
          },
        );
        await ctx.close();
      }
    } finally {
      await browser?.close();
      await served?.close();
      await tdb?.close();
    }
  },
});
