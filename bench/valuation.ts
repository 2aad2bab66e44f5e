/**
 * `deno task bench:valuation`: the location baseline at 500,000 synthetic land-value zones on a real Postgres
 * server. It measures the zone lookup in process (`zoneValueAt` and `municipalityMedian` through postgres.js,
 * sequentially: p50/p95/p99), then loads POST /api/public/valuation/location-baseline with wrk from many client
 * addresses (TRUST_PROXY=1, X-Forwarded-For from a pool of 100,000) and, in the same run and the same way, the
 * floor GET /api/public/properties/{id}; with the rate limiter on and off, each endpoint measured in alternating
 * order. Expected (issue): in-process p50 < 2 ms; baseline req/s ≥ 0.7 × single-listing req/s.
 *
 * The zones come from `zone_gen.ts` (jittered lattice over the releasing states with rural blocks, holes,
 * multipolygons and a few % overlays of another use; real place names as municipalities), written per state as a
 * BRM 2.1 GML file (`brw_gml.ts`, ETRS89/UTM) and imported by `deno task brw:import` in a child process under GNU
 * time: import time and peak resident memory per file. Before each measurement the run waits (up to
 * BENCH_QUIET_WAIT s) until other processes use less than a quarter of a core and no `deno test` runs.
 *
 * Environment (all optional):
 * - BENCH_DATABASE_URL: use this server instead of a throwaway cluster (zones and listings added when missing; it
 *   refuses to import when the server holds land-value datasets it did not create, since an import replaces a
 *   state's dataset).
 * - BENCH_PG_DIR: keep the throwaway cluster in this folder, so the next run reuses its zones and listings.
 * - BENCH_ZONES (500000), BENCH_LISTINGS (20000), BENCH_POINTS (5000), BENCH_LOOKUP_WARMUP (1000),
 *   BENCH_SECONDS (10), BENCH_WARMUP (3), BENCH_ROUNDS (2), BENCH_KIND_SECONDS (5; baseline runs of one body
 *   kind each, for information: every kind with the limiter off, the most frequent one with it on; 0: none),
 *   BENCH_CONNECTIONS (32), BENCH_THREADS (2),
 *   BENCH_QUIET_WAIT (120), BENCH_KV (`file` or `memory`), BENCH_JSON (write the figures to this file).
 */
import { sql } from "kysely";
import { countZones } from "../db/brw_zones.ts";
import { type Db, openDb } from "../db/connection.ts";
import { benchDatabase, ensureListings, publishedIds } from "./database.ts";
import {
  atCleanup,
  checkInterrupted,
  platform,
  runBenchmark,
  say,
  textSetting,
  workFolder,
} from "./harness.ts";
import { listingPath } from "./mix.ts";
import { type Served, startService } from "./service.ts";
import { inProcess } from "./valuation_lookups.ts";
import { baselineBodies, checkBodies, checkIds } from "./valuation_mix.ts";
import { reportValuation } from "./valuation_report.ts";
import {
  measure,
  type Measurement,
  quietCheck,
  settingsFromEnv,
  type ValuationSettings,
} from "./valuation_runs.ts";
import { ensureZones, tableFigures } from "./valuation_zones.ts";
import { ensureWrk } from "./wrk.ts";
import type { Municipality } from "./zone_gen.ts";

/** The data of the run: listings, zones, fresh statistics, the table figures, and the ids of the single mix. */
async function prepareData(db: Db, s: ValuationSettings, databaseUrl: string, workdir: string) {
  await ensureListings(db, s.listings);
  checkInterrupted();
  const { munis, imported } = await ensureZones(db, s.zones, databaseUrl, workdir);
  checkInterrupted();
  const t = performance.now();
  await sql`vacuum (analyze) brw_zones`.execute(db.kysely);
  await sql`vacuum (analyze) brw_datasets`.execute(db.kysely);
  await sql`vacuum (analyze) listings`.execute(db.kysely);
  say(`vacuum (analyze) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  say(`${await countZones(db)} zones stored in total, ${munis.length} municipalities`);
  const figures = await tableFigures(db, munis);
  for (const l of figures) console.log(l.startsWith("    ") ? l : `  ${l}`);
  const ids = await publishedIds(db, s.ids);
  if (ids.length === 0) throw new Error("no published listings");
  return { munis, imported, figures, ids };
}

/** The request mixes, written for wrk: the baseline bodies with their kinds, and the listing paths. */
async function writeMixes(s: ValuationSettings, munis: Municipality[], ids: string[], workdir: string) {
  const { bodies, kindOf } = baselineBodies(s.bodies, munis);
  const kinds = new Map<string, number>();
  for (const k of kindOf) kinds.set(k, (kinds.get(k) ?? 0) + 1);
  const files = { bodies: `${workdir}/baseline-bodies.txt`, paths: `${workdir}/single-paths.txt` };
  await Deno.writeTextFile(files.bodies, bodies.join("\n") + "\n");
  await Deno.writeTextFile(files.paths, ids.map(listingPath).join("\n") + "\n");
  say(
    `baseline mix: ${bodies.length} bodies (${
      [...kinds].map(([k, n]) => `${k} ${(n / bodies.length * 100).toFixed(0)}%`).join(", ")
    }); single-listing mix: ${ids.length} ids`,
  );
  return { bodies, kindOf, kinds, files };
}

type Mixes = Awaited<ReturnType<typeof writeMixes>>;

/** The runs with one limiter mode: the mix rounds in alternating order, then (for information) body kinds. */
async function limiterRuns(
  s: ValuationSettings,
  limiter: "on" | "off",
  svc: Served,
  mixes: Mixes,
  pgDataDir: string | undefined,
  workdir: string,
): Promise<Measurement[]> {
  const results: Measurement[] = [];
  for (let round = 1; round <= s.rounds; round++) {
    const order: Array<Measurement["endpoint"]> = round % 2 === 1
      ? ["single", "baseline"]
      : ["baseline", "single"];
    for (const endpoint of order) {
      const file = endpoint === "baseline" ? mixes.files.bodies : mixes.files.paths;
      const spec = { limiter, endpoint, round, kind: "mix", file, seconds: s.seconds, warmup: s.warmup };
      results.push(await measure(s, spec, svc, pgDataDir));
    }
  }
  if (s.kindSeconds > 0) {
    // with the limiter off every kind; with it on only the most frequent one (lat/lng, kauf)
    const byShare = [...mixes.kinds].sort((a, b) => b[1] - a[1]).map(([k]) => k);
    const toRun = limiter === "off" ? byShare : byShare.slice(0, 1);
    say(`baseline by body kind (limiter ${limiter}, 2 s warm-up + ${s.kindSeconds} s each, for information)`);
    for (const kind of toRun) {
      const file = `${workdir}/bodies-${kind.replace(/[^a-z]+/g, "-")}.txt`;
      await Deno.writeTextFile(
        file,
        mixes.bodies.filter((_, i) => mixes.kindOf[i] === kind).join("\n") + "\n",
      );
      const spec = {
        limiter,
        endpoint: "baseline" as const,
        round: 0,
        kind,
        file,
        seconds: s.kindSeconds,
        warmup: 2,
      };
      results.push(await measure(s, spec, svc, pgDataDir));
    }
  }
  return results;
}

async function main(): Promise<void> {
  const s = settingsFromEnv();
  console.log(
    `valuation benchmark: ${s.zones} synthetic zones, ${s.listings} listings, ${s.points} in-process lookups; ` +
      `wrk ${s.connections} connections, ${s.threads} threads, ${s.warmup} s warm-up + ${s.seconds} s per run, ` +
      `${s.rounds} rounds; KV ${s.kv}; ${platform()}`,
  );
  await ensureWrk(say);
  const workdir = await workFolder("valuation-bench-");
  const database = await benchDatabase({ workdir });
  const db = await openDb({ databaseUrl: database.url });
  let closed = false;
  const closeDb = async () => {
    if (!closed) {
      closed = true;
      await db.close();
    }
  };
  atCleanup(closeDb);
  const data = await prepareData(db, s, database.url, workdir);
  checkInterrupted();
  const ip = await inProcess(db, s, data.munis, database.dataDir);
  await closeDb();
  const mixes = await writeMixes(s, data.munis, data.ids, workdir);

  const results: Measurement[] = [];
  const quietLines: string[] = [];
  let sources: Map<string, number> | undefined;
  for (const limiter of ["on", "off"] as const) {
    checkInterrupted();
    say(`service, rate limiter ${limiter}`);
    const svc = await startService({
      databaseUrl: database.url,
      workdir,
      label: `limiter-${limiter}`,
      rateLimit: limiter === "on",
      kv: s.kv,
    });
    await checkIds(svc.base, data.ids);
    if (!sources) {
      const t = performance.now();
      sources = await checkBodies(svc.base, mixes.bodies);
      say(
        `  every body answered 200 once (${((performance.now() - t) / 1000).toFixed(1)} s sequentially): ${
          [...sources].map(([k, n]) => `${k} ${(n / mixes.bodies.length * 100).toFixed(1)}%`).join(", ")
        }`,
      );
    }
    const line = await quietCheck(s, `the runs with the limiter ${limiter}`, database.dataDir);
    quietLines.push(`limiter ${limiter}: ${line}`);
    results.push(...await limiterRuns(s, limiter, svc, mixes, database.dataDir, workdir));
    await svc.child.stop();
  }

  reportValuation(s, ip, results, {
    quietLines,
    sources: sources!,
    imported: data.imported,
    pgDataDir: database.dataDir,
  });
  const jsonPath = textSetting("BENCH_JSON");
  if (jsonPath) {
    await Deno.writeTextFile(
      jsonPath,
      JSON.stringify({ settings: s, inProcess: ip, results, figures: data.figures }, null, 2),
    );
  }
}

if (import.meta.main) await runBenchmark(main);
