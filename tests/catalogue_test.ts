/**
 * GET /api/public/properties and /{id} against an oracle: the expected page is computed in TypeScript from the
 * rows the test inserted, for every filter alone and combined, paging, ordering and totals.
 */
import assert from "node:assert/strict";
import { LISTING_FIELDS } from "../catalogue/listing.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertListings, type NewListing, setListingStatus } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { sql } from "kysely";
import { closeAfterAll, getJson, openTestDb, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
const t = await testApp(tdb.db);
const { app } = t;
closeAfterAll(t, tdb);
const office = await ensureOffice(tdb.db, "Testbüro");

// 300 generated listings plus hand-made edge cases: umlaut spellings, no price, equal publication times.
const rand = prng(7);
const base = Date.parse("2026-10-01T12:00:00Z");
const rows: NewListing[] = Array.from(
  { length: 300 },
  (_, i) => ({ ...sampleListing(i, rand, base), beispiel: i % 2 === 0 }),
);
const tie = new Date("2026-11-01T00:00:00Z");
rows.push(
  edge({ city: "Muenchen", published_at: tie, asked_price: 500000 }),
  edge({ city: "MÜNCHEN", published_at: tie, asked_price: null }),
  edge({ city: "münchen", published_at: tie, asked_price: 750000 }),
  edge({ city: "Neu-Ulm", published_at: tie, asked_price: 1 }),
  edge({ city: "Neu Ulm", published_at: new Date("2026-11-02T00:00:00Z"), asked_price: 0 }),
);
const ids = await insertListings(tdb.db, office, rows);
const all = rows.map((r, i) => ({ ...r, id: ids[i]! }));

function edge(p: Partial<NewListing>): NewListing {
  return {
    status: "published",
    reference: null,
    title: "Randfall",
    description: "intern: nicht öffentlich",
    city: null,
    postal_code: "80331",
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: null,
    total_rooms: 3,
    square_meters: 80,
    latitude: 48.1,
    longitude: 11.5,
    beispiel: false,
    published_at: null,
    contact: {
      provider_name: "Geheim GmbH",
      contact_name: "Erika Vertraulich",
      contact_email: "erika@geheim.example",
      contact_phone: "+49 89 555000",
    },
    ...p,
  };
}

function key(city: string | null): string | null {
  if (city === null) return null;
  return city.normalize("NFC").toLowerCase().replaceAll("ä", "ae").replaceAll("ö", "oe").replaceAll("ü", "ue")
    .replaceAll("ß", "ss").replace(/[^a-z0-9]+/g, "") || null;
}

type Q = Record<string, string | number>;

function expected(q: Q) {
  const page = Number(q.page ?? 1);
  const size = Number(q.page_size ?? 24);
  const hits = all.filter((r) =>
    r.status === "published" &&
    (q.city === undefined || key(r.city) === key(String(q.city))) &&
    (q.transaction_type === undefined || r.transaction_type === q.transaction_type) &&
    (q.property_type === undefined || r.property_type === q.property_type) &&
    (q.min_price === undefined || (r.asked_price !== null && r.asked_price >= Number(q.min_price))) &&
    (q.max_price === undefined || (r.asked_price !== null && r.asked_price <= Number(q.max_price))) &&
    (q.min_rooms === undefined || (r.total_rooms !== null && r.total_rooms >= Number(q.min_rooms))) &&
    (q.min_sqm === undefined || (r.square_meters !== null && r.square_meters >= Number(q.min_sqm)))
  ).sort((a, b) =>
    b.published_at!.getTime() - a.published_at!.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
  );
  return { ids: hits.slice((page - 1) * size, page * size).map((r) => r.id), total: hits.length, page, size };
}

async function check(q: Q) {
  const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
  const { status, body } = await getJson(app, `/api/public/properties${qs ? `?${qs}` : ""}`);
  assert.equal(status, 200, qs);
  const want = expected(q);
  assert.equal(body.total, want.total, `total for ${qs}`);
  assert.equal(body.page, want.page);
  assert.equal(body.page_size, want.size);
  assert.deepEqual(body.items.map((i: { id: string }) => i.id), want.ids, `items for ${qs}`);
  return body;
}

Deno.test("defaults: page 1, 24 items, newest first, exact total", async () => {
  const body = await check({});
  assert.equal(body.items.length, 24);
  assert.ok(body.total > 250);
});

Deno.test("each filter alone", async () => {
  const cases: Q[] = [
    { city: "Berlin" },
    { city: "berlin" },
    { city: "München" },
    { city: "muenchen" },
    { city: "MUENCHEN" },
    { city: "Frankfurt am Main" },
    { city: "neu ulm" },
    { city: "Nowhere" },
    { transaction_type: "buy" },
    { transaction_type: "rent" },
    { property_type: "apartment" },
    { property_type: "house" },
    { property_type: "land" },
    { property_type: "commercial" },
    { min_price: 0 },
    { min_price: 400000 },
    { max_price: 1000 },
    { max_price: 0 },
    { min_rooms: 4 },
    { min_rooms: 2.5 },
    { min_sqm: 100 },
    { min_sqm: 80.5 },
  ];
  for (const q of cases) await check(q);
});

Deno.test("filters combined", async () => {
  const cases: Q[] = [
    { city: "Hamburg", transaction_type: "rent" },
    { city: "Köln", property_type: "apartment", transaction_type: "buy", min_rooms: 2 },
    { transaction_type: "buy", property_type: "house", min_price: 300000, max_price: 900000 },
    { transaction_type: "rent", min_price: 500, max_price: 1500, min_sqm: 40, page_size: 5 },
    { city: "Leipzig", min_sqm: 60, min_rooms: 2, page_size: 60 },
    { property_type: "land", min_sqm: 500, max_price: 400000 },
    { min_price: 100000, max_price: 100000 },
    { city: "München", min_price: 1 },
  ];
  for (const q of cases) await check(q);
});

Deno.test("a price filter excludes listings without a price", async () => {
  const body = await check({ city: "München", min_price: 0, page_size: 60 });
  assert.ok(body.items.every((i: { asked_price: number | null }) => i.asked_price !== null));
  const withNull = await check({ city: "München", page_size: 60 });
  assert.ok(withNull.items.some((i: { asked_price: number | null }) => i.asked_price === null));
});

Deno.test("city matches case-insensitively and across umlaut spellings", async () => {
  const a = await check({ city: "München", page_size: 60 });
  const b = await check({ city: "muenchen", page_size: 60 });
  const c = await check({ city: "MÜNCHEN", page_size: 60 });
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
  assert.ok(a.items.some((i: { city: string }) => i.city === "Muenchen"));
  assert.ok(a.items.some((i: { city: string }) => i.city === "MÜNCHEN"));
});

Deno.test("paging to the last page and beyond, with a stable tiebreak", async () => {
  const size = 7;
  const first = await check({ page_size: size });
  const pages = Math.ceil(first.total / size);
  const seen: string[] = [];
  for (let p = 1; p <= pages; p++) {
    const body = await check({ page: p, page_size: size });
    seen.push(...body.items.map((i: { id: string }) => i.id));
  }
  assert.equal(seen.length, first.total);
  assert.equal(new Set(seen).size, first.total, "no listing appears twice across pages");
  const last = await check({ page: pages, page_size: size });
  assert.equal(last.items.length, first.total - (pages - 1) * size);
  const beyond = await check({ page: pages + 1, page_size: size });
  assert.deepEqual(beyond.items, []);
  assert.equal(beyond.total, first.total);
  const far = await check({ page: 1_000_000, page_size: 60 });
  assert.deepEqual(far.items, []);
});

Deno.test("page_size bounds 1 and 60 are accepted", async () => {
  assert.equal((await check({ page_size: 1 })).items.length, 1);
  assert.equal((await check({ page_size: 60 })).items.length, 60);
});

Deno.test("only published listings appear; withdrawing one makes it 404 at once", async () => {
  const hidden = all.filter((r) => r.status !== "published");
  assert.ok(hidden.length > 0);
  for (const r of hidden.slice(0, 5)) {
    assert.equal((await getJson(app, `/api/public/properties/${r.id}`)).status, 404);
  }
  const target = all.find((r) => r.status === "published" && r.city === "Berlin")!;
  assert.equal((await getJson(app, `/api/public/properties/${target.id}`)).status, 200);
  await setListingStatus(tdb.db.kysely, target.id, "withdrawn", new Date());
  const gone = await getJson(app, `/api/public/properties/${target.id}`);
  assert.deepEqual([gone.status, gone.body], [404, { error: "not_found" }]);
  target.status = "withdrawn";
  await check({ city: "Berlin", page_size: 60 });
});

Deno.test("a listing has exactly the fields of docs/contract.md §2.1, null where unknown", async () => {
  const r = all.find((x) => x.status === "published" && x.city === "MÜNCHEN")!;
  const { status, body } = await getJson(app, `/api/public/properties/${r.id}`);
  assert.equal(status, 200);
  assert.deepEqual(Object.keys(body), LISTING_FIELDS);
  assert.deepEqual(body, {
    id: r.id,
    title: "Randfall",
    city: "MÜNCHEN",
    postal_code: "80331",
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: null,
    total_rooms: 3,
    square_meters: 80,
    latitude: 48.1,
    longitude: 11.5,
    beispiel: false,
  });
  const upper = await getJson(app, `/api/public/properties/${r.id.toUpperCase()}`);
  assert.equal(upper.status, 200);
  const page = await getJson(app, "/api/public/properties?page_size=60");
  for (const item of page.body.items) assert.deepEqual(Object.keys(item), LISTING_FIELDS);
});

Deno.test("no provider or internal data leaks through any endpoint", async () => {
  const secrets = [
    "Geheim GmbH",
    "Erika Vertraulich",
    "erika@geheim.example",
    "555000",
    "nicht öffentlich",
    "office",
  ];
  const texts: string[] = [];
  for (let p = 1; p <= 6; p++) {
    texts.push(await (await app.request(`/api/public/properties?page_size=60&page=${p}`)).text());
  }
  for (const r of all.filter((x) => x.status === "published").slice(0, 20)) {
    texts.push(await (await app.request(`/api/public/properties/${r.id}`)).text());
  }
  const doc = await (await app.request("/api/public/openapi.json")).text();
  for (const s of secrets.slice(0, 5)) assert.ok(!doc.includes(s), `leaked ${s}`);
  for (const t of texts) {
    for (const s of secrets.slice(0, 5)) assert.ok(!t.includes(s), `leaked ${s}`);
    for (const k of ["office_id", "reference", "description", "status", "contact", "published_at"]) {
      assert.ok(!t.includes(`"${k}"`), `leaked field ${k}`);
    }
  }
});

Deno.test("unknown and malformed ids answer 404 not_found", async () => {
  for (
    const id of [crypto.randomUUID(), "abc", "00000000-0000-0000-0000-00000000000g", "1", "%27%20or%201%3D1"]
  ) {
    const { status, body } = await getJson(app, `/api/public/properties/${id}`);
    assert.deepEqual([status, body], [404, { error: "not_found" }], id);
  }
});

Deno.test("the unfiltered total stays exact through inserts, status changes and deletes", async () => {
  const exact = async () => {
    const r = await sql<{ n: number }>`select count(*)::int as n from listings where status = 'published'`
      .execute(tdb.db.kysely);
    return r.rows[0]!.n;
  };
  const total = async () => (await getJson(app, "/api/public/properties?page_size=1")).body.total;
  assert.equal(await total(), await exact());
  const [draft, live] = await insertListings(tdb.db, office, [
    edge({ status: "draft" }),
    edge({ published_at: tie }),
  ]);
  assert.equal(await total(), await exact());
  await setListingStatus(tdb.db.kysely, draft!, "published", new Date());
  await setListingStatus(tdb.db.kysely, live!, "withdrawn", new Date());
  await setListingStatus(tdb.db.kysely, live!, "withdrawn", new Date());
  assert.equal(await total(), await exact());
  await tdb.db.kysely.updateTable("listings").set({ title: "umbenannt" }).where("status", "=", "published")
    .execute();
  await tdb.db.kysely.deleteFrom("listings").where("id", "in", [draft!, live!]).execute();
  assert.equal(await total(), await exact());
});
