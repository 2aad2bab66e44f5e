/**
 * The direct-driver floor, run as its own process by `catalogue.ts`: the service's SQL statements (plain copies
 * from `listings_sql.ts`) issued through postgres.js with the service's pool size, from `connections` concurrent
 * loops, for a warm-up and then a measured period. Prints one JSON line: requests, req/s, p50 and p99.
 *
 * Usage: deno run --allow-net --allow-read --allow-env bench/direct_driver.ts <config.json>
 */
import postgres from "postgres";
import type { ListingFilter } from "../catalogue/listing.ts";
import { countStarQuery, listingQuery, searchQueries, type SqlQuery } from "./listings_sql.ts";
import { pageShape } from "../db/listings.ts";
import { SEARCH_SESSION_SETTINGS } from "../db/connection.ts";
import { percentile } from "./stats.ts";

/** What the floor process runs (written as JSON by `catalogue.ts`). */
export interface DirectConfig {
  /** Postgres connection URL. */
  url: string;
  /** Which endpoint's statements: the list (count, then the page unless past the total) or the single listing. */
  endpoint: "list" | "single";
  /** Concurrent request loops (like wrk's connections). */
  connections: number;
  /** postgres.js pool size (the service's default is 10). */
  poolSize: number;
  /** Seconds of warm-up, not measured. */
  warmupS: number;
  /** Seconds measured. */
  durationS: number;
  /**
   * `"pool"`: `sql.unsafe` on the pool; `"reserve"`: reserve a connection per statement as kysely-postgres-js does;
   * `"countstar"`: as `"pool"`, but the total counted with a plain `count(*)` as before migration 0021.
   */
  mode: "pool" | "reserve" | "countstar";
  /** The list filters of the mix. */
  filters: ListingFilter[];
  /** Listing ids of the mix. */
  ids: string[];
}

/** What the floor process prints. */
export interface DirectResult {
  /** Requests completed in the measured period. */
  requests: number;
  /** Length of the measured period in seconds. */
  seconds: number;
  /** Requests per second. */
  rps: number;
  /** Median latency in ms. */
  p50Ms: number;
  /** 99th percentile latency in ms. */
  p99Ms: number;
  /** Requests that failed or found no row. */
  errors: number;
}

/** Runs the floor as configured and returns its figures. */
export async function runDirect(cfg: DirectConfig): Promise<DirectResult> {
  // The service runs searches on sessions that plan every statement for its values, lookups by id on the others.
  const settings = cfg.endpoint === "list" ? { ...SEARCH_SESSION_SETTINGS } : {};
  const sql = postgres(cfg.url, { max: cfg.poolSize, onnotice: () => {}, connection: settings });
  // the page query's shape depends on the total (db/listings.ts pageShape): both kinds, chosen after the count
  const pages = cfg.filters.map((f) => {
    const few = searchQueries(f, 1).items;
    const many = searchQueries(f, Number.MAX_SAFE_INTEGER);
    return { few, many: many.items, count: cfg.mode === "countstar" ? countStarQuery(f) : many.count };
  });
  const singles = cfg.ids.map((id) => listingQuery(id));
  const exec = cfg.mode !== "reserve"
    ? (q: SqlQuery) => sql.unsafe(q.text, q.params, { prepare: true })
    : async (q: SqlQuery) => {
      const conn = await sql.reserve();
      try {
        return await conn.unsafe(q.text, q.params, { prepare: true });
      } finally {
        conn.release();
      }
    };
  let errors = 0;
  const one = async (): Promise<void> => {
    if (cfg.endpoint === "list") {
      const i = Math.floor(Math.random() * pages.length);
      const q = pages[i]!;
      const f = cfg.filters[i]!;
      // as the service: the total first, the page only when it is not past the total
      const count = await exec(q.count);
      const total = count.length === 1 ? (count[0] as unknown as { total: number }).total : undefined;
      if (total === undefined) errors++;
      else if (total > (f.page - 1) * f.page_size) {
        await exec(pageShape(f, total) === "matches_first" ? q.few : q.many);
      }
    } else {
      const q = singles[Math.floor(Math.random() * singles.length)]!;
      const rows = await exec(q);
      if (rows.length !== 1) errors++;
    }
  };
  const phase = async (seconds: number, latencies: number[] | undefined) => {
    const end = performance.now() + seconds * 1000;
    const loop = async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await one();
        } catch {
          errors++;
        }
        latencies?.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: cfg.connections }, loop));
  };
  try {
    await phase(cfg.warmupS, undefined);
    errors = 0;
    const latencies: number[] = [];
    const t0 = performance.now();
    await phase(cfg.durationS, latencies);
    const seconds = (performance.now() - t0) / 1000;
    const sorted = Float64Array.from(latencies).sort();
    return {
      requests: latencies.length,
      seconds,
      rps: latencies.length / seconds,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      errors,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

if (import.meta.main) {
  const path = Deno.args[0];
  if (!path) {
    console.error("usage: direct_driver.ts <config.json>");
    Deno.exit(2);
  }
  const cfg = JSON.parse(await Deno.readTextFile(path)) as DirectConfig;
  console.log(JSON.stringify(await runDirect(cfg)));
}
