/**
 * The location baseline end to end: a table of requests covering every branch (regional rules, official land
 * values, comparables, none), each asserting source, base_eur_sqm, region_label, brw, gfz and stichtag.
 */
import assert from "node:assert/strict";
import { seedSample } from "../catalogue/seed.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { loadValuationFixtures } from "./brw_support.ts";
import { ensureOffice } from "../db/offices.ts";
import { closeAfterAll, openTestDb, request, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
const t = await testApp(tdb.db);
const { app } = t;
const limited = await testApp(tdb.db, { RATE_LIMIT: "on" });
closeAfterAll(t, limited, tdb);
const PATH = "/api/public/valuation/location-baseline";
const office = await ensureOffice(tdb.db, "Vergleichsbüro");

function listing({ per, sqm = 100, ...p }: Partial<NewListing> & { per: number; sqm?: number }): NewListing {
  return {
    status: "published",
    reference: null,
    title: "Vergleichsobjekt",
    description: null,
    city: "Leipzig",
    postal_code: "04103",
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: per * sqm,
    total_rooms: 3,
    square_meters: sqm,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date("2026-11-01T00:00:00Z"),
    ...p,
  };
}

// Leipzig 04103, buy apartments: 12 values; 1 cut per tail → 2000…3300 (10 values), median (2800 + 2900) / 2.
const leipzig04103 = [1000, 2000, 2500, 2600, 2700, 2800, 2900, 3000, 3100, 3200, 3300, 9000];
// Leipzig 04109: only 3 values → the city is used: 15 values, 1 cut per tail, 13 left, median 3000.
const leipzig04109 = [4000, 4100, 4200];
await insertListings(tdb.db, office, [
  ...leipzig04103.map((per) => listing({ per })),
  ...leipzig04109.map((per) => listing({ per, postal_code: "04109" })),
  // never comparables: a sample listing, a withdrawn one, an implausible value, a missing area, other segments
  ...Array.from({ length: 20 }, () => listing({ per: 20000, beispiel: true })),
  listing({ per: 30000, status: "withdrawn" }),
  listing({ per: 5 }),
  { ...listing({ per: 3000 }), square_meters: null },
  // Leipzig rent: 4 values only → none
  ...[10, 11, 12, 13].map((per) => listing({ per, transaction_type: "rent" })),
  // Bremen 28195 rent: exactly 5 values → median 12
  ...[10, 11, 12, 13, 14].map((per) =>
    listing({ per, transaction_type: "rent", city: "Bremen", postal_code: "28195" })
  ),
  // Magdeburg houses for sale: 6 values with sqm 150, median (1900 + 2000) / 2
  ...[1700, 1800, 1900, 2000, 2100, 2200].map((per) =>
    listing({ per, sqm: 150, property_type: "house", city: "Magdeburg", postal_code: "39104" })
  ),
]);
await seedSample(tdb.db, { count: 50 });

// The invented BRW fixtures, loaded through the real parser and store (one dataset per state).
await loadValuationFixtures(tdb.db, [
  ["bb_potsdam_2022_epsg25833.csv", "BB"],
  ["bb_potsdam_2024_epsg25833.csv", "BB"],
  ["nw_duesseldorf_koeln_epsg25832.geojson", "NW"],
  ["ni_hannover_epsg4326.geojson", "NI"],
]);
// Potsdam rent listings (a state that releases land values): rent never uses them, comparables do.
await insertListings(
  tdb.db,
  office,
  [9, 10, 11, 12, 13, 14].map((per) =>
    listing({ per, transaction_type: "rent", city: "Potsdam", postal_code: "14467" })
  ),
);

interface Row {
  name: string;
  body: Record<string, unknown>;
  source: "bodenrichtwert" | "comparables" | "none";
  base?: number | null;
  label?: RegExp | null;
  brw?: number | null;
  gfz?: number | null;
  stichtag?: string | null;
}

const NONE = { source: "none" as const, base: null, brw: null, gfz: null, stichtag: null };
const CMP = { source: "comparables" as const, brw: null, gfz: null, stichtag: null };

/** Regional rules, place resolution edge cases and comparables; land-value rows are added below. */
export const ROWS: Row[] = [
  { name: "nothing given", body: {}, ...NONE, label: /Kein Ort/ },
  { name: "only property type", body: { property_type: "house" }, ...NONE, label: /Kein Ort/ },
  { name: "München PLZ → Bayern", body: { plz: "80331" }, ...NONE, label: /^Bayern/ },
  { name: "München city → Bayern", body: { city: "München" }, ...NONE, label: /^Bayern/ },
  { name: "Muenchen spelling → Bayern", body: { city: "Muenchen", art: "miete" }, ...NONE, label: /^Bayern/ },
  { name: "Stuttgart → Baden-Württemberg", body: { plz: "70173" }, ...NONE, label: /^Baden-Württemberg/ },
  { name: "Saarbrücken → Saarland", body: { plz: "66111", art: "miete" }, ...NONE, label: /^Saarland/ },
  { name: "Kiel → Schleswig-Holstein", body: { plz: "24103" }, ...NONE, label: /^Schleswig-Holstein/ },
  { name: "Aschaffenburg 63739 → Bayern", body: { plz: "63739" }, ...NONE, label: /^Bayern/ },
  {
    name: "Wertheim 97877 → Baden-Württemberg",
    body: { plz: "97877" },
    ...NONE,
    label: /^Baden-Württemberg/,
  },
  { name: "Lindau 88131 → Bayern", body: { plz: "88131" }, ...NONE, label: /^Bayern/ },
  { name: "Neu-Ulm 89231 → Bayern", body: { plz: "89231" }, ...NONE, label: /^Bayern/ },
  { name: "Ulm 89073 → Baden-Württemberg", body: { plz: "89073" }, ...NONE, label: /^Baden-Württemberg/ },
  {
    name: "Norderstedt 22844 → Schleswig-Holstein",
    body: { plz: "22844" },
    ...NONE,
    label: /^Schleswig-Holstein/,
  },
  {
    name: "Hamburg 20095 is not restricted: no data → none naming the PLZ",
    body: { plz: "20095" },
    ...NONE,
    label: /^PLZ 20095: weder/,
  },
  {
    name: "Hanau 63450 (Hessen, next to Aschaffenburg) is not restricted",
    body: { plz: "63450" },
    ...NONE,
    label: /^PLZ 63450: weder/,
  },
  {
    name: "coordinates win: PLZ of München with a point in Leipzig → Sachsen, comparables of the PLZ",
    body: { plz: "80331", lat: 51.3397, lng: 12.3731, property_type: "apartment" },
    ...NONE,
    label: /^PLZ 80331: weder/,
  },
  {
    name: "coordinates win: Leipzig PLZ with a point in München → Bayern",
    body: { plz: "04103", lat: 48.137, lng: 11.575 },
    ...NONE,
    label: /^Bayern/,
  },
  { name: "coordinates outside Germany (Paris)", body: { lat: 48.8566, lng: 2.3522 }, ...NONE, label: /.+/ },
  { name: "coordinates in the Atlantic", body: { lat: 0, lng: -30 }, ...NONE, label: /.+/ },
  { name: "unknown PLZ", body: { plz: "00000" }, ...NONE, label: /00000/ },
  { name: "unknown city", body: { city: "Atlantis" }, ...NONE, label: /Atlantis/ },
  {
    name: "comparables in the PLZ: trimmed median 2850",
    body: { plz: "04103", property_type: "apartment" },
    ...CMP,
    base: 2850,
    label: /^PLZ 04103: Median von 10 Vergleichsangeboten \(Wohnungen, Kauf\)/,
  },
  {
    name: "comparables: kauf is the default art",
    body: { plz: "04103", property_type: "apartment", art: "kauf" },
    ...CMP,
    base: 2850,
    label: /^PLZ 04103/,
  },
  {
    name: "comparables without property type: apartments and houses",
    body: { plz: "04103" },
    ...CMP,
    base: 2850,
    label: /Wohnungen und Häuser, Kauf/,
  },
  {
    name: "too few in the PLZ → the city: median 3000",
    body: { plz: "04109", property_type: "apartment" },
    ...CMP,
    base: 3000,
    label: /^Leipzig: Median von 13 Vergleichsangeboten/,
  },
  {
    name: "city only → city comparables",
    body: { city: "leipzig", property_type: "apartment" },
    ...CMP,
    base: 3000,
    label: /^leipzig: Median von 13/,
  },
  {
    name: "no houses in Leipzig → none",
    body: { plz: "04109", property_type: "house" },
    ...NONE,
    label: /^PLZ 04109: weder Bodenrichtwert noch genug Vergleichsangebote \(Häuser, Kauf\)/,
  },
  {
    name: "4 rent values in Leipzig → none",
    body: { plz: "04103", property_type: "apartment", art: "miete" },
    ...NONE,
    label: /Wohnungen, Miete/,
  },
  {
    name: "exactly 5 rent values in Bremen → median 12",
    body: { plz: "28195", property_type: "apartment", art: "miete" },
    ...CMP,
    base: 12,
    label: /^PLZ 28195: Median von 5 Vergleichsangeboten \(Wohnungen, Miete\)/,
  },
  {
    name: "Magdeburg houses for sale: median 1950",
    body: { plz: "39104", property_type: "house" },
    ...CMP,
    base: 1950,
    label: /^PLZ 39104: Median von 6/,
  },
  {
    name: "commercial in Magdeburg: no comparables → none",
    body: { plz: "39104", property_type: "commercial" },
    ...NONE,
    label: /Gewerbe, Kauf/,
  },
  {
    name: "sample listings never count: Berlin only has samples",
    body: { city: "Berlin", property_type: "apartment", art: "miete" },
    ...NONE,
    label: /^Berlin: weder/,
  },
];

const BW = { source: "bodenrichtwert" as const };
const POTSDAM_INNENSTADT = { lat: 52.39985581, lng: 13.05097061 };
const POTSDAM_GEWERBE = { lat: 52.3974976, lng: 13.07165343 };
const POTSDAM_HOLE = { lat: 52.39730528, lng: 13.05990252 };
const KOENIGSALLEE = { lat: 51.22780713, lng: 6.78005898 };
const KOELN_EHRENFELD = { lat: 50.93627393, lng: 6.91923178 };

/** Official land values (kauf only): by point, by municipality median, overlaps, rent. */
export const LAND_ROWS: Row[] = [
  {
    name: "point in Potsdam Innenstadt, apartment",
    body: { ...POTSDAM_INNENSTADT, property_type: "apartment" },
    ...BW,
    base: 1100,
    brw: 1100,
    gfz: 1.2,
    stichtag: "2024-01-01",
    label: /^Bodenrichtwertzone Innenstadt, Potsdam$/,
  },
  {
    name: "point with PLZ and city: the point decides the zone",
    body: { ...POTSDAM_INNENSTADT, plz: "14467", city: "Potsdam", art: "kauf" },
    ...BW,
    base: 1100,
    stichtag: "2024-01-01",
  },
  {
    name: "overlap of residential and commercial zones: commercial for commercial",
    body: { ...POTSDAM_GEWERBE, property_type: "commercial" },
    ...BW,
    base: 420,
    brw: 420,
    gfz: null,
    label: /^Bodenrichtwertzone Gewerbe Speicherstadt, Potsdam$/,
  },
  {
    name: "same overlap: residential for a house",
    body: { ...POTSDAM_GEWERBE, property_type: "house" },
    ...BW,
    base: 1100,
    label: /Innenstadt/,
  },
  {
    name: "same overlap: building land for land",
    body: { ...POTSDAM_GEWERBE, property_type: "land" },
    ...BW,
    base: 1100,
  },
  {
    name: "Düsseldorf Königsallee",
    body: { ...KOENIGSALLEE, property_type: "house" },
    ...BW,
    base: 3500,
    brw: 3500,
    gfz: 3,
    stichtag: "2024-01-01",
    label: /^Bodenrichtwertzone Königsallee, Düsseldorf$/,
  },
  {
    name: "Köln Ehrenfeld, commercial zone overlapping",
    body: { ...KOELN_EHRENFELD, property_type: "commercial" },
    ...BW,
    base: 390,
  },
  {
    name: "Hannover (EPSG:4326 fixture)",
    body: { lat: 52.3744, lng: 9.7386, property_type: "apartment" },
    ...BW,
    base: 2200,
    gfz: 2.5,
  },
  {
    name: "without coordinates: the municipality median at the latest Stichtag",
    body: { plz: "14467", property_type: "apartment" },
    ...BW,
    base: 925,
    brw: 925,
    gfz: null,
    stichtag: "2024-01-01",
    label: /^Potsdam \(Median von 2 Zonen\)$/,
  },
  {
    name: "city only: municipality median (umlaut spelling)",
    body: { city: "Koeln", property_type: "house" },
    ...BW,
    base: 1325,
    label: /^Köln \(Median von 2 Zonen\)$/,
  },
  {
    name: "rent never uses land values: Potsdam rent comparables",
    body: { ...POTSDAM_INNENSTADT, plz: "14467", property_type: "apartment", art: "miete" },
    ...CMP,
    base: 11.5,
    label: /^PLZ 14467: Median von 6 Vergleichsangeboten \(Wohnungen, Miete\)/,
  },
  {
    name: "rent in Düsseldorf: no comparables → none",
    body: { ...KOENIGSALLEE, art: "miete" },
    ...NONE,
    label: /Miete/,
  },
  {
    name: "a point in a zone's hole with no other zone → comparables, here none",
    body: { ...POTSDAM_HOLE, property_type: "apartment" },
    ...NONE,
    label: /weder Bodenrichtwert/,
  },
  {
    name: "a point in Bavaria with zones elsewhere: the regional rule comes first",
    body: { lat: 48.137, lng: 11.575, art: "kauf" },
    ...NONE,
    label: /^Bayern/,
  },
];

/** Sends one row's request and checks every field of the answer. */
export async function checkRow(a: typeof app, r: Row): Promise<void> {
  const res = await request(a, PATH, {
    method: "POST",
    body: JSON.stringify(r.body),
    headers: { "content-type": "application/json" },
  });
  assert.equal(res.status, 200, r.name);
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "base_eur_sqm",
    "brw",
    "gfz",
    "region_label",
    "source",
    "stichtag",
  ]);
  assert.equal(body.source, r.source, `${r.name}: source (${body.region_label})`);
  if (r.base !== undefined) assert.equal(body.base_eur_sqm, r.base, `${r.name}: base_eur_sqm`);
  if (r.source === "none") assert.equal(body.base_eur_sqm, null, `${r.name}: none comes with null`);
  if (r.label === null) assert.equal(body.region_label, null);
  else if (r.label) assert.match(body.region_label ?? "", r.label, `${r.name}: region_label`);
  for (const k of ["brw", "gfz", "stichtag"] as const) {
    if (r[k] !== undefined) assert.equal(body[k], r[k], `${r.name}: ${k}`);
  }
}

Deno.test(`location baseline: ${ROWS.length} requests without land values`, async () => {
  for (const r of ROWS) await checkRow(app, r);
});

Deno.test(`location baseline: ${LAND_ROWS.length} requests on official land values`, async () => {
  for (const r of LAND_ROWS) await checkRow(app, r);
  assert.ok(ROWS.length + LAND_ROWS.length >= 40);
});

Deno.test("the endpoint has its own bucket: 15 at once, then 429; the catalogue bucket is untouched", async () => {
  const ip = "198.51.100.200";
  const codes: number[] = [];
  for (let i = 0; i < 16; i++) {
    const res = await request(limited.app, PATH, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    }, ip);
    codes.push(res.status);
    const body = await res.json();
    if (res.status === 429) {
      assert.deepEqual(body, { error: "rate_limited" });
      assert.equal(res.headers.get("retry-after"), null);
    }
  }
  assert.deepEqual(codes, [...Array(15).fill(200), 429]);
  assert.equal((await request(limited.app, "/api/public/properties", {}, ip)).status, 200);
  limited.advance(1000);
  const again = await request(limited.app, PATH, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  }, ip);
  assert.equal(again.status, 200, "3 tokens per second");
});
