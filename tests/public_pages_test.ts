/**
 * The public pages at the HTTP level: content negotiation of `/` and of unknown paths (a browser gets HTML, an API
 * client the JSON 404), the doctype of every page, German numbers in the search form, the inquiry error at the
 * form with the wrong field marked, and the location value of invented land-value zones labelled as invented.
 */
import assert from "node:assert/strict";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { replaceZones } from "../db/brw_datasets.ts";
import { INVENTED_MARKER } from "../valuation/brw_import.ts";
import { seedSampleZonesIfEmpty } from "../valuation/sample_zones.ts";
import { hiddenFields } from "./browser_jar.ts";
import { closeAfterAll, openTestDb, request, testApp } from "./helpers.ts";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const CONTACT = {
  provider_name: "Seiten GmbH",
  contact_name: "Petra Seite",
  contact_email: "petra@seiten.example",
  contact_phone: "+49 30 1234567",
};

const tdb = await openTestDb();
const db = tdb.db;
const a = await testApp(db);
closeAfterAll(a, tdb);
const office = await ensureOffice(db, "Seitenbüro");

function row(p: Partial<NewListing>): NewListing {
  return {
    status: "published",
    reference: null,
    title: "Objekt",
    description: "intern",
    city: "Zahlenstadt",
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
    contact: CONTACT,
    ...p,
  };
}

// Prices around 500,000 € in "Zahlenstadt"; one Köln flat inside an invented zone, one Berlin flat in a real one.
const inserted = await insertListings(db, office, [
  row({ title: "Günstige Wohnung", asked_price: 400_000, total_rooms: 2.5 }),
  row({ title: "Teure Wohnung", asked_price: 600_000, total_rooms: 4 }),
  row({ title: "Mittlere Wohnung", asked_price: 500_000.5, total_rooms: 3 }),
  row({
    title: "Wohnung in Köln",
    city: "Köln",
    postal_code: "50667",
    latitude: 50.938,
    longitude: 6.96,
    published_at: new Date("2026-10-02T12:00:00Z"),
  }),
  row({
    title: "Wohnung in Berlin",
    city: "Berlin",
    postal_code: "10115",
    latitude: 52.5321,
    longitude: 13.3849,
    published_at: new Date("2026-10-03T12:00:00Z"),
  }),
]);
const [cheap, dear, , koeln, berlin] = inserted as [string, string, string, string, string];
// The sample start's invented zones (a city zone covers Köln), and one zone of a real-looking source in Berlin.
await seedSampleZonesIfEmpty(db);
const ring = [[13.38, 52.53], [13.39, 52.53], [13.39, 52.54], [13.38, 52.54], [13.38, 52.53]] as Array<
  [number, number]
>;
await replaceZones(db, {
  state: "BE",
  stichtag: "2024-01-01",
  source: "Gutachterausschuss Berlin (Testzone)",
  licence: "dl-de/by-2-0",
  zones: [{
    brw: 4200,
    gfz: 2.5,
    wgfz: null,
    nutzung: "W",
    entwicklung: "B",
    zone_name: "Mitte",
    zone_number: null,
    municipality_name: "Berlin",
    municipality_key: null,
    geometry: { type: "Polygon", coordinates: [ring] },
    min_lat: 52.53,
    max_lat: 52.54,
    min_lng: 13.38,
    max_lng: 13.39,
  }],
});

/** GETs `path` with the given Accept header (and German as the language unless `lang` says otherwise). */
async function get(path: string, accept?: string, lang = "de-DE,de;q=0.9") {
  const headers: Record<string, string> = { "accept-language": lang };
  if (accept !== undefined) headers.accept = accept;
  const res = await request(a.app, path, { headers });
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text(), res };
}

/** The ids of the result cards of a search page, in page order. */
function cards(html: string): string[] {
  return [...html.matchAll(/<article class="card" data-listing-id="([^"]+)"/g)].map((m) => m[1]!);
}

/** The `<input …>` tag of the field with `id`. */
function inputTag(html: string, id: string): string {
  return new RegExp(`<(input|textarea|select)\\b[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0] ?? "";
}

Deno.test("/ and unknown paths: HTML for a browser, the JSON 404 for API clients", async () => {
  const start = await get("/", BROWSER_ACCEPT);
  assert.equal(start.status, 200);
  assert.match(start.type, /^text\/html/);
  assert.ok(start.body.startsWith('<!DOCTYPE html><html lang="de">'), start.body.slice(0, 80));
  assert.match(start.res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
  assert.match(start.body, /role="search"/);
  assert.match(start.body, /href="\/anmelden"/);
  assert.match(start.body, /href="\/registrieren"/);
  assert.match(start.body, /<a href="\/api\/public\/openapi.json" id="openapi-link">/);
  assert.match(start.body, /\/mcp/);
  // The newest listings, newest first.
  assert.deepEqual(cards(start.body).slice(0, 2), [berlin, koeln]);

  const missing = await get("/gibt-es-nicht", BROWSER_ACCEPT);
  assert.equal(missing.status, 404);
  assert.match(missing.type, /^text\/html/);
  assert.ok(missing.body.startsWith("<!DOCTYPE html>"));
  assert.match(missing.body, /Seite nicht gefunden/);
  assert.match(missing.body, /<a href="\/" id="back-home">Zur Startseite<\/a>/);
  assert.match(missing.res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
  const english = await get("/gibt-es-nicht", BROWSER_ACCEPT, "en-GB,en;q=0.9");
  assert.match(english.body, /<html lang="en">/);
  assert.match(english.body, /Page not found/);
  assert.match(english.body, /Back to the start page/);

  const json = [
    ["/", undefined],
    ["/", "application/json"],
    ["/", "*/*"],
    ["/", "application/json, text/html"],
    ["/", "text/html;q=0.5, application/json"],
    ["/", "text/html;q=0"],
    ["/gibt-es-nicht", undefined],
    ["/gibt-es-nicht", "application/json;q=0.9, text/*;q=0.8"],
    ["/gibt-es-nicht", "application/json"],
    ["/api/public/nirgends", BROWSER_ACCEPT],
    ["/api/nirgends", BROWSER_ACCEPT],
    ["/mcp/nirgends", BROWSER_ACCEPT],
    ["/.well-known/nirgends", BROWSER_ACCEPT],
    ["/healthz/nirgends", BROWSER_ACCEPT],
  ] as const;
  for (const [path, accept] of json) {
    const res = await get(path, accept);
    assert.equal(res.status, 404, `${path} ${accept}`);
    assert.match(res.type, /^application\/json/, `${path} ${accept}`);
    assert.deepEqual(JSON.parse(res.body), { error: "not_found" }, `${path} ${accept}`);
  }
  const html = [["/", "text/html"], ["/", "text/html, application/json"], [
    "/x",
    "application/json;q=0.5, text/html",
  ]];
  for (const [path, accept] of html) {
    assert.match((await get(path!, accept)).type, /^text\/html/, `${path} ${accept}`);
  }
});

Deno.test("every page starts with the doctype (standards mode)", async () => {
  for (const path of ["/", "/objekte", `/objekte/${cheap}`, "/anmelden", "/registrieren", "/nirgends"]) {
    const res = await get(path, BROWSER_ACCEPT);
    assert.ok(res.body.startsWith("<!DOCTYPE html>"), `${path}: ${res.body.slice(0, 40)}`);
    assert.equal(res.body.match(/<!DOCTYPE/gi)?.length, 1, path);
  }
  // The OAuth error page (its own answer, outside the page routes).
  const oauth = await get("/api/auth/error?error=invalid_client", BROWSER_ACCEPT);
  assert.equal(oauth.status, 400);
  assert.match(oauth.type, /^text\/html/);
  assert.ok(oauth.body.startsWith("<!DOCTYPE html><html"), oauth.body.slice(0, 40));
  assert.equal(oauth.body.match(/<!DOCTYPE/gi)?.length, 1);
});

Deno.test("search form: German numbers are read, shown back, and a wrong one is named and marked", async () => {
  const search = (q: Record<string, string>) => get(`/objekte?${new URLSearchParams(q)}`, BROWSER_ACCEPT);
  // "500.000" is five hundred thousand, not 500.
  const upTo = await search({ city: "Zahlenstadt", max_price: "500.000" });
  assert.equal(upTo.status, 200);
  assert.deepEqual(cards(upTo.body), [cheap]);
  assert.match(inputTag(upTo.body, "max_price"), /value="500\.000"/);
  const from = await search({ city: "Zahlenstadt", min_price: "500.000,50" });
  assert.deepEqual(cards(from.body).length, 2);
  assert.ok(!cards(from.body).includes(cheap));
  assert.match(inputTag(from.body, "min_price"), /value="500\.000,5"/);
  const plain = await search({ city: "Zahlenstadt", min_price: "500000", max_price: "600000" });
  assert.equal(cards(plain.body).length, 2);
  assert.match(inputTag(plain.body, "min_price"), /value="500\.000"/);
  const rooms = await search({ city: "Zahlenstadt", min_rooms: "2,5" });
  assert.equal(cards(rooms.body).length, 3);
  const decimalPoint = await search({ city: "Zahlenstadt", min_rooms: "3.5" });
  assert.deepEqual(cards(decimalPoint.body), [dear]);
  assert.match(inputTag(decimalPoint.body, "min_rooms"), /value="3,5"/);
  // English page: the value is shown back English style.
  const en = await get(`/objekte?min_price=500.000`, BROWSER_ACCEPT, "en-GB");
  assert.match(inputTag(en.body, "min_price"), /value="500,000"/);

  const bad = await search({ city: "Zahlenstadt", min_price: "fünfhundert", max_price: "1.00.000" });
  assert.equal(bad.status, 400);
  assert.match(
    bad.body,
    /<li data-field="min_price" id="problem-min_price">Preis ab \(€\): keine lesbare Zahl/,
  );
  assert.match(
    bad.body,
    /<li data-field="max_price" id="problem-max_price">Preis bis \(€\): keine lesbare Zahl/,
  );
  assert.match(inputTag(bad.body, "min_price"), /aria-invalid="true"/);
  assert.match(inputTag(bad.body, "min_price"), /aria-describedby="problem-min_price"/);
  assert.match(inputTag(bad.body, "min_price"), /value="fünfhundert"/);
  assert.ok(!inputTag(bad.body, "city").includes("aria-invalid"));
  assert.equal(cards(bad.body).length, 0);

  const order = await search({ min_price: "600.000", max_price: "500.000" });
  assert.equal(order.status, 400);
  assert.match(order.body, /id="problem-price-order"/);
  assert.match(inputTag(order.body, "max_price"), /aria-describedby="problem-price-order"/);

  // The REST API keeps its strict rule: "500.000" is 500.
  const rest = await request(a.app, "/api/public/properties?city=Zahlenstadt&max_price=500.000");
  assert.equal(rest.status, 200);
  assert.equal((await rest.json()).total, 0);
  const restComma = await request(a.app, "/api/public/properties?max_price=500.000,50");
  assert.equal(restComma.status, 400);
});

Deno.test("inquiry refused: the error is at the form (#anfrage), names the field and marks it", async () => {
  const page = await get(`/objekte/${cheap}`, BROWSER_ACCEPT);
  const action = `/objekte/${cheap}/anfrage#anfrage`;
  assert.match(page.body, new RegExp(`<section id="anfrage">`));
  assert.ok(page.body.includes(`action="${action}"`));
  const cookie = page.res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const post = async (fields: Record<string, string>) => {
    const res = await request(a.app, action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, "accept-language": "de" },
      body: new URLSearchParams({ ...hiddenFields(page.body, action), ...fields }),
    });
    return { status: res.status, body: await res.text() };
  };
  const badMail = await post({ name: "Rita", email: "kein-at", message: "Hallo" });
  assert.equal(badMail.status, 400);
  const section = badMail.body.slice(badMail.body.indexOf('<section id="anfrage">'));
  assert.match(section, /<p class="error" role="alert" id="anfrage-fehler">E-Mail-Adresse: /);
  assert.match(inputTag(badMail.body, "email"), /aria-invalid="true"/);
  assert.match(inputTag(badMail.body, "email"), /aria-describedby="anfrage-fehler"/);
  assert.ok(!inputTag(badMail.body, "name").includes("aria-invalid"));
  assert.match(inputTag(badMail.body, "email"), /value="kein-at"/);

  const noMessage = await post({ name: "Rita", email: "rita@example.org", message: "  " });
  assert.equal(noMessage.status, 400);
  assert.match(noMessage.body, /id="anfrage-fehler">Ihre Nachricht: /);
  assert.match(inputTag(noMessage.body, "message"), /aria-invalid="true"/);
  const noName = await post({ name: "", email: "rita@example.org", message: "Hallo" });
  assert.match(noName.body, /id="anfrage-fehler">Name: /);
  assert.match(inputTag(noName.body, "name"), /aria-describedby="anfrage-fehler"/);
});

Deno.test("location value: invented zones are labelled invented, a real one official, the Stichtag in German", async () => {
  const invented = await get(`/objekte/${koeln}`, BROWSER_ACCEPT);
  const box = /<div id="baseline"[\s\S]*?<\/div>/.exec(invented.body)?.[0] ?? "";
  assert.match(box, /data-source="bodenrichtwert" data-invented="true"/);
  assert.match(box, /Beispieldaten – erfundener Wert, kein amtlicher Bodenrichtwert/);
  assert.ok(!box.includes("amtlicher Wert"), box);
  assert.match(box, /Stichtag: <time datetime="2021-01-01" id="stichtag">1\. Januar 2021<\/time>/);

  const official = await get(`/objekte/${berlin}`, BROWSER_ACCEPT);
  const real = /<div id="baseline"[\s\S]*?<\/div>/.exec(official.body)?.[0] ?? "";
  assert.match(real, /data-source="bodenrichtwert">/);
  assert.match(real, /amtlicher Wert/);
  assert.ok(!real.includes("erfunden"), real);
  // The licence asks the source to be named (valuation/brw_sources.ts): "Datenquelle: …, dl-de/by-2-0".
  assert.match(
    real,
    /<p class="hint" id="baseline-attribution">Datenquelle: Gutachterausschuss Berlin \(Testzone\), <a href="https:\/\/www\.govdata\.de\/dl-de\/by-2-0" rel="license noopener noreferrer">dl-de\/by-2-0<\/a><\/p>/,
  );
  assert.ok(!box.includes("baseline-attribution"), "an invented value names no licence");
  assert.match(real, /1\. Januar 2024/);
  // Per m² of land, clearly not the flat's price; the floor-area ratio in words (issue 31 item 5).
  assert.match(
    real,
    /<p id="baseline-value">Bodenrichtwert: <strong>4\.200\u00a0€ je m² Grundstücksfläche<\/strong>/,
  );
  assert.match(
    real,
    /Geschossflächenzahl \(GFZ\) 2,5: Der Wert gilt für Grundstücke, auf denen je 1 m² Grundstück 2,5 m² Geschossfläche/,
  );
  assert.match(real, /nicht der Preis je Quadratmeter Wohnfläche dieses Objekts/);
  assert.match(box, /<p id="baseline-value">Beispielwert: <strong>/);
  const en = await get(`/objekte/${koeln}`, BROWSER_ACCEPT, "en-GB");
  assert.match(en.body, /Sample data – an invented value/);
  assert.match(en.body, /1 January 2021/);
  const enReal = await get(`/objekte/${berlin}`, BROWSER_ACCEPT, "en-GB");
  assert.match(enReal.body, /Official land value: <strong>€4,200 per m² of land<\/strong>/);
  assert.match(
    enReal.body,
    /Floor-area ratio \(GFZ\) 2\.5: the value applies to plots on which 2\.5 m² of floor space/,
  );

  // The REST answer keeps its shape (docs/contract.md §3.1).
  const rest = await request(a.app, "/api/public/valuation/location-baseline", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ lat: 50.938, lng: 6.96, property_type: "apartment", art: "kauf" }),
  });
  const body = await rest.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "base_eur_sqm",
    "brw",
    "gfz",
    "region_label",
    "source",
    "stichtag",
  ]);
  assert.equal(body.source, "bodenrichtwert");
  assert.ok(INVENTED_MARKER.length > 0);
});

Deno.test("sample start: every sample city in a releasing state has an invented zone for its listings", async () => {
  const { sampleCityZones, CITY_ZONE_STICHTAG } = await import("../valuation/sample_zones.ts");
  const { SAMPLE_CITIES } = await import("../catalogue/sample.ts");
  const zones = sampleCityZones();
  const covered = [...zones.values()].flat().map((z) => z.municipality_name);
  for (const city of SAMPLE_CITIES) {
    const releasing = !["BW", "SL", "SH", "BY"].includes(city.state);
    assert.equal(covered.includes(city.name), releasing, city.name);
  }
  // Older than every fixture file, so the fixture zones keep their answers.
  assert.ok(CITY_ZONE_STICHTAG < "2022-01-01");
});
