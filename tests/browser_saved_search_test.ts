/**
 * Real-browser journeys of saved searches and the account start page (issue 31 item 4): Chromium driven by
 * playwright-core against the app on a loopback port, pages without JavaScript, at 1280 and 390 px. Screenshots go
 * to `test-output/screenshots/saved-search-*`.
 *
 * A visitor searches, chooses "Suche speichern", signs in and comes back with the filters kept; saves the search
 * with a name and instant alerts; finds it in the list and on the account start page; switches the alert to daily;
 * opens the results; opens a listing and goes "Zur Objektsuche" with the filters kept; sends an inquiry and from the
 * confirmation goes back to the same results; deletes the search after confirming. A guest opens the stop link of
 * an alert mail (GET changes nothing) and confirms it. A sign-in with `weiter=//elsewhere` lands on the account.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createPerson } from "../auth/accounts.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { seedSampleZonesIfEmpty } from "../valuation/sample_zones.ts";
import { alertStopUrl } from "../searches/search_alerts.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot, submitForm } from "./browser_support.ts";
import { openTestDb, type ServedTestApp, serveTestApp, type TestDb } from "./helpers.ts";

const SHOTS = new URL("../test-output/screenshots/", import.meta.url);
const PASSWORD = "browser-suche-geheim-456";

async function shot(page: Page, name: string, width: number): Promise<void> {
  await saveScreenshot(page, new URL(`saved-search-${name}-${width}.png`, SHOTS));
  const scroll = await page.evaluate<number>("document.documentElement.scrollWidth");
  assert.ok(scroll <= width, `${name} at ${width}: scrollWidth ${scroll}`);
}

function listing(p: Partial<NewListing>): NewListing {
  return {
    status: "published",
    reference: null,
    title: "Altbau mit Balkon",
    description: "intern",
    city: "Köln",
    postal_code: "50667",
    property_type: "apartment",
    transaction_type: "rent",
    asked_price: 1150,
    total_rooms: 3,
    square_meters: 78,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date(),
    contact: {
      provider_name: "Büro",
      contact_name: "Frau B",
      contact_email: "b@example.org",
      contact_phone: null,
    },
    ...p,
  };
}

Deno.test({
  name: "browser: save a search, alerts, the account start page and the way back to the results",
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
      const { origin, app } = served;
      const officeId = await ensureOffice(db, "Suchbüro");
      await insertListings(db, officeId, [
        listing({ title: "Helle Wohnung am Ring" }),
        listing({ title: "Kleine Wohnung in Deutz", asked_price: 780, total_rooms: 1.5, square_meters: 41 }),
        listing({
          title: "Haus zum Kauf",
          transaction_type: "buy",
          property_type: "house",
          asked_price: 690000,
          city: "Leipzig",
          postal_code: "04103",
          latitude: 51.34,
          longitude: 12.375,
        }),
        listing({ title: "Wohnung in Bonn", city: "Bonn", postal_code: "53111" }),
      ]);
      await seedSampleZonesIfEmpty(db);
      const b = browser = await launchChromium();
      const scripts: string[] = [];

      await t.step(
        "the location value explained: per m² of land, GFZ in words, the rental case",
        async () => {
          const ids = await db.kysely.selectFrom("listings").select(["id", "title"]).execute();
          const idOf = (title: string) => ids.find((r) => r.title === title)!.id;
          for (const width of [1280, 390]) {
            const ctx = await b.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
            ctx.setDefaultTimeout(5_000);
            const p = await ctx.newPage();
            await p.goto(`${origin}/objekte/${idOf("Haus zum Kauf")}`);
            const value = await p.textContent("#baseline-value") ?? "";
            assert.match(value, /^Beispielwert: [0-9.]+\u00a0€ je m² Grundstücksfläche$/);
            assert.match(
              await p.textContent("#baseline-explain") ?? "",
              /nicht der Preis je Quadratmeter Wohnfläche/,
            );
            assert.match(
              await p.textContent("#baseline-gfz") ?? "",
              /^Geschossflächenzahl \(GFZ\) [0-9,]+: Der Wert gilt für Grundstücke, auf denen je 1 m² Grundstück/,
            );
            await saveScreenshot(
              p.locator("#baseline"),
              new URL(`saved-search-baseline-buy-${width}.png`, SHOTS),
            );
            await p.goto(`${origin}/objekte/${idOf("Wohnung in Bonn")}`);
            assert.equal(
              await p.textContent("#baseline"),
              "Für Mietobjekte nennen wir hier keinen Lagewert, weil es in dieser Lage zu wenige vergleichbare Mietangebote gibt.",
            );
            await shot(p, "baseline-rent", width);
            await ctx.close();
          }
        },
      );
      for (const width of [1280, 390]) {
        const email = `suche-${width}@example.org`;
        await createPerson(app.auth, db, {
          email,
          name: `Sara Suche ${width}`,
          password: PASSWORD,
          role: "seeker",
          emailVerified: true,
        });
        const ctx = await b.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
        ctx.setDefaultTimeout(15_000);
        const page = await ctx.newPage();
        page.on("request", (r) => void (r.resourceType() === "script" && scripts.push(r.url())));
        const query = "city=K%C3%B6ln&transaction_type=rent";

        await t.step(`${width}: a visitor saves a search through sign-in, filters kept`, async () => {
          await page.goto(`${origin}/objekte?city=K%C3%B6ln&transaction_type=rent&max_price=2.000`);
          assert.match(await page.textContent("#total") ?? "", /^2 /);
          await shot(page, "results", width);
          await page.click("#save-search a");
          await page.waitForURL((u) => u.pathname === "/anmelden");
          await page.fill("#email", email);
          await page.fill("#password", PASSWORD);
          await submitForm(page, page.locator("form[action='/anmelden'] button[type=submit]"));
          const back = new URL(page.url());
          assert.equal(back.pathname, "/konto/suchen/neu");
          assert.equal(back.search, `?${query}&max_price=2000`);
          assert.equal(await page.textContent("#filters-words"), "Köln · Miete · bis 2.000\u00a0€");
          assert.equal(await page.isChecked("input[name=alert][value=daily]"), true, "daily by default");
          await page.fill("#name", "Köln zur Miete");
          await page.check("input[name=alert][value=instant]");
          await shot(page, "new", width);
          await submitForm(page, page.locator("form[action='/konto/suchen/neu'] button[type=submit]"));
          assert.equal(new URL(page.url()).pathname, "/konto/suchen");
          assert.match(await page.textContent("p.notice") ?? "", /gespeichert/);
          const row = page.locator("#saved-searches tbody tr");
          assert.equal(await row.count(), 1);
          assert.match(await row.textContent() ?? "", /Köln zur Miete.*Köln · Miete · bis 2\.000\u00a0€/s);
          assert.equal(await row.locator("select[name=alert]").inputValue(), "instant");
          await shot(page, "list", width);
        });

        await t.step(`${width}: switch the alert to daily; open the results`, async () => {
          const row = page.locator("#saved-searches tbody tr");
          await row.locator("select[name=alert]").selectOption("daily");
          await submitForm(page, row.locator("button[type=submit]"));
          assert.match(await page.textContent("p.notice") ?? "", /E-Mail-Einstellung ist gespeichert/);
          assert.equal(await page.locator("#saved-searches select[name=alert]").inputValue(), "daily");
          await page.click("#saved-searches a:text('Treffer anzeigen')");
          assert.equal(new URL(page.url()).search, `?${query}&max_price=2000`);
          assert.match(await page.textContent("#total") ?? "", /^2 /);
        });

        await t.step(`${width}: listing → "Zur Objektsuche" and inquiry → back, filters kept`, async () => {
          await page.goto(`${origin}/objekte?${query}`);
          await page.click("article.card h2 a >> nth=0");
          await page.waitForURL((u) => /^\/objekte\/[0-9a-f-]{36}$/.test(u.pathname));
          assert.equal(await page.getAttribute("#back-to-search", "href"), `/objekte?${query}`);
          await page.fill("#message", "Ist die Wohnung noch frei?");
          await submitForm(page, page.locator("section#anfrage button[type=submit]"));
          assert.match(new URL(page.url()).pathname, /^\/konto\/anfragen\//);
          assert.equal(await page.getAttribute("#back-to-search", "href"), `/objekte?${query}`);
          await shot(page, "inquiry-sent", width);
          await page.click("#back-to-search");
          assert.equal(new URL(page.url()).search, `?${query}`);
        });

        await t.step(`${width}: the account start page shows inquiries and saved searches`, async () => {
          await page.goto(`${origin}/konto`);
          assert.equal(await page.textContent("h1"), "Mein Konto");
          assert.equal(await page.locator("#latest-inquiries li").count(), 1);
          assert.match(await page.textContent("#my-searches") ?? "", /Köln zur Miete/);
          await shot(page, "account", width);
        });

        await t.step(`${width}: delete the search after confirming`, async () => {
          await page.goto(`${origin}/konto/suchen`);
          await page.click("#saved-searches a:text('Löschen')");
          assert.equal(await page.textContent("h1"), "Suche löschen");
          await shot(page, "delete", width);
          const count = () =>
            db.kysely.selectFrom("saved_searches").select(db.kysely.fn.countAll<number>().as("n"))
              .executeTakeFirstOrThrow();
          const before = Number((await count()).n);
          await submitForm(page, page.locator("main form button[type=submit]"));
          assert.match(await page.textContent("p.notice") ?? "", /gelöscht/);
          assert.equal(await page.locator("#no-searches").count(), 1);
          assert.equal(Number((await count()).n), before - 1);
        });
        await ctx.close();
      }

      await t.step("a guest opens the stop link of an alert mail and confirms it", async () => {
        const ctx = await b.newContext({ locale: "de-DE", viewport: { width: 390, height: 800 } });
        try {
          const seeker = await createPerson(app.auth, db, {
            email: "alarm-browser@example.org",
            name: "A",
            password: PASSWORD,
            role: "seeker",
            emailVerified: true,
          });
          const [row] = await db.kysely.insertInto("saved_searches").values({
            seeker_id: seeker,
            name: "Bonn",
            filters: JSON.stringify({ city: "Bonn" }),
            alert: "instant",
            alert_token: "abcdefghijklmnopqrst",
            alert_since: new Date(),
          }).returning("id").execute();
          const p = await ctx.newPage();
          await p.goto(alertStopUrl(origin, row!.id, "abcdefghijklmnopqrst"));
          assert.equal(await p.textContent("h1"), "Keine E-Mails mehr zu dieser Suche");
          const alert = () =>
            db.kysely.selectFrom("saved_searches").select("alert").where("id", "=", row!.id)
              .executeTakeFirstOrThrow();
          assert.equal((await alert()).alert, "instant", "GET changes nothing");
          await shot(p, "stop-ask", 390);
          await p.click("main button[type=submit]");
          await p.waitForLoadState();
          assert.match(await p.textContent("p.notice") ?? "", /keine E-Mails mehr zu dieser Suche/);
          assert.equal((await alert()).alert, "off");
          await shot(p, "stop-done", 390);
          await p.goto(alertStopUrl(origin, row!.id, "bcdefghijklmnopqrsta"));
          assert.equal(await p.textContent("h1"), "Keine E-Mails mehr zu dieser Suche");
          assert.match(await p.textContent("p.error") ?? "", /ungültig/);
        } finally {
          await ctx.close();
        }
      });

      await t.step("sign-in with a return address off the site lands on the account start page", async () => {
        const ctx = await b.newContext({ locale: "de-DE" });
        try {
          const p = await ctx.newPage();
          for (
            const weiter of ["//evil.example/konto", "https://evil.example/", "/\\evil.example", "/anbieter"]
          ) {
            await p.goto(`${origin}/anmelden?weiter=${encodeURIComponent(weiter)}`);
            assert.equal(await p.locator("input[name=weiter]").count(), 0, weiter);
          }
          await p.fill("#email", "suche-1280@example.org");
          await p.fill("#password", PASSWORD);
          await submitForm(p, p.locator("form[action='/anmelden'] button[type=submit]"));
          assert.equal(new URL(p.url()).origin, origin);
          assert.equal(new URL(p.url()).pathname, "/konto");
          await p.goto(`${origin}/objekte/00000000-0000-4000-8000-000000000000?suche=x`);
          const listingId =
            (await db.kysely.selectFrom("listings").select("id").limit(1).executeTakeFirstOrThrow())
              .id;
          await p.goto(
            `${origin}/objekte/${listingId}?suche=${encodeURIComponent("//evil.example&city=Bonn")}`,
          );
          assert.equal(await p.getAttribute("#back-to-search", "href"), "/objekte?city=Bonn");
        } finally {
          await ctx.close();
        }
      });
      assert.deepEqual(scripts, [], "the pages load no scripts");
    } finally {
      await browser?.close();
      await served?.close();
      await tdb?.close();
    }
  },
});
