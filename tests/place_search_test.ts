/**
 * The forgiving place search (catalogue/place_search.ts) on a small stock: a city typed without its qualifier
 * offers the choice, umlaut spellings and "Str."/"Straße" find the stock's city, postcodes typed alone or before
 * a name, suggestions when nothing matches, and a radius around a place's listings or coordinates.
 */
import assert from "node:assert/strict";
import { placeSpellings } from "../catalogue/place_names.ts";
import { placeHints, type PlaceOutcome, resolvePlaceSearch } from "../catalogue/place_search.ts";
import { searchListings } from "../catalogue/search.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import { closeAfterAll, openTestDb } from "./helpers.ts";

/**
 * A test without the ops sanitizer: PGlite arms its own timer (setitimer of the statement timeout) inside slow
 * statements, and on a loaded machine one outlives the test that started it. Resources stay checked.
 */
function test(name: string, fn: () => Promise<void> | void): void {
  Deno.test({ name, sanitizeOps: false, fn });
}

const tdb = await openTestDb();
closeAfterAll(tdb);
const db = tdb.db;
const office = await ensureOffice(db, "Ortsbüro");

function at(city: string, plz: string, lat: number | null, lng: number | null, n: number): NewListing[] {
  return Array.from({ length: n }, (_, i) => ({
    status: "published" as const,
    reference: null,
    title: `Wohnung ${i + 1} in ${city}`,
    description: null,
    city,
    postal_code: plz,
    property_type: "apartment" as const,
    transaction_type: "buy" as const,
    asked_price: 200_000 + i * 1000,
    total_rooms: 3,
    square_meters: 80,
    latitude: lat === null ? null : lat + i * 0.001,
    longitude: lng === null ? null : lng + i * 0.001,
    beispiel: false,
    published_at: new Date(Date.UTC(2026, 10, 1, 12, i)),
  }));
}

await insertListings(db, office, [
  ...at("Frankfurt am Main", "60311", 50.11, 8.68, 5),
  ...at("Offenbach am Main", "63065", 50.1, 8.76, 2),
  ...at("Frankfurt (Oder)", "15230", 52.34, 14.55, 2),
  ...at("München", "80331", 48.14, 11.58, 3),
  ...at("Neustadt an der Weinstraße", "67433", 49.35, 8.14, 2),
  ...at("Halle (Saale)", "06108", null, null, 1),
]);

function found(r: PlaceOutcome) {
  assert.equal(r.kind, "found", JSON.stringify(r));
  return r as Extract<PlaceOutcome, { kind: "found" }>;
}

test("'Frankfurt' offers Frankfurt am Main and Frankfurt (Oder) with their numbers of listings", async () => {
  for (const typed of ["Frankfurt", "frankfurt", "FRANKFURT "]) {
    const r = await resolvePlaceSearch(db, { place: typed });
    assert.equal(r.kind, "choose");
    const options = (r as Extract<PlaceOutcome, { kind: "choose" }>).options;
    assert.deepEqual(options, [{ city: "Frankfurt am Main", count: 5 }, {
      city: "Frankfurt (Oder)",
      count: 2,
    }]);
  }
});

test("a full name, umlaut spellings and Str./Straße find the stock's city", async () => {
  assert.deepEqual(found(await resolvePlaceSearch(db, { place: "frankfurt am main" })).filter, {
    city: "frankfurt am main",
    postal_code: undefined,
  });
  assert.equal(found(await resolvePlaceSearch(db, { place: "Muenchen" })).filter.city, "Muenchen");
  assert.equal(found(await resolvePlaceSearch(db, { place: "MÜNCHEN" })).filter.city, "MÜNCHEN");
  const weinstr = found(await resolvePlaceSearch(db, { place: "Neustadt an der Weinstr." }));
  assert.equal((await searchListings(db, { ...weinstr.filter, page: 1, page_size: 24 })).total, 2);
  const ad = found(await resolvePlaceSearch(db, { place: "Neustadt a.d. Weinstr." }));
  assert.equal((await searchListings(db, { ...ad.filter, page: 1, page_size: 24 })).total, 2);
  assert.ok(placeSpellings("Weinstraße").includes("Weinstr."));
});

test("a name without qualifier: one place is taken and said, several are a choice", async () => {
  const r = found(await resolvePlaceSearch(db, { place: "Eisleben" }));
  assert.equal(r.filter.city, "Lutherstadt Eisleben");
  assert.equal(r.taken, "Lutherstadt Eisleben");
  const halle = await resolvePlaceSearch(db, { place: "Halle" });
  assert.equal(halle.kind, "choose");
  assert.deepEqual((halle as Extract<PlaceOutcome, { kind: "choose" }>).options[0], {
    city: "Halle (Saale)",
    count: 1,
  });
  // A name the place data knows with its qualifier is taken as it is, even without listings.
  const oder = found(await resolvePlaceSearch(db, { place: "Frankfurt (Oder)" }));
  assert.equal(oder.filter.city, "Frankfurt (Oder)");
  const lindau = found(await resolvePlaceSearch(db, { place: "Lindau (Bodensee)" }));
  assert.equal(lindau.filter.city, "Lindau (Bodensee)");
});

test("postcodes: alone, before a name, or in their own field", async () => {
  assert.equal(found(await resolvePlaceSearch(db, { place: "60311" })).filter.postal_code, "60311");
  assert.equal(found(await resolvePlaceSearch(db, { place: "60311 Frankfurt" })).filter.postal_code, "60311");
  const both = found(await resolvePlaceSearch(db, { place: "München", postal_code: "80331" })).filter;
  assert.deepEqual(both, { city: "München", postal_code: "80331" });
  assert.equal((await searchListings(db, { ...both, page: 1, page_size: 24 })).total, 3);
});

test("nothing matches: suggestions, stock cities first", async () => {
  const r = await resolvePlaceSearch(db, { place: "Münchn" });
  assert.equal(r.kind, "unknown");
  const s = (r as Extract<PlaceOutcome, { kind: "unknown" }>).suggestions;
  assert.deepEqual(s[0], { city: "München", count: 3 });
  const mitte = await resolvePlaceSearch(db, { place: "Frankfurt-Sachsenhausen" });
  assert.equal(mitte.kind, "unknown");
  assert.ok(
    (mitte as Extract<PlaceOutcome, { kind: "unknown" }>).suggestions.some((o) =>
      o.city === "Frankfurt am Main"
    ),
  );
  const none = await resolvePlaceSearch(db, { place: "Xyzzyqwv" });
  assert.deepEqual(none, { kind: "unknown", typed: "Xyzzyqwv", suggestions: [] });
  assert.deepEqual(await placeHints(db, "München"), []);
  assert.deepEqual((await placeHints(db, "Frankfurt")).map((h) => h.city), [
    "Frankfurt am Main",
    "Frankfurt (Oder)",
  ]);
});

test("radius around a place's listings or coordinates; a place without coordinates says so", async () => {
  const r = found(await resolvePlaceSearch(db, { place: "Frankfurt am Main", radius_km: 15 }));
  assert.ok(r.filter.near && r.filter.city === undefined);
  const page = await searchListings(db, { ...r.filter, page: 1, page_size: 24 });
  assert.equal(page.total, 7, "Frankfurt am Main and Offenbach, 6–8 km apart");
  const tight = found(await resolvePlaceSearch(db, { place: "Frankfurt am Main", radius_km: 2 }));
  assert.equal((await searchListings(db, { ...tight.filter, page: 1, page_size: 24 })).total, 5);
  const point = found(await resolvePlaceSearch(db, { lat: 52.34, lng: 14.55, radius_km: 5 }));
  assert.equal((await searchListings(db, { ...point.filter, page: 1, page_size: 24 })).total, 2);
  assert.deepEqual(await resolvePlaceSearch(db, { place: "Halle (Saale)", radius_km: 10 }), {
    kind: "no_centre",
    typed: "Halle (Saale)",
  });
});

test("radius rules: a centre is needed, coordinates come in pairs and need a radius", async () => {
  const refused = async (input: Parameters<typeof resolvePlaceSearch>[1], field: string) => {
    await assert.rejects(
      () => resolvePlaceSearch(db, input),
      (e) => e instanceof AppError && e.code === "invalid_request" && e.facts.field === field,
    );
  };
  await refused({ radius_km: 10 }, "radius_km");
  await refused({ lat: 50, radius_km: 10 }, "lng");
  await refused({ lng: 8, radius_km: 10 }, "lat");
  await refused({ lat: 50, lng: 8 }, "radius_km");
});
