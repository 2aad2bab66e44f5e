/**
 * Parts of `bench:catalogue` besides the load runs: the correctness check of every list request of the mix
 * against plain SQL, the few listings of the rare city, and the latency of publishing with concurrent writers.
 */
import postgres from "postgres";
import { SAMPLE_OFFICE } from "../catalogue/seed.ts";
import type { Db } from "../db/connection.ts";
import { openDb } from "../db/connection.ts";
import { insertListings, setListingStatus } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { percentile } from "./stats.ts";
import { countStarQuery, plainPageQuery } from "./listings_sql.ts";
import { type ListRequest, RARE_CITY } from "./mix.ts";
import { sql } from "kysely";

/** Result of {@linkcode checkMix}. */
export interface MixCheck {
  /** Distinct list requests compared. */
  checked: number;
  /** Human-readable differences (empty when every answer equals plain SQL). */
  mismatches: string[];
}

/**
 * Requests every distinct path of the mix from the service and compares `total` with a plain `count(*)` and the
 * item ids with the plain page query, both sent straight through postgres.js.
 */
export async function checkMix(base: string, url: string, list: ListRequest[]): Promise<MixCheck> {
  const pg = postgres(url, { max: 4, onnotice: () => {} });
  const distinct = [...new Map(list.map((r) => [r.path, r])).values()];
  const mismatches: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < distinct.length) {
      const r = distinct[next++]!;
      const res = await fetch(base + r.path, { headers: { "x-forwarded-for": `203.0.113.${next % 250}` } });
      const body = await res.json() as { items?: Array<{ id: string }>; total?: number };
      const f = r.filter;
      const count = countStarQuery(f);
      const page = plainPageQuery(f, f.page_size, (f.page - 1) * f.page_size);
      const [[c], rows] = await Promise.all([
        pg.unsafe(count.text, count.params),
        pg.unsafe(page.text, page.params),
      ]);
      const want = { total: (c as unknown as { total: number }).total, ids: rows.map((x) => x.id as string) };
      const got = { total: body.total, ids: (body.items ?? []).map((x) => x.id) };
      if (res.status !== 200 || got.total !== want.total || got.ids.join() !== want.ids.join()) {
        mismatches.push(
          `${r.path}: service ${res.status} total ${got.total}, plain SQL total ${want.total}` +
            (got.ids.join() === want.ids.join() ? "" : " (items differ)"),
        );
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: 4 }, worker));
  } finally {
    await pg.end({ timeout: 5 });
  }
  return { checked: distinct.length, mismatches };
}

/** Gives {@linkcode RARE_CITY} three published listings unless it has some; returns how many it has. */
export async function ensureRareCity(db: Db): Promise<number> {
  const have = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from listings where city_key = city_key(${RARE_CITY})`
      .execute(db.kysely)).rows[0]!.n;
  if (await have() > 0) return await have();
  const office = await ensureOffice(db, SAMPLE_OFFICE);
  await insertListings(
    db,
    office,
    [2, 3, 4].map((rooms, i) => ({
      status: "published" as const,
      beispiel: true,
      published_at: new Date(Date.now() - i * 86_400_000),
      reference: null,
      title: `${rooms}-Zimmer-Wohnung in ${RARE_CITY}`,
      description: null,
      city: RARE_CITY,
      postal_code: "91346",
      property_type: "apartment" as const,
      transaction_type: i === 0 ? "rent" as const : "buy" as const,
      asked_price: i === 0 ? 650 : 150_000 + i * 40_000,
      total_rooms: rooms,
      square_meters: 40 + rooms * 20,
      latitude: null,
      longitude: null,
    })),
  );
  return await have();
}

/** Latency figures of one kind of write. */
export interface WriteFigures {
  /** Statements timed. */
  count: number;
  /** Median in ms. */
  p50Ms: number;
  /** 99th percentile in ms. */
  p99Ms: number;
}

/** Figures of {@linkcode measureWrites}. */
export interface WriteMeasurement {
  /** Concurrent writers. */
  writers: number;
  /** Publishing a withdrawn listing (`setListingStatus`, the counts change). */
  publish: WriteFigures;
  /** Withdrawing a published listing. */
  withdraw: WriteFigures;
  /** Floor: the same statement path changing only `updated_at`-like fields (the triggers run, no count changes). */
  touch: WriteFigures;
}

/**
 * `writers` concurrent loops, each over its own published listings, for `seconds`: withdraw, publish again, and an
 * edit that changes no count; every statement timed from the client through Kysely as the service sends it.
 * Every listing ends published, as it began.
 */
export async function measureWrites(
  url: string,
  writers: number,
  seconds: number,
): Promise<WriteMeasurement> {
  const db = await openDb({ databaseUrl: url, poolSize: writers });
  const lat = { publish: [] as number[], withdraw: [] as number[], touch: [] as number[] };
  try {
    const ids = (await sql<{ id: string }>`
      select id from listings where status = 'published' and beispiel order by random() limit ${writers * 50}`
      .execute(db.kysely)).rows.map((r) => r.id);
    const end = performance.now() + seconds * 1000;
    const time = async (into: number[], f: () => Promise<unknown>) => {
      const t0 = performance.now();
      await f();
      into.push(performance.now() - t0);
    };
    const loop = async (w: number) => {
      const mine = ids.filter((_, i) => i % writers === w);
      for (let i = 0; performance.now() < end; i++) {
        const id = mine[i % mine.length]!;
        await time(lat.withdraw, () => setListingStatus(db.kysely, id, "withdrawn", new Date()));
        await time(lat.publish, () => setListingStatus(db.kysely, id, "published", new Date()));
        await time(
          lat.touch,
          () =>
            db.kysely.updateTable("listings").set({ updated_at: new Date() }).where("id", "=", id).execute(),
        );
      }
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => loop(w)));
  } finally {
    await db.close();
  }
  const fig = (xs: number[]): WriteFigures => {
    const sorted = Float64Array.from(xs).sort();
    return { count: xs.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
  };
  return { writers, publish: fig(lat.publish), withdraw: fig(lat.withdraw), touch: fig(lat.touch) };
}
