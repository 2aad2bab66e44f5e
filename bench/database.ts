/**
 * The database of a benchmark: the server of `BENCH_DATABASE_URL`, or a throwaway Postgres cluster (kept in
 * `BENCH_PG_DIR` when set, so the next run reuses its data), migrated before anything else connects; and the
 * data most benchmarks need: enough sample listings and a random choice of published ids.
 */
import { sql } from "kysely";
import { seedSample } from "../catalogue/seed.ts";
import { type Db, openDb } from "../db/connection.ts";
import { countListings } from "../db/listings.ts";
import { migrate } from "../db/migrate.ts";
import { atCleanup, say, textSetting } from "./harness.ts";
import { startCluster } from "./pg_cluster.ts";

/** The Postgres server a benchmark runs against. */
export interface BenchDatabase {
  /** postgres:// URL of its database. */
  url: string;
  /** Server version of a throwaway cluster ("" for `BENCH_DATABASE_URL`). */
  pgVersion: string;
  /** Data folder of a throwaway cluster (for CPU accounting); undefined for `BENCH_DATABASE_URL`. */
  dataDir: string | undefined;
  /** Stops a throwaway cluster now (the cleanup stops it too); nothing for `BENCH_DATABASE_URL`. */
  stop(): Promise<void>;
}

/** Options of {@linkcode benchDatabase}. */
export interface BenchDatabaseOptions {
  /** The benchmark's working folder: a throwaway cluster lives in `<workdir>/pg` unless `BENCH_PG_DIR` is set. */
  workdir: string;
  /** A subfolder of `BENCH_PG_DIR` for this cluster (one cluster per scale). */
  keepSubdir?: string;
}

/**
 * The server of `BENCH_DATABASE_URL`, or a throwaway cluster (stopped by the cleanup), with every migration
 * applied (the service refuses to start on pending ones).
 */
export async function benchDatabase(o: BenchDatabaseOptions): Promise<BenchDatabase> {
  const given = textSetting("BENCH_DATABASE_URL");
  let found: BenchDatabase;
  if (given) {
    say("using BENCH_DATABASE_URL");
    found = { url: given, pgVersion: "", dataDir: undefined, stop: () => Promise.resolve() };
  } else {
    const keepRoot = textSetting("BENCH_PG_DIR");
    const keepDir = keepRoot && o.keepSubdir ? `${keepRoot}/${o.keepSubdir}` : keepRoot;
    say(`starting a throwaway Postgres cluster${keepDir ? ` in ${keepDir} (kept)` : ""}`);
    const cluster = await startCluster({
      dir: keepDir ?? `${o.workdir}/pg`,
      keep: keepDir !== undefined,
      say: (l) => say(`  ${l}`),
    });
    atCleanup(() => cluster.stop());
    found = { url: cluster.url, pgVersion: cluster.version, dataDir: cluster.dataDir, stop: cluster.stop };
  }
  const db = await openDb({ databaseUrl: found.url, poolSize: 1 });
  try {
    const applied = await migrate(db);
    if (applied.length) say(`migrations applied: ${applied.join(", ")}`);
  } finally {
    await db.close();
  }
  return found;
}

/** Seeds sample listings until the database holds `want` of them, printing the progress. */
export async function ensureListings(db: Db, want: number): Promise<void> {
  const have = await countListings(db);
  if (have >= want) {
    say(`${have} listings present: seeding skipped`);
    return;
  }
  const n = want - have;
  say(`seeding ${n} sample listings (${have} present)`);
  const t = performance.now();
  let next = 0;
  await seedSample(db, {
    count: n,
    onProgress: (done, total) => {
      if (done >= next || done === total) {
        say(`  ${done} / ${total}`);
        next = done + Math.ceil(total / 5);
      }
    },
  });
  say(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/** Up to `n` ids of published listings in random order (the single-listing mix). */
export async function publishedIds(db: Db, n: number): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    select id from listings where status = 'published' order by random() limit ${n}`.execute(db.kysely);
  return rows.rows.map((r) => r.id);
}
