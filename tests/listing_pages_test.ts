/**
 * The listing pages and the inquiry pages through `app.request` (no browser): catalogue search with filters and
 * paging, bad filters (400, never 500), the listing view (public fields, map link, location baseline, never the
 * provider contact), 404s, the inquiry form (anonymous and as a seeker, CSRF, input errors, the inquiry limits),
 * the seeker's inquiry pages with isolation between seekers, and the write bucket on form POSTs.
 */
import assert from "node:assert/strict";
import { createPerson } from "../auth/accounts.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { hiddenFields } from "./browser_jar.ts";
import { openTestDb, request, sendInquiryAs, type TestApp, testApp } from "./helpers.ts";

const tdb = await openTestDb();
const db = tdb.db;
const a = await testApp(db);
const office = await ensureOffice(db, "Büro Seitentest");

const SECRET = {
  provider_name: "Geheim Immobilien GmbH",
  contact_name: "Erika Vertraulich",
  contact_email: "erika@geheim.example",
  contact_phone: "+49 89 5550001",
};

function row(p: Partial<NewListing>): NewListing {
  return {
    status: "published",
    reference: null,
    title: "Testobjekt",
    description: "intern: nicht öffentlich",
    city: "Seitenstadt",
    postal_code: null,
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: null,
    total_rooms: null,
    square_meters: null,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date("2026-10-01T12:00:00Z"),
    contact: SECRET,
    ...p,
  };
}

// 30 listings in "Seitenstadt", newest first by index; every third is a sample object.
const HOUR = 3_600_000;
const base = Date.parse("2026-10-01T12:00:00Z");
const cityRows = Array.from({ length: 30 }, (_, i) =>
  row({
    title: `Seitenstadt Nr. ${i}`,
    asked_price: 100_000 + i * 10_000,
    total_rooms: 1 + (i % 5),
    square_meters: 40 + i,
    beispiel: i % 3 === 0,
    published_at: new Date(base - i * HOUR),
  }));
// Six rents in Berlin 10115 (comparables for the baseline): 10, 11, …, 15 €/m² → trimmed median 12.5.
const rentRows = Array.from({ length: 6 }, (_, i) =>
  row({
    title: i === 0 ? "Helle Wohnung Mitte" : `Mietwohnung ${i}`,
    city: "Berlin",
    postal_code: "10115",
    transaction_type: "rent",
    asked_price: 800 + i * 80,
    total_rooms: 2.5,
    square_meters: 80,
    latitude: 52.5321,
    longitude: 13.3849,
    published_at: new Date(base - 100 * HOUR - i * HOUR),
  }));
const extraRows = [
  row({
    title: "Ortloses Grundstück",
    city: null,
    property_type: "land",
    published_at: new Date(base - 200 * HOUR),
  }),
  row({ title: "Entwurf", status: "draft", published_at: null }),
  row({ title: "Zurückgezogen", status: "withdrawn" }),
];
const all = [...cityRows, ...rentRows, ...extraRows];
const ids = await insertListings(db, office, all);
const listings = all.map((r, i) => ({ ...r, id: ids[i]! }));
const cityIds = ids.slice(0, 30);
const mainId = ids[30]!;
const ortlosId = ids[36]!;
const draftId = ids[37]!;
const withdrawnId = ids[38]!;
const beispielId = ids[0]!;

/** A cookie jar over `app.request` (no redirects followed). */
class Jar {
  readonly cookies = new Map<string, string>();
  constructor(readonly app: TestApp, readonly lang = "de-DE,de;q=0.9", readonly ip = "198.51.100.7") {}

  async send(
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; html: string; headers: Headers }> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    headers.set("accept-language", this.lang);
    const res = await request(this.app.app, path, { ...init, headers }, this.ip);
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(c) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  get(path: string) {
    return this.send(path);
  }

  /** POSTs `fields` as a form; `_csrf` is taken from `from` (a page's html and its form action) unless given. */
  async post(path: string, fields: Record<string, string>, opts: { from?: string; origin?: string } = {}) {
    // Forms post to their own anchor (`…/anfrage#anfrage`, `…#nachricht`), so a refusal shows its error there.
    const quoted = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const fragment = opts.from ? new RegExp(`action="${quoted}(#[^"]*)"`).exec(opts.from)?.[1] : undefined;
    const action = fragment ? `${path}${fragment}` : path;
    const hidden = opts.from ? hiddenFields(opts.from, action) : {};
    return await this.send(path, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(opts.origin ? { origin: opts.origin } : {}),
      },
      body: new URLSearchParams({ ...hidden, ...fields }),
    });
  }

  /** Signs in through the sign-in page. */
  async signIn(email: string, password: string): Promise<void> {
    const page = await this.get("/anmelden");
    const res = await this.post("/anmelden", { email, password }, { from: page.html });
    assert.equal(res.status, 303, res.html);
  }
}

/** The listing ids of the result cards, in page order. */
function cards(html: string): string[] {
  return [...html.matchAll(/<article class="card" data-listing-id="([^"]+)"/g)].map((m) => m[1]!);
}

/** The href of the link with `rel`, HTML entities undone; undefined when there is none. */
function relLink(html: string, rel: string): string | undefined {
  return new RegExp(`<a rel="${rel}" href="([^"]*)"`).exec(html)?.[1]?.replaceAll("&amp;", "&");
}

/** The oracle: listings (published) matching `keep`, newest first, then id descending. */
function expectedIds(keep: (r: (typeof listings)[number]) => boolean): string[] {
  return listings.filter((r) => r.status === "published" && keep(r))
    .toSorted((x, y) => (y.published_at!.getTime() - x.published_at!.getTime()) || (x.id < y.id ? 1 : -1))
    .map((r) => r.id);
}

async function count(table: "inquiries" | "inquiry_messages" | "event_outbox"): Promise<number> {
  const r = await db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

const de = (v: number, o: Intl.NumberFormatOptions = {}) => v.toLocaleString("de-DE", o);

Deno.test("listing pages", async (t) => {
  try {
    const anon = new Jar(a);

    await t.step("search: city filter, paging 24 per page, links keep the filters", async () => {
      const p1 = await anon.get("/objekte?city=seitenstadt");
      assert.equal(p1.status, 200);
      assert.match(p1.headers.get("content-type") ?? "", /^text\/html/);
      const csp = p1.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'none'/);
      assert.doesNotMatch(csp, /script-src/);
      assert.equal(p1.headers.get("cache-control"), "no-store");
      const expected = expectedIds((r) => r.city === "Seitenstadt");
      assert.equal(expected.length, 30);
      assert.match(p1.html, /<p id="total">30 Treffer<\/p>/);
      assert.deepEqual(cards(p1.html), expected.slice(0, 24));
      assert.equal(relLink(p1.html, "prev"), undefined);
      assert.equal(relLink(p1.html, "next"), "/objekte?city=seitenstadt&page=2");
      assert.match(p1.html, /Seite 1 von 2/);

      const p2 = await anon.get(relLink(p1.html, "next")!);
      assert.equal(p2.status, 200);
      assert.deepEqual(cards(p2.html), expected.slice(24));
      assert.equal(relLink(p2.html, "prev"), "/objekte?city=seitenstadt");
      assert.equal(relLink(p2.html, "next"), undefined);
      // The form is filled with the search.
      assert.match(
        p2.html,
        /<input id="city" name="city" type="text" inputmode="text" maxlength="100" value="seitenstadt"/,
      );

      // Page numbers: the current one marked, the others linked with the filters.
      assert.match(p1.html, /<span aria-current="page">1<\/span>/);
      assert.match(p1.html, /<a href="\/objekte\?city=seitenstadt&amp;page=2" aria-label="Seite 2">2<\/a>/);

      // A page past the last says so and links to the last page, never "Seite 9 von 2".
      const past = await anon.get("/objekte?city=seitenstadt&page=9");
      assert.equal(past.status, 200);
      assert.deepEqual(cards(past.html), []);
      assert.match(past.html, /Seite 9 gibt es nicht: Die Suche hat 30 Treffer auf 2 Seiten\./);
      assert.match(past.html, /<a id="to-last-page" href="\/objekte\?city=seitenstadt&amp;page=2">/);
      assert.doesNotMatch(past.html, /Seite 9 von/);
    });

    await t.step("search: every filter, combined, with German decimal comma and empty fields", async () => {
      const q = "city=Seitenstadt&transaction_type=buy&property_type=apartment&min_price=150000" +
        "&max_price=330000&min_rooms=2,5&min_sqm=45&unbekannt=x";
      const res = await anon.get(`/objekte?${q}`);
      assert.equal(res.status, 200, res.html);
      const expected = expectedIds((r) =>
        r.city === "Seitenstadt" && r.transaction_type === "buy" && r.property_type === "apartment" &&
        r.asked_price !== null && r.asked_price >= 150_000 && r.asked_price <= 330_000 &&
        r.total_rooms !== null && r.total_rooms >= 2.5 && r.square_meters !== null && r.square_meters >= 45
      );
      assert.ok(expected.length > 3 && expected.length < 24, String(expected.length));
      assert.deepEqual(cards(res.html), expected);
      assert.match(res.html, new RegExp(`<p id="total">${expected.length} Treffer</p>`));
      assert.match(res.html, /<option value="buy" selected>Kauf<\/option>/);

      const rent = await anon.get("/objekte?transaction_type=rent&property_type=&min_price=&city=Berlin");
      assert.equal(rent.status, 200);
      assert.deepEqual(cards(rent.html), expectedIds((r) => r.transaction_type === "rent"));

      const everything = await anon.get("/objekte?city=&min_price=&max_price=");
      assert.equal(everything.status, 200);
      assert.match(everything.html, /<p id="total">37 Treffer<\/p>/);
    });

    await t.step("search: sample objects are marked Beispielobjekt, real ones are not", async () => {
      const res = await anon.get("/objekte?city=Seitenstadt");
      for (
        const m of res.html.matchAll(/<article class="card" data-listing-id="([^"]+)">([\s\S]*?)<\/article>/g)
      ) {
        const r = listings.find((x) => x.id === m[1])!;
        assert.equal(m[2]!.includes('<span class="badge">Beispielobjekt</span>'), r.beispiel, r.title ?? "");
      }
      const en = await new Jar(a, "en-US,en;q=0.9").get("/objekte?city=Seitenstadt");
      assert.match(en.html, /<span class="badge">Sample listing<\/span>/);
      assert.match(en.html, /<html lang="en">/);
    });

    await t.step("search: bad filter values answer 400 with a message, never 500", async () => {
      const bad: Array<[string, string[]]> = [
        ["min_price=abc", ["min_price"]],
        ["max_price=-5", ["max_price"]],
        ["min_rooms=1e3&min_sqm=12.1234567", ["min_rooms", "min_sqm"]],
        ["transaction_type=lease", ["transaction_type"]],
        ["property_type=castle", ["property_type"]],
        ["page=0", ["page"]],
        ["page=99999999999", ["page"]],
        ["page=2.5", ["page"]],
        [`city=${"x".repeat(101)}`, ["city"]],
        ["city=Ber%01lin", ["city"]],
        ["city=Ber%C2%85lin", ["city"]],
        ["min_price=99999999999999", ["min_price"]],
      ];
      for (const [q, fields] of bad) {
        const res = await anon.get(`/objekte?${q}`);
        assert.equal(res.status, 400, q);
        assert.match(res.html, /<div class="error" role="alert"><p>Bitte prüfen Sie diese Angaben:<\/p>/, q);
        const named = [...res.html.matchAll(/<li data-field="([a-z_]+)"[^>]*>/g)].map((m) => m[1]);
        assert.deepEqual(named, fields, q);
        assert.deepEqual(cards(res.html), [], q);
        assert.match(res.html, /<form method="get" action="\/objekte"/, q);
      }
      const order = await anon.get("/objekte?min_price=500&max_price=100");
      assert.equal(order.status, 400);
      assert.match(order.html, /Der Preis ab darf nicht höher sein als der Preis bis\./);
    });

    await t.step(
      "listing view: public fields, map link, baseline from comparables, never the contact",
      async () => {
        const res = await anon.get(`/objekte/${mainId}`);
        assert.equal(res.status, 200);
        const html = res.html;
        assert.match(html, /<h1>Helle Wohnung Mitte<\/h1>/);
        assert.match(html, /<dd id="f-city">10115 Berlin<\/dd>/);
        assert.match(html, /<dd id="f-transaction-type">Miete<\/dd>/);
        assert.match(html, /<dd id="f-property-type">Wohnung<\/dd>/);
        assert.match(html, /<dt>Kaltmiete pro Monat<\/dt>/);
        const price = de(800, { style: "currency", currency: "EUR", maximumFractionDigits: 0 });
        assert.ok(html.includes(`<dd id="f-price">${price}</dd>`), price);
        assert.match(html, /<dd id="f-rooms">2,5<\/dd>/);
        assert.match(html, /<dd id="f-area">80 m²<\/dd>/);
        assert.ok(
          html.includes(
            'href="https://www.openstreetmap.org/?mlat=52.5321&amp;mlon=13.3849#map=16/52.5321/13.3849"',
          ),
        );
        assert.match(html, /<div id="baseline" data-source="comparables">/);
        assert.ok(
          html.includes("<strong>12,50\u00a0€ je m² Fläche und Monat</strong>"),
          "trimmed median of 10…15 €/m², to the cent",
        );
        const en = (await new Jar(a, "en-GB,en;q=0.9").get(`/objekte/${mainId}`)).html;
        assert.ok(en.includes('<dd id="f-price">€800</dd>'), "English: the same rule, English style");
        assert.ok(en.includes('<dd id="f-rooms">2.5</dd>'));
        assert.ok(en.includes("<strong>€12.50 per m² of floor space and month</strong>"));
        assert.match(html, /Median von 6 Vergleichsangeboten/);
        for (const secret of [...Object.values(SECRET), "intern: nicht öffentlich"]) {
          assert.ok(!html.includes(secret), `the page leaks ${secret}`);
        }
        assert.ok(!html.includes("Beispielobjekt"), "a real listing is not marked");
        // The anonymous inquiry form.
        assert.match(html, new RegExp(`<form method="post" action="/objekte/${mainId}/anfrage#anfrage">`));
        for (const f of ["name", "email", "phone", "message", "_csrf"]) {
          assert.match(html, new RegExp(`name="${f}"`));
        }

        const upper = await anon.get(`/objekte/${mainId.toUpperCase()}`);
        assert.equal(upper.status, 200);
      },
    );

    await t.step("listing view: sample marking, no basis, no coordinates", async () => {
      const sample = await anon.get(`/objekte/${beispielId}`);
      assert.equal(sample.status, 200);
      assert.match(sample.html, /<p class="warning" id="beispiel">Beispielobjekt: ein erfundenes Objekt/);
      const ortlos = await anon.get(`/objekte/${ortlosId}`);
      assert.equal(ortlos.status, 200);
      assert.match(ortlos.html, /<div id="baseline" data-source="none">/);
      assert.match(ortlos.html, /keine Grundlage für einen Richtwert/);
      assert.match(ortlos.html, /Keine Koordinaten angegeben\./);
      assert.ok(!/je m² (Grundstücksfläche|Fläche)/.test(ortlos.html), "no guide value");
    });

    await t.step(
      "listing view: unknown, malformed, draft and withdrawn ids are the same 404 page",
      async () => {
        const bodies = new Set<string>();
        for (const id of [crypto.randomUUID(), "nicht-eine-uuid", "1%27%20or%201=1", draftId, withdrawnId]) {
          const res = await anon.get(`/objekte/${id}`);
          assert.equal(res.status, 404, id);
          assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
          assert.match(res.html, /Dieses Objekt oder diese Seite gibt es nicht \(mehr\)\./);
          bodies.add(res.html);
        }
        assert.equal(bodies.size, 1);
      },
    );

    await t.step("inquiry: anonymous form → 303 confirmation, rows and event written", async () => {
      const before = await count("inquiries");
      const page = await anon.get(`/objekte/${mainId}`);
      const res = await anon.post(`/objekte/${mainId}/anfrage`, {
        name: "Max Muster",
        email: " Max.Muster@Example.org ",
        phone: "+49 30 123456",
        message: "Ist die Wohnung noch frei?",
      }, { from: page.html, origin: "http://localhost:8000" });
      assert.equal(res.status, 303, res.html);
      const location = res.headers.get("location");
      assert.equal(location, `/objekte/${mainId}/anfrage/gesendet`);
      const done = await anon.get(location!);
      assert.equal(done.status, 200);
      assert.match(done.html, /Ihre Anfrage wurde an den Anbieter gesendet/);

      assert.equal(await count("inquiries"), before + 1);
      const inq = await db.kysely.selectFrom("inquiries").selectAll().where(
        "email",
        "=",
        "max.muster@example.org",
      )
        .executeTakeFirstOrThrow();
      assert.equal(inq.listing_id, mainId);
      assert.equal(inq.office_id, office);
      assert.equal(inq.seeker_id, null);
      assert.equal(inq.name, "Max Muster");
      assert.equal(inq.phone, "+49 30 123456");
      assert.equal(inq.quelle, "service");
      assert.equal(inq.status, "open");
      const msgs = await db.kysely.selectFrom("inquiry_messages").selectAll().where("inquiry_id", "=", inq.id)
        .execute();
      assert.deepEqual(msgs.map((m) => [m.sender, m.body]), [["seeker", "Ist die Wohnung noch frei?"]]);
      const ev = await db.kysely.selectFrom("event_outbox").selectAll().where("name", "=", "inquiry.received")
        .execute();
      const mine = ev.filter((e) => (e.data as { anfrage_id?: string }).anfrage_id === inq.id);
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.owner_office_id, office);
      assert.equal(mine[0]!.origin_client_id, null);
      assert.equal(mine[0]!.origin_api_key_id, null);
      assert.deepEqual(Object.keys(mine[0]!.data as object).sort(), [
        "anfrage_id",
        "objekt_id",
        "quelle",
        "satz",
      ]);
    });

    await t.step(
      "inquiry: a name or phone with a line break is refused, naming the field; nothing written",
      async () => {
        const before = await count("inquiries");
        for (const [field, value] of [["name", "Max\r\nMuster"], ["phone", "030\n123456"]] as const) {
          const page = await anon.get(`/objekte/${mainId}`);
          const res = await anon.post(`/objekte/${mainId}/anfrage`, {
            name: "Max Muster",
            email: "zeilen@example.org",
            phone: "",
            message: "Ist die Wohnung noch frei?",
            [field]: value,
          }, { from: page.html, origin: "http://localhost:8000" });
          assert.equal(res.status, 400, field);
          assert.match(res.html, new RegExp(`id="${field}"[^>]*aria-invalid="true"`), field);
        }
        assert.equal(await count("inquiries"), before);
      },
    );

    await t.step("inquiry: missing or wrong CSRF token, foreign Origin → 403, nothing written", async () => {
      const page = await anon.get(`/objekte/${mainId}`);
      const token = hiddenFields(page.html, `/objekte/${mainId}/anfrage#anfrage`)._csrf!;
      const fields = { name: "Eve", email: "eve@example.org", message: "Hallo" };
      const before = [await count("inquiries"), await count("inquiry_messages"), await count("event_outbox")];
      const attempts = [
        await anon.post(`/objekte/${mainId}/anfrage`, fields),
        await anon.post(`/objekte/${mainId}/anfrage`, { ...fields, _csrf: "x".repeat(43) }),
        await anon.post(`/objekte/${mainId}/anfrage`, { ...fields, _csrf: token }, {
          origin: "https://evil.example",
        }),
        await new Jar(a).post(`/objekte/${mainId}/anfrage`, { ...fields, _csrf: token }),
      ];
      for (const res of attempts) {
        assert.equal(res.status, 403);
        assert.match(res.html, /Das Formular ist abgelaufen/);
      }
      const after = [await count("inquiries"), await count("inquiry_messages"), await count("event_outbox")];
      assert.deepEqual(after, before);
    });

    await t.step(
      "inquiry: invalid input → 400 with the form filled again; unknown listing → 404",
      async () => {
        const page = await anon.get(`/objekte/${mainId}`);
        const before = await count("inquiries");
        const noMessage = await anon.post(`/objekte/${mainId}/anfrage`, {
          name: "Rita Rückfrage",
          email: "rita@example.org",
          message: "   ",
        }, { from: page.html });
        assert.equal(noMessage.status, 400);
        // The message names the wrong field (public_pages_test.ts checks the field's marking).
        assert.match(
          noMessage.html,
          /<p class="error" role="alert" id="anfrage-fehler">Ihre Nachricht: Bitte/,
        );
        assert.match(
          noMessage.html,
          /<input id="name" name="name" type="text" required(="")? maxlength="200" value="Rita Rückfrage"/,
        );
        assert.match(noMessage.html, /value="rita@example.org"/);
        const badMail = await anon.post(`/objekte/${mainId}/anfrage`, {
          name: "Rita",
          email: "kein-at-zeichen",
          message: "Meine <b>Frage</b>",
        }, { from: page.html });
        assert.equal(badMail.status, 400);
        assert.ok(
          badMail.html.includes("Meine &lt;b&gt;Frage&lt;/b&gt;</textarea>"),
          "message kept, escaped",
        );
        const long = await anon.post(`/objekte/${mainId}/anfrage`, {
          name: "Rita",
          email: "rita@example.org",
          message: "x".repeat(10_001),
        }, { from: page.html });
        assert.equal(long.status, 400);
        for (const id of [crypto.randomUUID(), "kaputt", draftId]) {
          const res = await anon.post(`/objekte/${id}/anfrage`, {
            name: "Rita",
            email: "rita@example.org",
            message: "Hallo",
          }, { from: page.html.replaceAll(`/objekte/${mainId}/anfrage`, `/objekte/${id}/anfrage`) });
          assert.equal(res.status, 404, id);
        }
        assert.equal(await count("inquiries"), before);
      },
    );

    await t.step("inquiry limits: the 6th inquiry per e-mail in 24 h → 429 page, nothing sent", async () => {
      const email = "grenze@example.org";
      for (let i = 0; i < 5; i++) {
        const id = cityIds[i]!;
        const page = await anon.get(`/objekte/${id}`);
        const res = await anon.post(`/objekte/${id}/anfrage`, {
          name: "Greta Grenze",
          email,
          message: `Anfrage ${i}`,
        }, { from: page.html });
        assert.equal(res.status, 303, res.html);
      }
      // Past the per-person window (10 min): only the per-address limit (24 h) can refuse now.
      a.advance(11 * 60_000);
      const page = await anon.get(`/objekte/${cityIds[5]}`);
      const before = [await count("inquiries"), await count("inquiry_messages"), await count("event_outbox")];
      const res = await anon.post(`/objekte/${cityIds[5]}/anfrage`, {
        name: "Greta Grenze",
        email: "GRENZE@example.org",
        message: "Die sechste Anfrage",
      }, { from: page.html });
      assert.equal(res.status, 429);
      assert.match(
        res.html,
        /<p class="error" role="alert" id="anfrage-fehler">Sie haben gerade zu viele Anfragen gesendet/,
      );
      assert.match(res.html, /Die sechste Anfrage<\/textarea>/);
      const after = [await count("inquiries"), await count("inquiry_messages"), await count("event_outbox")];
      assert.deepEqual(after, before);
      const rows = await db.kysely.selectFrom("inquiries").select("id").where("email", "=", email).execute();
      assert.equal(rows.length, 5);
      // A day later the address may send again.
      a.advance(24 * HOUR);
      const again = await anon.post(`/objekte/${cityIds[5]}/anfrage`, {
        name: "Greta Grenze",
        email,
        message: "Neuer Tag",
      }, { from: page.html });
      assert.equal(again.status, 303);
    });

    // Seekers and a provider with accounts.
    const PASSWORD = "seiten-geheim-123";
    const seekerA = await createPerson(a.auth, db, {
      email: "anna.suche@example.org",
      name: "Anna Suche",
      password: PASSWORD,
      role: "seeker",
    });
    await createPerson(a.auth, db, {
      email: "bert.suche@example.org",
      name: "Bert Suche",
      password: PASSWORD,
      role: "seeker",
    });
    const providerId = await createPerson(a.auth, db, {
      email: "paula.anbieter@example.org",
      name: "Paula Anbieter",
      password: PASSWORD,
      role: "provider",
    });
    await startMembership(db, providerId, office);
    const anna = new Jar(a);
    await anna.signIn("anna.suche@example.org", PASSWORD);
    const bert = new Jar(a, "de-DE", "203.0.113.9");
    await bert.signIn("bert.suche@example.org", PASSWORD);
    let annaInquiry = "";

    await t.step("seeker: inquiry with the account → 303 to the thread", async () => {
      const page = await anna.get(`/objekte/${mainId}`);
      assert.equal(page.status, 200);
      assert.match(
        page.html,
        /<p id="sending-as">Sie senden mit Ihrem Konto als <strong>Anna Suche<\/strong>/,
      );
      assert.ok(!/name="email"/.test(page.html), "no e-mail field for a signed-in seeker");
      assert.match(page.html, /<a href="\/konto">Mein Konto<\/a>/);
      const res = await anna.post(`/objekte/${mainId}/anfrage`, {
        message: "Wann kann ich die Wohnung besichtigen?",
        email: "fremd@example.org",
      }, { from: page.html });
      assert.equal(res.status, 303, res.html);
      const m = /^\/konto\/anfragen\/([0-9a-f-]{36})\?gesendet=anfrage$/.exec(
        res.headers.get("location") ?? "",
      );
      assert.ok(m, res.headers.get("location") ?? "");
      annaInquiry = m[1]!;
      const inq = await db.kysely.selectFrom("inquiries").selectAll().where("id", "=", annaInquiry)
        .executeTakeFirstOrThrow();
      assert.equal(inq.seeker_id, seekerA);
      assert.equal(inq.email, "anna.suche@example.org", "the account's address, not a form field");
      assert.equal(inq.name, "Anna Suche");
      assert.equal(inq.listing_id, mainId);
      const thread = await anna.get(res.headers.get("location")!);
      assert.equal(thread.status, 200);
      assert.match(thread.html, /<p class="notice" role="status">Vielen Dank! Ihre Anfrage wurde/);
      assert.match(thread.html, /Wann kann ich die Wohnung besichtigen\?/);
      assert.equal(thread.headers.get("cache-control"), "no-store");
    });

    await t.step("seeker: my inquiries list, thread, write again", async () => {
      const list = await anna.get("/konto/anfragen");
      assert.equal(list.status, 200);
      assert.match(list.html, new RegExp(`<tr data-inquiry-id="${annaInquiry}">`));
      assert.match(list.html, new RegExp(`<a href="/objekte/${mainId}">Helle Wohnung Mitte</a>`));
      assert.match(list.html, /<td data-label="Status">offen<\/td>/);
      const thread = await anna.get(`/konto/anfragen/${annaInquiry}`);
      const res = await anna.post(`/konto/anfragen/${annaInquiry}`, { message: "Gern auch am Wochenende." }, {
        from: thread.html,
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), `/konto/anfragen/${annaInquiry}?gesendet=nachricht`);
      const after = await anna.get(res.headers.get("location")!);
      assert.match(after.html, /Ihre Nachricht wurde gesendet\./);
      const bodies = [...after.html.matchAll(/<div class="body">([^<]*)<\/div>/g)].map((m) => m[1]);
      assert.deepEqual(bodies, ["Wann kann ich die Wohnung besichtigen?", "Gern auch am Wochenende."]);
      const msgs = await db.kysely.selectFrom("inquiry_messages").select(["sender", "author_id"])
        .where("inquiry_id", "=", annaInquiry).execute();
      assert.deepEqual(msgs.map((m) => [m.sender, m.author_id]), [["seeker", seekerA], ["seeker", seekerA]]);
      const empty = await anna.post(`/konto/anfragen/${annaInquiry}`, { message: " " }, {
        from: thread.html,
      });
      assert.equal(empty.status, 400);
      assert.match(empty.html, /Bitte schreiben Sie eine Nachricht/);
      // The error is where the person is: the form posts to its own anchor, the field names the message.
      assert.match(empty.html, new RegExp(`action="/konto/anfragen/${annaInquiry}#nachricht"`));
      assert.match(empty.html, /<p class="error" role="alert" id="nachricht-fehler">/);
      assert.match(empty.html, /<textarea[^>]*aria-invalid="true"[^>]*aria-describedby="nachricht-fehler"/);
      assert.equal(
        (await db.kysely.selectFrom("inquiry_messages").select("id").where("inquiry_id", "=", annaInquiry)
          .execute()).length,
        2,
      );
    });

    await t.step("seeker isolation: another seeker's inquiry is the same 404 as an unknown id", async () => {
      const own = await bert.get("/konto/anfragen");
      assert.equal(own.status, 200);
      assert.ok(!own.html.includes(annaInquiry));
      assert.match(own.html, /Sie haben noch keine Anfragen gesendet\./);
      const bodies = new Set<string>();
      for (const id of [annaInquiry, annaInquiry.toUpperCase(), crypto.randomUUID(), "nicht-da"]) {
        const res = await bert.get(`/konto/anfragen/${id}`);
        assert.equal(res.status, 404, id);
        assert.ok(!res.html.includes("Wann kann ich"), id);
        bodies.add(res.html);
      }
      assert.equal(bodies.size, 1, "foreign, unknown and malformed ids answer alike");
      const page = await bert.get("/konto/anfragen");
      const token = hiddenFields(page.html, "/abmelden")._csrf!;
      const before = await count("inquiry_messages");
      for (const id of [annaInquiry, crypto.randomUUID(), "nicht-da"]) {
        const res = await bert.post(`/konto/anfragen/${id}`, { message: "Übernahme!", _csrf: token });
        assert.equal(res.status, 404, id);
      }
      assert.equal(await count("inquiry_messages"), before);
    });

    await t.step("not signed in: inquiry pages redirect to sign-in", async () => {
      for (const path of ["/konto/anfragen", `/konto/anfragen/${annaInquiry}`]) {
        const res = await anon.get(path);
        assert.equal(res.status, 303, path);
        assert.equal(res.headers.get("location"), "/anmelden");
      }
      const withToken = await anon.get(`/objekte/${mainId}`);
      const t2 = hiddenFields(withToken.html, `/objekte/${mainId}/anfrage#anfrage`)._csrf!;
      const res = await anon.post(`/konto/anfragen/${annaInquiry}`, { message: "x", _csrf: t2 });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/anmelden");
    });

    await t.step("provider: sees a note instead of the form and cannot inquire", async () => {
      const paula = new Jar(a);
      await paula.signIn("paula.anbieter@example.org", PASSWORD);
      const page = await paula.get(`/objekte/${mainId}`);
      assert.equal(page.status, 200);
      assert.match(page.html, /<p class="notice" id="provider-note">Sie sind als Anbieter angemeldet/);
      assert.ok(!page.html.includes(`action="/objekte/${mainId}/anfrage"`));
      const token = hiddenFields(page.html, "/abmelden")._csrf!;
      const before = await count("inquiries");
      const res = await paula.post(`/objekte/${mainId}/anfrage`, { message: "Test", _csrf: token });
      assert.equal(res.status, 403);
      assert.equal(await count("inquiries"), before);
    });

    await t.step("seeker list: paging 24 per page", async () => {
      // 25 more inquiries for Anna, in steps past every limit window (domain clock).
      const deps = a.deps;
      for (let i = 0; i < 25; i++) {
        if (i % 5 === 0) a.advance(25 * HOUR);
        await sendInquiryAs(deps, {
          listingId: cityIds[i]!,
          inquirer: { seekerId: seekerA, name: "Anna Suche", email: "anna.suche@example.org", phone: null },
          message: `Frage ${i}`,
          origin: null,
        });
        a.advance(1000);
      }
      const p1 = await anna.get("/konto/anfragen");
      const rows1 = [...p1.html.matchAll(/<tr data-inquiry-id="([^"]+)">/g)].map((m) => m[1]!);
      assert.equal(rows1.length, 24);
      assert.equal(relLink(p1.html, "next"), "/konto/anfragen?page=2");
      assert.equal(relLink(p1.html, "prev"), undefined);
      const p2 = await anna.get("/konto/anfragen?page=2");
      const rows2 = [...p2.html.matchAll(/<tr data-inquiry-id="([^"]+)">/g)].map((m) => m[1]!);
      assert.equal(rows2.length, 2);
      assert.equal(new Set([...rows1, ...rows2]).size, 26);
      assert.ok(rows2.includes(annaInquiry), "the oldest inquiry is on the last page");
      assert.equal(relLink(p2.html, "prev"), "/konto/anfragen?page=1");
      for (const bad of ["0", "abc", "-1"]) {
        assert.equal((await anna.get(`/konto/anfragen?page=${bad}`)).status, 400, bad);
      }
    });
  } finally {
    a.kv.close();
  }
});

Deno.test("listing pages: the write bucket refuses the 61st quick POST with 429", async () => {
  const limited = await testApp(db, { RATE_LIMIT: "on" });
  try {
    const jar = new Jar(limited, "de-DE", "192.0.2.61");
    const page = await jar.get(`/objekte/${mainId}`);
    const before = await count("inquiries");
    for (let i = 0; i < 60; i++) {
      const res = await jar.post(`/objekte/${mainId}/anfrage`, { message: "ohne Token" });
      assert.equal(res.status, 403, `POST ${i + 1}`);
    }
    const res = await jar.post(`/objekte/${mainId}/anfrage`, {
      name: "Schnell",
      email: "schnell@example.org",
      message: "Die 61.",
    }, { from: page.html });
    assert.equal(res.status, 429);
    assert.deepEqual(JSON.parse(res.html), { error: "rate_limited" });
    assert.equal(res.headers.get("retry-after"), null);
    assert.equal(await count("inquiries"), before);
  } finally {
    limited.kv.close();
    await tdb.close();
  }
});
