/**
 * `deno task bench:catalogue`: load test of the public catalogue (GET /api/public/properties and
 * GET /api/public/properties/{id}) on a real Postgres server with 200,000 seeded listings, next to two floors
 * measured in the same run — the same SQL through postgres.js alone, and a bare `Deno.serve` with fixed JSON —
 * and with the rate limiter on and off. The load comes from wrk (a separate process) with `address_pool.lua`, every
 * request from a random X-Forwarded-For address so that no per-IP token bucket runs empty.
 *
 * Environment (all optional):
 * - BENCH_DATABASE_URL: use this server instead of starting a throwaway cluster (seeded only when short of rows).
 * - BENCH_PG_DIR: keep the throwaway cluster in this folder, so the next run reuses its seeded data.
 * - BENCH_LISTINGS (200000), BENCH_SECONDS (10), BENCH_WARMUP (5), BENCH_CONNECTIONS (32), BENCH_THREADS (2).
 * - BENCH_SCALES: comma-separated listing counts (e.g. 200000,1000000): one full run per scale, each on its own
 *   cluster (`BENCH_PG_DIR/<scale>` when kept), then the ratios of the largest scale to the smallest.
 * - BENCH_WRITERS (4), BENCH_WRITE_SECONDS (5): the publish latency, measured with one writer (the goal: a publish
 *   under 5 ms p99) and then with this many concurrent writers (how they slow each other down).
 * - BENCH_SORT_CONNECTIONS (4), BENCH_ORDER_CHECKS (all): the per-order runs (`catalogue_orders.ts`).
 * - BENCH_SORTS_ONLY: `1` runs only the checks, the query plans and the per-order runs (no writes, no floors).
 * - BENCH_KV: `file` (default: a KV file in the temporary folder, as a single-server deployment has) or `memory`.
 * - BENCH_JSON: write the figures to this file as JSON.
 * - BENCH_KEEP_LOGS: keep the working folder (the service's logs, wrk's inputs) and print where it is.
 */
import { sql } from "kysely";
import { type Db, openDb } from "../db/connection.ts";
import { checkMix, ensureRareCity, measureWrites, type WriteMeasurement } from "./catalogue_checks.ts";
import { COUNT_STAR, report, scaleReport, type ScaleResult, writeReport } from "./catalogue_report.ts";
import {
  type BenchSettings,
  directRun,
  type Measurement,
  type ScaleRuns,
  settingsFromEnv,
  wrkRun,
} from "./catalogue_runs.ts";
import { benchDatabase, ensureListings, publishedIds } from "./database.ts";
import { loadAverage, platform, runBenchmark, say, textSetting, workFolder } from "./harness.ts";
import { verifyPlainSql } from "./kysely_capture.ts";
import { listingPath, listMix, type ListRequest, RARE_CITY } from "./mix.ts";
import { type OrderFigures, orderReport, orderRuns } from "./catalogue_orders.ts";
import { freePort } from "./pg_cluster.ts";
import { planSection } from "./plans.ts";
import { startChild, startService } from "./service.ts";
import { ensureWrk } from "./wrk.ts";

const BENCH = new URL(".", import.meta.url).pathname;

async function main(): Promise<void> {
  const s = settingsFromEnv();
  console.log(
    `catalogue benchmark: ${
      s.scales.join(", ")
    } listings, ${s.connections} connections, ${s.threads} wrk threads, ` +
      `${s.warmup} s warm-up + ${s.seconds} s per run, pool ${s.poolSize}, KV ${s.kv}; ${platform()}`,
  );

  await ensureWrk(say);
  const keepLogs = textSetting("BENCH_KEEP_LOGS") !== undefined;
  const workdir = await workFolder("catalogue-bench-", { keep: keepLogs });
  if (keepLogs) say(`keeping the working folder ${workdir} (BENCH_KEEP_LOGS)`);
  if (s.scales.length > 1 && textSetting("BENCH_DATABASE_URL")) {
    throw new Error("BENCH_SCALES with several scales needs throwaway clusters (unset BENCH_DATABASE_URL)");
  }
  const scales: ScaleResult[] = [];
  for (const scale of s.scales) {
    const dir = `${workdir}/${scale}`;
    await Deno.mkdir(dir);
    await Deno.chmod(dir, 0o755);
    console.log(`\n=== ${scale} listings ===`);
    scales.push(await runScale(s, scale, dir));
  }
  if (scales.length > 1 && !scales.some((x) => x.results.length === 0)) scaleReport(scales);
  const jsonPath = textSetting("BENCH_JSON");
  if (jsonPath) await Deno.writeTextFile(jsonPath, JSON.stringify({ settings: s, scales }, null, 2));
}

/** The data of one scale: seeded listings, the rare city, fresh statistics, and the ids of the mix. */
async function prepareData(
  db: Db,
  s: BenchSettings,
  listings: number,
): Promise<{ ids: string[]; published: number; pgVersion: string }> {
  await ensureListings(db, listings);
  say(`${await ensureRareCity(db)} listings in ${RARE_CITY}, the city that matches almost nothing`);
  await sql`vacuum (analyze) listings`.execute(db.kysely);
  await sql`vacuum (analyze) listing_counts`.execute(db.kysely);
  const stats = await sql<{ published: number; total: number; size: string; version: string }>`
    select count(*) filter (where status = 'published')::int as published, count(*)::int as total,
      pg_size_pretty(pg_total_relation_size('listings')) as size, current_setting('server_version') as version
    from listings`.execute(db.kysely);
  const st = stats.rows[0]!;
  say(
    `listings: ${st.total} (${st.published} published), table with indexes ${st.size}; Postgres ${st.version}`,
  );
  return { ids: await publishedIds(db, s.idMixSize), published: st.published, pgVersion: st.version };
}

/** Writes wrk's path files of the mix and prints its make-up. */
async function writeMix(list: ListRequest[], ids: string[], workdir: string): Promise<ScaleRuns["files"]> {
  const files = { list: `${workdir}/list-paths.txt`, single: `${workdir}/single-paths.txt` };
  await Deno.writeTextFile(files.list, list.map((r) => r.path).join("\n") + "\n");
  await Deno.writeTextFile(files.single, ids.map(listingPath).join("\n") + "\n");
  const kinds = new Map<string, number>();
  for (const r of list) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
  say(
    `mix: ${list.length} list requests (${
      [...kinds].map(([k, n]) => `${k} ${Math.round(n / list.length * 100)}%`).join(", ")
    }), ${ids.length} listing ids`,
  );
  return files;
}

/** Compares the direct floor's plain SQL with Kysely's compiled statements; true when all are identical. */
async function checkPlainSql(list: ListRequest[], ids: string[]): Promise<boolean> {
  const check = await verifyPlainSql(list.map((r) => r.filter), ids);
  if (check.mismatches.length === 0) {
    say(
      `direct-driver SQL: plain copies identical to Kysely's compiled SQL (text and parameters) for all ` +
        `${check.compared} statements of the mix (${check.distinctTexts} distinct texts)`,
    );
    return true;
  }
  say(`WARNING: ${check.mismatches.length} of ${check.compared} plain statements differ from Kysely's:`);
  for (const m of check.mismatches.slice(0, 3)) console.log(`  ${m}`);
  return false;
}

/** Publish latency with one writer, then with `s.writers`. */
async function writes(s: BenchSettings, url: string): Promise<WriteMeasurement[]> {
  const out: WriteMeasurement[] = [];
  for (const writers of [...new Set([1, s.writers])]) {
    say(`publishing with ${writers} writer${writers === 1 ? "" : "s"} for ${s.writeSeconds} s`);
    const w = await measureWrites(url, writers, s.writeSeconds);
    for (const [k, f] of [["publish", w.publish], ["withdraw", w.withdraw], ["touch", w.touch]] as const) {
      say(
        `  ${k.padEnd(8)} p50 ${f.p50Ms.toFixed(2)} ms  p99 ${
          f.p99Ms.toFixed(2)
        } ms  (${f.count} statements)`,
      );
    }
    out.push(w);
  }
  return out;
}

/** Everything for one scale: cluster, data, checks, plans, measured runs and the report. */
async function runScale(s: BenchSettings, listings: number, workdir: string): Promise<ScaleResult> {
  const database = await benchDatabase({ workdir, keepSubdir: String(listings) });
  const db = await openDb({ databaseUrl: database.url });
  let data: Awaited<ReturnType<typeof prepareData>>;
  try {
    data = await prepareData(db, s, listings);
  } finally {
    await db.close();
  }
  const list = listMix(s.listMixSize);
  const r: ScaleRuns = {
    s,
    url: database.url,
    pgDataDir: database.dataDir,
    workdir,
    filters: list.map((l) => l.filter),
    ids: data.ids,
    files: await writeMix(list, data.ids, workdir),
  };
  const sqlIdentical = await checkPlainSql(list, data.ids);
  const sortsOnly = Deno.env.get("BENCH_SORTS_ONLY") === "1";
  const written = sortsOnly ? [] : await writes(s, database.url);
  const plans = await planSection(database.url, list, data.ids[0]!);
  console.log("");
  const load = loadAverage();
  say(`load average (1, 5, 15 min): ${load}`);

  const { results, checked, orders } = await serviceRuns(r, list, sortsOnly);
  if (!sortsOnly) results.push(...await floorRuns(r));
  await database.stop();
  orderReport(orders, listings);
  // BENCH_SORTS_ONLY runs neither the floors nor the writes that these two reports compare
  if (!sortsOnly) {
    report(s, results, {
      sqlIdentical,
      published: data.published,
      pgVersion: data.pgVersion,
      plans,
      pgDataDir: r.pgDataDir,
    });
    writeReport(s, written, listings);
  }
  return { listings, published: data.published, results, plans, writes: written, checked, load };
}

/** The service with the limiter on, then off: checks, bodies for the bare server, and the wrk runs. */
async function serviceRuns(
  r: ScaleRuns,
  list: ListRequest[],
  sortsOnly: boolean,
): Promise<{ results: Measurement[]; checked: number; orders: OrderFigures[] }> {
  const results: Measurement[] = [];
  const orders: OrderFigures[] = [];
  let checked = 0;
  for (const limiter of sortsOnly ? [false] : [true, false]) {
    const label = limiter ? "limiter-on" : "limiter-off";
    const target = `service, rate limiter ${limiter ? "on" : "off"}`;
    say(`${target}`);
    const svc = await startService({
      databaseUrl: r.url,
      workdir: r.workdir,
      label,
      rateLimit: limiter,
      kv: r.s.kv,
    });
    await checkPaths(svc.base, list, r.ids);
    if (limiter) await captureBodies(svc.base, r);
    else {
      checked = await checkAgainstSql(svc.base, r.url, list);
      orders.push(...await orderRuns(r, svc.base, svc.child.pid, list));
    }
    if (!sortsOnly) {
      results.push(await wrkRun(r, target, "list", svc.base, svc.child.pid));
      results.push(await wrkRun(r, target, "single", svc.base, svc.child.pid));
    }
    await svc.child.stop();
  }
  return { results, checked, orders };
}

/** Checks total and items of every distinct list request against plain SQL; returns how many were compared. */
async function checkAgainstSql(base: string, url: string, list: ListRequest[]): Promise<number> {
  say(`  checking total and items of every list request of the mix against plain SQL`);
  const mix = await checkMix(base, url, list);
  if (mix.mismatches.length > 0) {
    for (const m of mix.mismatches.slice(0, 10)) console.log(`  MISMATCH ${m}`);
    throw new Error(`${mix.mismatches.length} of ${mix.checked} list requests differ from plain SQL`);
  }
  say(`  all ${mix.checked} distinct list requests equal plain SQL (total and items)`);
  return mix.checked;
}

/** Saves a page of 24, a page of 60 and one listing as the bare server's answers. */
async function captureBodies(base: string, r: ScaleRuns): Promise<void> {
  const bodies = `${r.workdir}/bodies`;
  await Deno.mkdir(bodies);
  const pages = [
    ["page24", "/api/public/properties?page_size=24"],
    ["page60", "/api/public/properties?page_size=60"],
    ["listing", listingPath(r.ids[0]!)],
  ] as const;
  for (const [file, path] of pages) {
    const res = await fetchText(base + path, "198.51.100.7");
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    await Deno.writeTextFile(`${bodies}/${file}.json`, res.body);
  }
}

/** The floors: the direct driver (pool, reserve per statement, count(*) total) and the bare server. */
async function floorRuns(r: ScaleRuns): Promise<Measurement[]> {
  const results: Measurement[] = [];
  const directPool = "direct postgres.js (pool)";
  say(
    `${directPool}: plain SQL copies via sql.unsafe, max ${r.s.poolSize}, ${r.s.connections} concurrent loops`,
  );
  results.push(await directRun(r, directPool, "list", "pool"));
  results.push(await directRun(r, directPool, "single", "pool"));
  const directReserve = "direct postgres.js (reserve/query)";
  say(`${directReserve}: as above, but reserve() + release() around every statement like kysely-postgres-js`);
  results.push(await directRun(r, directReserve, "list", "reserve"));
  results.push(await directRun(r, directReserve, "single", "reserve"));
  say(`${COUNT_STAR}: the page query as above, the total by plain count(*) as before migration 0021`);
  results.push(await directRun(r, COUNT_STAR, "list", "countstar"));

  const bareTarget = "bare Deno.serve, fixed JSON";
  say(bareTarget);
  const port = freePort();
  const bare = await startChild({
    args: ["run", "-A", `${BENCH}bare_server.ts`, String(port), `${r.workdir}/bodies`],
    port,
    logPath: `${r.workdir}/bare.log`,
  });
  results.push(await wrkRun(r, bareTarget, "list", bare.base, bare.child.pid));
  results.push(await wrkRun(r, bareTarget, "single", bare.base, bare.child.pid));
  await bare.child.stop();
  return results;
}

async function fetchText(url: string, address: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers: { "x-forwarded-for": address } });
  return { status: res.status, body: await res.text() };
}

/** Requests one path of every kind in the mix (and some ids) once and fails unless each answers 200. */
async function checkPaths(base: string, list: ListRequest[], ids: string[]): Promise<void> {
  const kinds = new Map<string, ListRequest>();
  for (const r of list) if (!kinds.has(r.kind)) kinds.set(r.kind, r);
  const paths = [...kinds.values()].map((r) => r.path).concat(ids.slice(0, 5).map(listingPath));
  let i = 0;
  for (const p of paths) {
    const res = await fetchText(base + p, `192.0.2.${++i}`);
    if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status}: ${res.body.slice(0, 300)}`);
  }
}

if (import.meta.main) await runBenchmark(main);
