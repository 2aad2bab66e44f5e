/**
 * The search `total` (trigger-kept counts plus an exact count of the boundary buckets, migration 0021) against a
 * plain `count(*)` after random inserts, edits of every filtered field, publishes, reservations, withdrawals,
 * deletes and bulk statements; and two concurrent writers that must neither deadlock nor lose a count.
 */
import assert from "node:assert/strict";
import { CompiledQuery, type Kysely, sql } from "kysely";
import { prng } from "../catalogue/sample.ts";
import { searchListings } from "../catalogue/search.ts";
import type { ListingFilter } from "../catalogue/listing.ts";
import { insertListings, type NewListing, setListingStatus } from "../db/listings.ts";
import { totalQuery } from "../db/listing_filter.ts";
import { ensureOffice } from "../db/offices.ts";
import type { Database } from "../db/schema.ts";
import { closeAfterAll, DATABASE_URL, openTestDb } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
closeAfterAll(tdb);
const db = tdb.db;
const office = await ensureOffice(db, "Zählbüro");

const CITIES = ["Berlin", "München", "Muenchen", "Köln", "Neu-Ulm", null];
const TX = ["buy", "rent", null] as const;
const PT = ["apartment", "house", "land", "commercial", null] as const;
// Bounds on the fine and coarse grids and off them, so that every kind of boundary bucket occurs.
const PRICES = [
  0,
  1,
  9.5,
  99,
  100,
  450,
  1000,
  1100,
  1234.56,
  99999,
  100000,
  125000,
  199999.99,
  200000,
  250000,
];
const ROOMS = [0, 0.5, 1, 1.3, 2, 2.5, 2.7, 3, 4, 5.5, 9, 12];
const SQM = [0, 8, 10, 49, 50, 55, 75, 80, 99.5, 100, 120, 150, 1000];

const rand = prng(20261124);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const chance = (p: number) => rand() < p;
const price = () => chance(0.1) ? null : chance(0.4) ? pick(PRICES) : Math.round(rand() * 30_000_000) / 100;
const rooms = () => chance(0.15) ? null : chance(0.5) ? pick(ROOMS) : Math.round(rand() * 100) / 10;
const sqm = () => chance(0.1) ? null : chance(0.5) ? pick(SQM) : Math.round(rand() * 40_000) / 100;

function randomListing(): NewListing {
  const s = rand();
  const status = s < 0.6 ? "published" : s < 0.8 ? "withdrawn" : "draft";
  return {
    status,
    beispiel: false,
    published_at: status === "draft" ? null : new Date(Date.UTC(2026, 9, 1) + Math.floor(rand() * 1e9)),
    reference: null,
    title: "Zähltest",
    description: null,
    city: pick(CITIES),
    postal_code: null,
    property_type: pick(PT),
    transaction_type: pick(TX),
    asked_price: price(),
    total_rooms: rooms(),
    square_meters: sqm(),
    latitude: null,
    longitude: null,
  };
}

function randomFilter(): ListingFilter {
  const f: ListingFilter = { page: 1, page_size: 5 };
  if (chance(0.4)) f.city = chance(0.1) ? "Nirgendwo" : pick(CITIES.filter((c) => c !== null));
  if (chance(0.4)) f.transaction_type = pick(["buy", "rent"] as const);
  if (chance(0.3)) f.property_type = pick(["apartment", "house", "land", "commercial"] as const);
  if (chance(0.4)) f.min_price = chance(0.5) ? pick(PRICES) : Math.round(rand() * 300_000);
  if (chance(0.35)) f.max_price = Math.max(f.min_price ?? 0, chance(0.5) ? pick(PRICES) : rand() * 3_000_000);
  if (chance(0.35)) f.min_rooms = chance(0.6) ? pick(ROOMS) : Math.round(rand() * 80) / 10;
  if (chance(0.35)) f.min_sqm = chance(0.6) ? pick(SQM) : Math.round(rand() * 30_000) / 100;
  return f;
}

/** The oracle: a plain count(*) over the listings, written independently of db/listings.ts. */
async function plainCount(f: ListingFilter): Promise<number> {
  const and = [sql`status = 'published'`];
  if (f.city !== undefined) and.push(sql`city_key = city_key(${f.city})`);
  if (f.transaction_type !== undefined) and.push(sql`transaction_type = ${f.transaction_type}`);
  if (f.property_type !== undefined) and.push(sql`property_type = ${f.property_type}`);
  if (f.min_price !== undefined) and.push(sql`asked_price >= ${f.min_price}::numeric`);
  if (f.max_price !== undefined) and.push(sql`asked_price <= ${f.max_price}::numeric`);
  if (f.min_rooms !== undefined) and.push(sql`total_rooms >= ${f.min_rooms}::numeric`);
  if (f.min_sqm !== undefined) and.push(sql`square_meters >= ${f.min_sqm}::numeric`);
  const r = await sql<{ n: number }>`select count(*)::int as n from listings where ${
    sql.join(and, sql` and `)
  }`
    .execute(db.kysely);
  return r.rows[0]!.n;
}

async function checkTotals(label: string, filters: number): Promise<void> {
  for (let i = 0; i < filters; i++) {
    const f = randomFilter();
    const page = await searchListings(db, f);
    assert.equal(page.total, await plainCount(f), `${label}: total of ${JSON.stringify(f)}`);
    assert.ok(page.items.length <= page.total, `${label}: items beyond the total of ${JSON.stringify(f)}`);
  }
}

async function ids(): Promise<string[]> {
  return (await db.kysely.selectFrom("listings").select("id").where("office_id", "=", office).execute())
    .map((r) => r.id);
}

/** One random change through one of the writing paths; statements of one or many rows. */
async function randomChange(): Promise<void> {
  const all = await ids();
  const id = pick(all);
  const k = rand();
  if (k < 0.2) {
    await insertListings(db, office, Array.from({ length: 1 + Math.floor(rand() * 4) }, randomListing));
  } else if (k < 0.45) {
    await db.kysely.updateTable("listings").set({
      city: chance(0.5) ? pick(CITIES) : undefined,
      transaction_type: chance(0.4) ? pick(TX) : undefined,
      property_type: chance(0.4) ? pick(PT) : undefined,
      asked_price: chance(0.5) ? price() : undefined,
      total_rooms: chance(0.5) ? rooms() : undefined,
      square_meters: chance(0.5) ? sqm() : undefined,
      updated_at: new Date(),
    }).where("id", "=", id).execute();
  } else if (k < 0.6) {
    await setListingStatus(db.kysely, id, "published", new Date());
  } else if (k < 0.7) {
    await sql`update listings set status = 'reserved' where id = ${id} and status = 'published'`.execute(
      db.kysely,
    )
      .catch(() => setListingStatus(db.kysely, id, "withdrawn", new Date())); // databases without the reserved status
  } else if (k < 0.8) {
    await setListingStatus(db.kysely, id, "withdrawn", new Date());
  } else if (k < 0.87) {
    await db.kysely.deleteFrom("listings").where("id", "=", id).execute();
  } else if (k < 0.94) {
    // one statement changing many rows: prices shift, some cross bucket boundaries
    await sql`update listings set asked_price = round(asked_price * 1.07, 2)
      where office_id = ${office} and asked_price < 1000000 and random() < 0.3`.execute(db.kysely);
  } else {
    await db.kysely.updateTable("listings").set({ title: "nur der Titel" }).where("id", "=", id).execute();
  }
}

Deno.test("search totals equal count(*) after random writes of every kind", async () => {
  await insertListings(db, office, Array.from({ length: 400 }, randomListing));
  await checkTotals("after the first insert", 150);
  for (let batch = 0; batch < 12; batch++) {
    for (let i = 0; i < 25; i++) await randomChange();
    await checkTotals(`after batch ${batch}`, 60);
  }
});

Deno.test("a transaction that rolls back leaves the totals as they were", async () => {
  const before = await plainCount({ page: 1, page_size: 1 });
  await assert.rejects(
    db.kysely.transaction().execute(async (tx) => {
      await tx.insertInto("listings").values({
        ...randomListing(),
        office_id: office,
        status: "published",
        published_at: new Date(),
      }).execute();
      throw new Error("roll back");
    }),
  );
  assert.equal((await searchListings(db, { page: 1, page_size: 1 })).total, before);
});

/** Moves published listing `id` to `city` in transaction `tx`. */
async function move(tx: Kysely<Database>, id: string, city: string): Promise<void> {
  await tx.updateTable("listings").set({ city }).where("id", "=", id).execute();
}

Deno.test("two writers moving listings between cities in opposite orders neither deadlock nor lose a count", async () => {
  const made = await insertListings(
    db,
    office,
    ["Aachen", "Bonn", "Celle", "Dessau"].map((city) => ({
      ...randomListing(),
      status: "published" as const,
      published_at: new Date(),
      city,
    })),
  );
  const [a, b, c, d] = made as [string, string, string, string];
  const pause = () => new Promise((r) => setTimeout(r, 100));
  // First statements touch the counts of Aachen/Erfurt and Celle/Fulda, second ones the other's cities:
  // without a fixed locking order the two would wait for each other in a circle.
  const one = db.kysely.transaction().execute(async (tx) => {
    await move(tx, a, "Erfurt");
    await pause();
    await move(tx, c, "Fulda");
  });
  const two = db.kysely.transaction().execute(async (tx) => {
    await move(tx, b, "Fulda");
    await pause();
    await move(tx, d, "Aachen");
  });
  await Promise.all([one, two]);
  for (const city of ["Aachen", "Bonn", "Celle", "Dessau", "Erfurt", "Fulda", "Görlitz"]) {
    const f = { page: 1, page_size: 1, city };
    assert.equal((await searchListings(db, f)).total, await plainCount(f), city);
  }
  await checkTotals("after the concurrent writers", 40);
});

Deno.test("a search with every range filter is planned for its values on every execution, never generically", async () => {
  // A generic plan cannot tell which range is the narrow one: on 200,000 listings it took seconds for a total
  // that reads no row (docs/benchmarks.md §3.1). Postgres settles on one after five executions unless told not to.
  const filters = Array.from({ length: 8 }, (_, i): ListingFilter => ({
    page: 1,
    page_size: 5,
    transaction_type: "buy",
    min_price: 100_000 + i * 5_000,
    max_price: 250_000,
    min_rooms: 2 + i * 0.1,
    min_sqm: 40 + i,
  }));
  const text = totalQuery(filters[0]!).text;
  const plans = await db.search.connection().execute(async (c) => {
    for (const f of filters) {
      const q = totalQuery(f);
      assert.equal(q.text, text);
      await c.executeQuery(CompiledQuery.raw(q.text, q.params));
    }
    return (await sql<{ generic: number; custom: number }>`
      select coalesce(sum(generic_plans), 0)::int as generic, coalesce(sum(custom_plans), 0)::int as custom
      from pg_prepared_statements where statement = ${text}`.execute(c)).rows[0]!;
  });
  assert.equal(plans.generic, 0);
  // A real server keeps the statement prepared and counts its plans (the session may have run it before);
  // PGlite's driver sends an unnamed statement.
  if (db.kind === "postgres") assert.ok(plans.custom >= filters.length, `${plans.custom} custom plans`);
});

Deno.test("a lookup by id keeps its cached plan: only the search sessions plan every statement", async () => {
  const text = `select count(*)::int as n from listings where id = $1 and status = 'published'`;
  const generic = await db.kysely.connection().execute(async (c) => {
    for (let i = 0; i < 8; i++) await c.executeQuery(CompiledQuery.raw(text, [crypto.randomUUID()]));
    return (await sql<{ n: number }>`
      select coalesce(sum(generic_plans), 0)::int as n from pg_prepared_statements where statement = ${text}`
      .execute(c)).rows[0]!.n;
  });
  if (db.kind === "postgres") assert.ok(generic > 0, "the lookup was planned at every execution");
  else assert.equal(generic, 0);
});

Deno.test("the test runs on the database it was given", () => {
  assert.equal(db.kind, DATABASE_URL ? "postgres" : "pglite");
});
