/**
 * Sorting (catalogue/sort.ts) and the place filters (postcode, radius) of the catalogue search against an oracle
 * computed in TypeScript from the inserted rows: every sort order paged through to the end (no listing repeated
 * or skipped, equal values in id order), with filters; the REST extension `sort` (default: today's order; an
 * unknown one is 400 naming `sort`); radius totals exact against the haversine distance.
 */
import assert from "node:assert/strict";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { searchListings, type SearchQuery } from "../catalogue/search.ts";
import { listingOrderOf, SORT_ORDERS, type SortOrder, sortOrderOf } from "../catalogue/sort.ts";
import {
  insertListings,
  MATCHES_FIRST_MAX,
  type NewListing,
  pageShape,
  searchPublishedListings,
  TOWN_MATCHES_FIRST_MAX,
} from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import { closeAfterAll, getJson, openTestDb, testApp } from "./helpers.ts";

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
const office = await ensureOffice(db, "Sortierbüro");

// 240 generated listings; some share a price, an area or a price per m², some have none, one has area 0.
const rand = prng(31);
const base = Date.parse("2026-10-01T12:00:00Z");
const rows: NewListing[] = Array.from({ length: 240 }, (_, i) => {
  const r: NewListing = { ...sampleListing(i, rand, base), beispiel: false };
  if (i % 9 === 0) return { ...r, asked_price: 250_000, square_meters: 100 };
  if (i % 11 === 0) return { ...r, asked_price: 125_000, square_meters: 50 };
  if (i % 13 === 0) return { ...r, square_meters: null };
  if (i % 17 === 0) return { ...r, asked_price: null };
  if (i === 5) return { ...r, square_meters: 0, status: "published" as const, published_at: new Date(base) };
  return r;
});
const ids = await insertListings(db, office, rows);
const all = rows.map((r, i) => ({ ...r, id: ids[i]! })).filter((r) => r.status === "published");

type Row = (typeof all)[number];

/** The sorted value of a row (null: none), by the rule of catalogue/sort.ts. */
function value(r: Row, s: SortOrder): number | null {
  if (s === "newest") return r.published_at!.getTime();
  if (s === "price_asc" || s === "price_desc") return r.asked_price;
  if (s === "area_asc" || s === "area_desc") return r.square_meters;
  return r.asked_price === null || !r.square_meters ? null : r.asked_price / r.square_meters;
}

function oracle(s: SortOrder, keep: (r: Row) => boolean): string[] {
  const desc = s === "newest" || s === "price_desc" || s === "area_desc";
  return all.filter(keep).sort((a, b) => {
    const va = value(a, s), vb = value(b, s);
    if (va === null || vb === null) {
      if (va !== vb) return va === null ? 1 : -1;
    } else if (va !== vb) return desc ? vb - va : va - vb;
    const byId = a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return desc ? -byId : byId;
  }).map((r) => r.id);
}

/**
 * Every page of a search, in order, with the totals each page reported. `walk` reads the pages as for a search with
 * many matches (walking an index in the page's order, `pageShape` of db/listings.ts), not matches first as the
 * 240 listings here otherwise would.
 */
async function pageThrough(q: Omit<SearchQuery, "page" | "page_size">, size: number, walk = false) {
  const got: string[] = [];
  const totals = new Set<number>();
  for (let page = 1; page < 100; page++) {
    const r = walk
      ? await walkedPage(q, page, size)
      : await searchListings(db, { ...q, page, page_size: size });
    totals.add(r.total);
    if (r.items.length === 0) break;
    got.push(...r.items.map((i) => i.id));
  }
  return { got, totals: [...totals] };
}

/** A page of the search `q` read as with many matches (no matches-first page query). */
async function walkedPage(q: Omit<SearchQuery, "page" | "page_size">, page: number, size: number) {
  const { sort, ...filter } = q;
  const f = { ...filter, order: listingOrderOf(sort ?? "newest"), page, page_size: size };
  return await searchPublishedListings(db, f, size, (page - 1) * size, "never");
}

for (const walk of [false, true]) {
  const how = walk ? "walking the order's index" : "matches first";
  for (const s of SORT_ORDERS) {
    test(`sort ${s}, ${how}: pages through every listing once, in the rule's order, ties by id`, async () => {
      const want = oracle(s, () => true);
      const { got, totals } = await pageThrough({ sort: s }, 7, walk);
      assert.deepEqual(totals, [want.length]);
      assert.equal(new Set(got).size, got.length, "no listing twice");
      assert.deepEqual(got, want);
    });
  }

  test(`every sort order with filters, ${how}: city, kind and price range; kind and rooms`, async () => {
    for (const s of SORT_ORDERS) {
      const keep = (r: Row) =>
        r.city === "Berlin" && r.transaction_type === "buy" && r.asked_price !== null &&
        r.asked_price >= 100_000;
      const { got, totals } = await pageThrough(
        { sort: s, city: "berlin", transaction_type: "buy", min_price: 100_000 },
        5,
        walk,
      );
      const want = oracle(s, keep);
      assert.ok(want.length > 5, "the filter keeps several pages");
      assert.deepEqual(totals, [want.length], s);
      assert.deepEqual(got, want, s);
      const rooms = (r: Row) =>
        r.property_type === "apartment" && r.total_rooms !== null && r.total_rooms >= 3;
      const second = await pageThrough({ sort: s, property_type: "apartment", min_rooms: 3 }, 4, walk);
      assert.ok(oracle(s, rooms).length > 4, "the second filter keeps several pages");
      assert.deepEqual(second.got, oracle(s, rooms), s);
    }
  });
}

test("an unknown sort order is invalid_request naming sort", () => {
  assert.equal(sortOrderOf(undefined), "newest");
  assert.equal(sortOrderOf("price_desc"), "price_desc");
  assert.throws(() => sortOrderOf("cheapest"), (e) =>
    e instanceof AppError && e.code === "invalid_request" &&
    e.facts.field === "sort");
});

test("REST: sort is an extension whose default is today's order; unknown sorts are 400 naming sort", async () => {
  await using t = await restApp();
  const plain = await getJson(t.app, "/api/public/properties?page_size=60");
  const newest = await getJson(t.app, "/api/public/properties?page_size=60&sort=newest");
  assert.equal(plain.status, 200);
  assert.deepEqual(plain.body, newest.body);
  assert.deepEqual(
    plain.body.items.map((i: { id: string }) => i.id),
    oracle("newest", () => true).slice(0, 60),
  );
  const cheap = await getJson(t.app, "/api/public/properties?page=2&page_size=10&sort=price_asc");
  assert.deepEqual(
    cheap.body.items.map((i: { id: string }) => i.id),
    oracle("price_asc", () => true).slice(10, 20),
  );
  assert.deepEqual(Object.keys(cheap.body.items[0]).length, 12, "still the 12 fields of §2.1");
  const bad = await getJson(t.app, "/api/public/properties?sort=cheapest");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, "invalid_request");
  assert.match(bad.body.detail, /^sort: /);
});

/** The app over the test database, closed at the end of the test that makes it. */
async function restApp() {
  const t = await testApp(db);
  return Object.assign(t, { [Symbol.asyncDispose]: async () => await t.close() });
}

/** Great-circle distance in km (haversine), the oracle of the radius filter. */
function km(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const h = Math.sin((b.lat - a.lat) * rad / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin((b.lng - a.lng) * rad / 2) ** 2;
  return 6371.0088 * 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

test("radius: exactly the listings with coordinates within the distance, total exact, every order", async () => {
  const centre = { lat: 52.52, lng: 13.405 };
  for (const radius of [3, 8, 30, 700]) {
    const keep = (r: Row) =>
      r.latitude !== null && r.longitude !== null &&
      km(centre, { lat: r.latitude, lng: r.longitude }) <= radius;
    for (const s of ["newest", "price_asc"] as const) {
      const { got, totals } = await pageThrough({ sort: s, near: { ...centre, km: radius } }, 24);
      const want = oracle(s, keep);
      assert.deepEqual(totals, [want.length], `${radius} km`);
      assert.deepEqual(got, want, `${radius} km ${s}`);
    }
  }
});

test("postcode: only listings with that postcode, total exact", async () => {
  const code = all.find((r) => r.postal_code !== null)!.postal_code!;
  const { got, totals } = await pageThrough({ postal_code: code }, 24);
  const want = oracle("newest", (r) => r.postal_code === code);
  assert.ok(want.length > 0);
  assert.deepEqual(totals, [want.length]);
  assert.deepEqual(got, want);
});

Deno.test("page shape: few matches first, up to the town bound in one town of one kind by area, never for newest first", () => {
  const base = { page: 1, page_size: 24 };
  const byPrice = { ...base, order: listingOrderOf("price_asc") };
  const between = MATCHES_FIRST_MAX + 1;
  assert.equal(pageShape(byPrice, MATCHES_FIRST_MAX), "matches_first");
  assert.equal(pageShape(byPrice, between), "ids_first");
  const town = {
    ...byPrice,
    city: "Hamburg",
    transaction_type: "buy" as const,
    order: listingOrderOf("area_desc"),
  };
  assert.equal(pageShape(town, TOWN_MATCHES_FIRST_MAX), "matches_first");
  assert.equal(pageShape(town, TOWN_MATCHES_FIRST_MAX + 1), "ids_first");
  // the price orders walk the town's own indexes in their order
  for (const s of ["price_asc", "price_desc", "price_per_sqm_asc"] as const) {
    assert.equal(pageShape({ ...town, order: listingOrderOf(s) }, TOWN_MATCHES_FIRST_MAX), "ids_first", s);
  }
  assert.equal(pageShape({ ...byPrice, postal_code: "20095" }, between), "matches_first");
  // a city alone is read from the whole city's entries: the general bound
  assert.equal(pageShape({ ...byPrice, city: "Hamburg" }, between), "ids_first");
  assert.equal(pageShape({ ...town, order: listingOrderOf("newest") }, 5), "ids_first");
  assert.equal(pageShape(town, 5, "never"), "ids_first");
  assert.equal(pageShape({ ...base, order: listingOrderOf("newest") }, 5), "plain");
  // the smallest area first with a rooms filter merges the rooms values; the other orders keep their walk
  const rooms = { ...base, min_rooms: 3, order: listingOrderOf("area_asc") };
  assert.equal(pageShape(rooms, between), "per_rooms");
  assert.equal(pageShape(rooms, 5, "never"), "per_rooms");
  assert.equal(pageShape(rooms, 5), "matches_first");
  assert.equal(pageShape({ ...rooms, order: listingOrderOf("area_desc") }, between), "ids_first");
  assert.equal(pageShape({ ...rooms, min_rooms: undefined }, between), "ids_first");
  // an area order with a transaction type and a price range of both bounds is merged per price cell
  const priced = { ...rooms, transaction_type: "rent" as const, min_price: 500, max_price: 5000 };
  assert.equal(pageShape(priced, between), "per_price");
  assert.equal(pageShape({ ...priced, order: listingOrderOf("area_desc") }, between), "per_price");
  assert.equal(pageShape({ ...priced, order: listingOrderOf("price_asc") }, between), "ids_first");
  assert.equal(pageShape({ ...priced, max_price: 5001 }, between), "ids_first", "more than ten times apart");
  assert.equal(pageShape({ ...priced, min_price: undefined }, between), "ids_first");
  assert.equal(pageShape({ ...priced, transaction_type: undefined }, between), "ids_first");
});

test("area orders within a price range, merged per price cell: every page equals the rule's order", async () => {
  const within = (tx: string, lo: number, hi: number) => (r: Row) =>
    r.transaction_type === tx && r.asked_price !== null && r.asked_price >= lo && r.asked_price <= hi;
  const buy = within("buy", 100_000, 900_000);
  assert.ok(all.some((r) => buy(r) && r.square_meters === null), "listings without an area come last");
  assert.ok(
    new Set(all.filter(buy).map((r) => r.square_meters)).size < all.filter(buy).length,
    "equal areas",
  );
  for (
    const [q, keep, size] of [
      [{ transaction_type: "buy", min_price: 100_000, max_price: 900_000 }, buy, 4],
      [
        { transaction_type: "buy", min_price: 100_000, max_price: 900_000, min_sqm: 60, min_rooms: 2 },
        (r: Row) => buy(r) && (r.square_meters ?? 0) >= 60 && (r.total_rooms ?? 0) >= 2,
        3,
      ],
    ] as const
  ) {
    for (const s of ["area_asc", "area_desc"] as const) {
      const want = oracle(s, keep);
      assert.ok(want.length > 2 * size, `${JSON.stringify(q)} keeps several pages`);
      const { got, totals } = await pageThrough({ sort: s, ...q }, size, true);
      assert.deepEqual(totals, [want.length], `${s} ${JSON.stringify(q)}`);
      assert.deepEqual(got, want, `${s} ${JSON.stringify(q)}`);
    }
  }
});

test("smallest area first with a rooms filter, merged per rooms value: every page equals the rule's order", async () => {
  const roomsOf = (min: number) => (r: Row) => r.total_rooms !== null && r.total_rooms >= min;
  const values = new Set(all.filter(roomsOf(1.5)).map((r) => r.total_rooms));
  assert.ok(values.size >= 4, "several rooms values to merge");
  assert.ok(
    all.some((r) => roomsOf(1.5)(r) && r.square_meters === null),
    "listings without an area come last",
  );
  for (
    const [q, keep, size] of [
      [{ min_rooms: 1.5 }, roomsOf(1.5), 3],
      [
        { min_rooms: 2.5, transaction_type: "buy" },
        (r: Row) => roomsOf(2.5)(r) && r.transaction_type === "buy",
        2,
      ],
      [{ min_rooms: 4, min_sqm: 60 }, (r: Row) => roomsOf(4)(r) && (r.square_meters ?? 0) >= 60, 5],
    ] as const
  ) {
    const want = oracle("area_asc", keep);
    assert.ok(want.length > 2 * size, `${JSON.stringify(q)} keeps several pages`);
    const { got, totals } = await pageThrough({ sort: "area_asc", ...q }, size, true);
    assert.deepEqual(totals, [want.length], JSON.stringify(q));
    assert.deepEqual(got, want, JSON.stringify(q));
  }
});
