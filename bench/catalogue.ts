/**
 * `deno task bench:catalogue`: load test of the public catalogue (GET /api/public/properties and
 * GET /api/public/properties/{id}) on a real Postgres server with 200,000 seeded listings, next to two floors
 * measured in the same run — the same SQL through postgres.js alone, and a bare `Deno.serve` with fixed JSON —
 * and with the rate limiter on and off. The load comes from wrk (a separate process) with `catalogue.lua`, every
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
 * - BENCH_KV: `file` (default: a KV file in the temporary folder, as a single-server deployment has) or `memory`.
 * - BENCH_SORT_CONNECTIONS (4): concurrent connections of the per-order runs (issue 31): the whole list mix in each
 *   sort order of `catalogue/sort.ts` against the service (rate limiter off), each checked against plain SQL first.
 * - BENCH_ORDER_CHECKS: compare only this many distinct requests of each per-order mix with plain SQL (default all).
 * - BENCH_SORTS_ONLY: `1` runs only the checks, the query plans and the per-order runs (no writes, no floors).
 * - BENCH_JSON: write the figures to this file as JSON.
 * - BENCH_KEEP_LOGS: keep the working folder (the service's logs, wrk's inputs) and print where it is.
 */
import { startService as startSharedService, waitHealthy } from "./service.ts";
import { seedSample } from "../catalogue/seed.ts";
import type { ListingFilter } from "../catalogue/listing.ts";
import { openDb } from "../db/connection.ts";
import { countListings } from "../db/listings.ts";
import { migrate } from "../db/migrate.ts";
import { sql } from "kysely";
import type { DirectConfig, DirectResult } from "./direct_driver.ts";
import { verifyPlainSql } from "./kysely_capture.ts";
import { inOrder, listingPath, listMix, type ListRequest, RARE_CITY } from "./mix.ts";
import { SORT_ORDERS, type SortOrder } from "../catalogue/sort.ts";
import { checkMix, ensureRareCity, measureWrites, type WriteMeasurement } from "./catalogue_checks.ts";
import { freePort, startCluster } from "./pg_cluster.ts";
import { type PlanFigures, planSection } from "./plans.ts";
import { type Child, killRunning, run, spawnLogged } from "./processes.ts";
import { CpuMeter, type CpuUse, postmasterPid, withChildren } from "./cpu.ts";
import { ensureWrk, runWrk } from "./wrk.ts";

const REPO = new URL("..", import.meta.url).pathname;
const BENCH = new URL(".", import.meta.url).pathname;

/** Settings of one benchmark run. */
export interface BenchSettings {
  /** Listings the database must hold, one run per scale (BENCH_SCALES, else BENCH_LISTINGS). */
  scales: number[];
  /** Concurrent writers of the publish measurement. */
  writers: number;
  /** Seconds of the publish measurement. */
  writeSeconds: number;
  /** Seconds of each measured run. */
  seconds: number;
  /** Seconds of the warm-up before each measured run. */
  warmup: number;
  /** Concurrent connections (wrk) or request loops (direct driver). */
  connections: number;
  /** wrk threads. */
  threads: number;
  /** postgres.js pool size of the service and the direct floor. */
  poolSize: number;
  /** List requests in the mix. */
  listMixSize: number;
  /** Listing ids in the mix. */
  idMixSize: number;
  /** X-Forwarded-For addresses in the pool. */
  addressPool: number;
  /** Where the service keeps Deno KV (the token buckets). */
  kv: "file" | "memory";
}

/** The figures of one measured run. */
export interface Measurement {
  /** What was loaded. */
  target: string;
  /** Which endpoint. */
  endpoint: "list" | "single";
  /** Requests completed. */
  requests: number;
  /** Requests per second. */
  rps: number;
  /** Median latency in ms. */
  p50Ms: number;
  /** 99th percentile latency in ms. */
  p99Ms: number;
  /** Failed requests (non-2xx answers, socket errors, missing rows). */
  errors: number;
  /** CPU use during the run in percent of one core: `target`, `postgres`, `loader` (wrk) and `machine`. */
  cpu: CpuUse;
}

/** Reads the settings from the environment (see the module comment). */
export function settingsFromEnv(): BenchSettings {
  const int = (name: string, dflt: number, min: number) => {
    const raw = Deno.env.get(name);
    if (raw === undefined || raw === "") return dflt;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be a whole number >= ${min}`);
    return v;
  };
  return {
    scales: scalesFromEnv(int("BENCH_LISTINGS", 200_000, 1)),
    writers: int("BENCH_WRITERS", 4, 1),
    writeSeconds: int("BENCH_WRITE_SECONDS", 5, 1),
    seconds: int("BENCH_SECONDS", 10, 1),
    warmup: int("BENCH_WARMUP", 5, 0),
    connections: int("BENCH_CONNECTIONS", 32, 1),
    threads: int("BENCH_THREADS", 2, 1),
    poolSize: 10,
    listMixSize: 2000,
    idMixSize: 2000,
    addressPool: 100_000,
    kv: kvMode(Deno.env.get("BENCH_KV")),
  };
}

function scalesFromEnv(dflt: number): number[] {
  const raw = Deno.env.get("BENCH_SCALES");
  if (raw === undefined || raw === "") return [dflt];
  const scales = raw.split(",").map((x) => Number(x.trim()));
  if (scales.some((v) => !Number.isInteger(v) || v < 1)) {
    throw new Error("BENCH_SCALES must be whole numbers >= 1 separated by commas");
  }
  return scales;
}

function kvMode(raw: string | undefined): "file" | "memory" {
  if (raw === undefined || raw === "" || raw === "file") return "file";
  if (raw === "memory") return "memory";
  throw new Error("BENCH_KV must be file or memory");
}

const started = performance.now();
/** Data folder of the throwaway cluster (for CPU accounting); undefined on BENCH_DATABASE_URL. */
let pgDataDir: string | undefined;

function meter(target: () => number[], loader: () => number[]): CpuMeter {
  const postmaster = () => (pgDataDir ? postmasterPid(pgDataDir) : undefined);
  return new CpuMeter({
    target: { pids: target },
    loader: { pids: loader },
    postgres: {
      pids: (snap) => {
        const pm = postmaster();
        return pm ? withChildren(snap, pm) : [];
      },
      reaper: postmaster,
    },
  });
}

function say(line: string): void {
  const t = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[${t}s] ${line}`);
}

/** Cleanup steps, run last-in first-out on success, error and SIGINT/SIGTERM. */
const cleanups: Array<() => Promise<void>> = [];

async function cleanup(): Promise<void> {
  while (cleanups.length) {
    const step = cleanups.pop()!;
    try {
      await step();
    } catch (e) {
      console.error(`cleanup: ${e instanceof Error ? e.message : e}`);
    }
  }
}

let interrupted = false;
function onSignal(): void {
  if (interrupted) return;
  interrupted = true;
  console.error("\ninterrupted: stopping children and the cluster");
  killRunning();
  cleanup().finally(() => Deno.exit(130));
}

/** Starts the service as a child (the Deno binary itself, not npx) and waits for /healthz. */
function startService(
  databaseUrl: string,
  workdir: string,
  label: string,
  rateLimit: boolean,
  kv: BenchSettings["kv"],
): Promise<{ child: Child; base: string }> {
  return startSharedService({
    databaseUrl,
    workdir,
    label,
    rateLimit,
    kv,
    onSpawn: (child) => cleanups.push(() => child.stop()),
  });
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

async function wrkRun(
  s: BenchSettings,
  target: string,
  endpoint: "list" | "single",
  base: string,
  pathsFile: string,
  targetPid: number,
): Promise<Measurement> {
  const opts = {
    url: base,
    pathsFile,
    connections: s.connections,
    threads: s.threads,
    pool: s.addressPool,
  };
  if (s.warmup > 0) await runWrk({ ...opts, seconds: s.warmup });
  let wrkPid = 0;
  const cpu = meter(() => [targetPid], () => (wrkPid ? [wrkPid] : []));
  await cpu.start();
  const r = await runWrk({ ...opts, seconds: s.seconds, onSpawn: (pid) => (wrkPid = pid) });
  const cpuUse = await cpu.stop();
  const m: Measurement = {
    target,
    endpoint,
    requests: r.requests,
    rps: r.rps,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.non2xx + r.socketErrors,
    cpu: cpuUse,
  };
  say(`  ${endpoint.padEnd(6)} ${fmtRow(m)}`);
  return m;
}

async function directRun(
  s: BenchSettings,
  target: string,
  endpoint: "list" | "single",
  mode: DirectConfig["mode"],
  url: string,
  workdir: string,
  filters: ListingFilter[],
  ids: string[],
): Promise<Measurement> {
  const cfg: DirectConfig = {
    url,
    endpoint,
    mode,
    connections: s.connections,
    poolSize: s.poolSize,
    warmupS: s.warmup,
    durationS: s.seconds,
    filters,
    ids,
  };
  const cfgPath = `${workdir}/direct-${mode}-${endpoint}.json`;
  await Deno.writeTextFile(cfgPath, JSON.stringify(cfg));
  let pid = 0;
  const cpu = meter(() => (pid ? [pid] : []), () => []);
  await cpu.start();
  const out = await run(Deno.execPath(), ["run", "-A", `${BENCH}direct_driver.ts`, cfgPath], {
    cwd: REPO,
    onSpawn: (p) => (pid = p),
  });
  const cpuUse = await cpu.stop();
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as DirectResult;
  const m: Measurement = {
    target,
    endpoint,
    requests: r.requests,
    rps: r.rps,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.errors,
    cpu: cpuUse,
  };
  say(`  ${endpoint.padEnd(6)} ${fmtRow(m)}`);
  return m;
}

function fmtRow(m: Measurement): string {
  return `${m.rps.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(7)} ms  p99 ${
    m.p99Ms.toFixed(2).padStart(7)
  } ms  (${m.requests} requests, ${m.errors} errors)`;
}

async function main(): Promise<void> {
  const s = settingsFromEnv();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const denoVersion = Deno.version.deno;
  console.log(
    `catalogue benchmark: ${
      s.scales.join(", ")
    } listings, ${s.connections} connections, ${s.threads} wrk threads, ` +
      `${s.warmup} s warm-up + ${s.seconds} s per run, pool ${s.poolSize}, KV ${s.kv}; ` +
      `deno ${denoVersion}, ${navigator.hardwareConcurrency} cores`,
  );

  await ensureWrk(say);
  const workdir = await Deno.makeTempDir({ prefix: "catalogue-bench-" });
  await Deno.chmod(workdir, 0o755);
  if (Deno.env.get("BENCH_KEEP_LOGS")) say(`keeping the working folder ${workdir} (BENCH_KEEP_LOGS)`);
  else cleanups.push(() => Deno.remove(workdir, { recursive: true }));
  if (s.scales.length > 1 && Deno.env.get("BENCH_DATABASE_URL")) {
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
  const jsonPath = Deno.env.get("BENCH_JSON");
  if (jsonPath) await Deno.writeTextFile(jsonPath, JSON.stringify({ settings: s, scales }, null, 2));
}

/** The figures of one scale. */
interface ScaleResult {
  /** Listings the database held. */
  listings: number;
  /** Published among them. */
  published: number;
  /** The measured runs. */
  results: Measurement[];
  /** Query plans and the mix-weighted Postgres time. */
  plans: PlanFigures;
  /** Publish latency with one writer, then with `BENCH_WRITERS` concurrent writers. */
  writes: WriteMeasurement[];
  /** List requests compared with plain SQL before measuring. */
  checked: number;
  /** `uptime` load averages at the start of the scale's runs. */
  load: string;
  /** The list mix per sort order. */
  orders: OrderFigures[];
}

function loadAverage(): string {
  try {
    return Deno.loadavg().map((v) => v.toFixed(2)).join(" ");
  } catch {
    return "?";
  }
}

/** Everything for one scale: cluster, data, checks, plans, measured runs and the report. */
async function runScale(s: BenchSettings, listings: number, workdir: string): Promise<ScaleResult> {
  // --- database: cluster, migrations, data --------------------------------------------------------------
  let databaseUrl = Deno.env.get("BENCH_DATABASE_URL") || undefined;
  let pgVersion = "";
  let stopCluster = async () => {};
  if (databaseUrl) {
    say(`using BENCH_DATABASE_URL`);
  } else {
    const keepRoot = Deno.env.get("BENCH_PG_DIR") || undefined;
    const keepDir = keepRoot ? `${keepRoot}/${listings}` : undefined;
    say(`starting a throwaway Postgres cluster${keepDir ? ` in ${keepDir} (kept)` : ""}`);
    const cluster = await startCluster({
      dir: keepDir ?? `${workdir}/pg`,
      keep: keepDir !== undefined,
      say: (l) => say(`  ${l}`),
    });
    cleanups.push(() => cluster.stop());
    stopCluster = () => cluster.stop();
    databaseUrl = cluster.url;
    pgDataDir = cluster.dataDir;
    pgVersion = cluster.version;
  }
  const db = await openDb({ databaseUrl });
  let ids: string[];
  let published: number;
  try {
    const applied = await migrate(db);
    if (applied.length) say(`migrations applied: ${applied.join(", ")}`);
    const have = await countListings(db);
    if (have >= listings) {
      say(`${have} listings present: seeding skipped`);
    } else {
      const n = listings - have;
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
    say(`${await ensureRareCity(db)} listings in ${RARE_CITY}, the city that matches almost nothing`);
    await sql`vacuum (analyze) listings`.execute(db.kysely);
    await sql`vacuum (analyze) listing_counts`.execute(db.kysely);
    const stats = await sql<{ published: number; total: number; size: string; version: string }>`
      select count(*) filter (where status = 'published')::int as published, count(*)::int as total,
        pg_size_pretty(pg_total_relation_size('listings')) as size, current_setting('server_version') as version
      from listings`.execute(db.kysely);
    const st = stats.rows[0]!;
    published = st.published;
    pgVersion = st.version;
    say(
      `listings: ${st.total} (${st.published} published), table with indexes ${st.size}; Postgres ${pgVersion}`,
    );
    const idRows = await sql<{ id: string }>`
      select id from listings where status = 'published' order by random() limit ${s.idMixSize}`.execute(
      db.kysely,
    );
    ids = idRows.rows.map((r) => r.id);
  } finally {
    await db.close();
  }

  // --- the mix ---------------------------------------------------------------------------------------------
  const list = listMix(s.listMixSize);
  const filters = list.map((r) => r.filter);
  const listFile = `${workdir}/list-paths.txt`;
  const singleFile = `${workdir}/single-paths.txt`;
  await Deno.writeTextFile(listFile, list.map((r) => r.path).join("\n") + "\n");
  await Deno.writeTextFile(singleFile, ids.map(listingPath).join("\n") + "\n");
  const kinds = new Map<string, number>();
  for (const r of list) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
  say(
    `mix: ${list.length} list requests (${
      [...kinds].map(([k, n]) => `${k} ${Math.round(n / list.length * 100)}%`).join(", ")
    }), ${ids.length} listing ids`,
  );

  const check = await verifyPlainSql(filters, ids);
  const sqlIdentical = check.mismatches.length === 0;
  if (sqlIdentical) {
    say(
      `direct-driver SQL: plain copies identical to Kysely's compiled SQL (text and parameters) for all ` +
        `${check.compared} statements of the mix (${check.distinctTexts} distinct texts)`,
    );
  } else {
    say(`WARNING: ${check.mismatches.length} of ${check.compared} plain statements differ from Kysely's:`);
    for (const m of check.mismatches.slice(0, 3)) console.log(`  ${m}`);
  }

  // --- writes, then the correctness of every list request -------------------------------------------------
  const writes: WriteMeasurement[] = [];
  const sortsOnly = Deno.env.get("BENCH_SORTS_ONLY") === "1";
  for (const writers of sortsOnly ? [] : [...new Set([1, s.writers])]) {
    say(`publishing with ${writers} writer${writers === 1 ? "" : "s"} for ${s.writeSeconds} s`);
    const w = await measureWrites(databaseUrl, writers, s.writeSeconds);
    for (const [k, f] of [["publish", w.publish], ["withdraw", w.withdraw], ["touch", w.touch]] as const) {
      say(
        `  ${k.padEnd(8)} p50 ${f.p50Ms.toFixed(2)} ms  p99 ${
          f.p99Ms.toFixed(2)
        } ms  (${f.count} statements)`,
      );
    }
    writes.push(w);
  }

  // --- query plans -------------------------------------------------------------------------------------------
  const plans = await planSection(databaseUrl, list, ids[0]!);
  console.log("");
  let checked = 0;
  const load = loadAverage();
  say(`load average (1, 5, 15 min): ${load}`);

  // --- measured runs ------------------------------------------------------------------------------------------
  const results: Measurement[] = [];
  const orders: OrderFigures[] = [];
  for (const limiter of sortsOnly ? [false] : [true, false]) {
    const label = limiter ? "limiter-on" : "limiter-off";
    const target = `service, rate limiter ${limiter ? "on" : "off"}`;
    say(`${target}`);
    const svc = await startService(databaseUrl, workdir, label, limiter, s.kv);
    await checkPaths(svc.base, list, ids);
    if (!limiter) {
      say(`  checking total and items of every list request of the mix against plain SQL`);
      const mix = await checkMix(svc.base, databaseUrl, list);
      if (mix.mismatches.length > 0) {
        for (const m of mix.mismatches.slice(0, 10)) console.log(`  MISMATCH ${m}`);
        throw new Error(`${mix.mismatches.length} of ${mix.checked} list requests differ from plain SQL`);
      }
      checked = mix.checked;
      say(`  all ${checked} distinct list requests equal plain SQL (total and items)`);
      orders.push(...await orderRuns(s, svc.base, svc.child.pid, databaseUrl, list, workdir));
    }
    if (limiter) {
      const bodies = `${workdir}/bodies`;
      await Deno.mkdir(bodies);
      for (
        const [file, path] of [["page24", "/api/public/properties?page_size=24"], [
          "page60",
          "/api/public/properties?page_size=60",
        ], ["listing", listingPath(ids[0]!)]] as const
      ) {
        const r = await fetchText(svc.base + path, "198.51.100.7");
        if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}`);
        await Deno.writeTextFile(`${bodies}/${file}.json`, r.body);
      }
    }
    if (!sortsOnly) {
      results.push(await wrkRun(s, target, "list", svc.base, listFile, svc.child.pid));
      results.push(await wrkRun(s, target, "single", svc.base, singleFile, svc.child.pid));
    }
    await svc.child.stop();
  }
  orderReport(orders, listings);
  if (sortsOnly) {
    await stopCluster();
    return { listings, published, results, plans, writes, checked, load, orders };
  }

  const directPool = "direct postgres.js (pool)";
  say(`${directPool}: plain SQL copies via sql.unsafe, max ${s.poolSize}, ${s.connections} concurrent loops`);
  results.push(await directRun(s, directPool, "list", "pool", databaseUrl, workdir, filters, ids));
  results.push(await directRun(s, directPool, "single", "pool", databaseUrl, workdir, filters, ids));
  const directReserve = "direct postgres.js (reserve/query)";
  say(`${directReserve}: as above, but reserve() + release() around every statement like kysely-postgres-js`);
  results.push(await directRun(s, directReserve, "list", "reserve", databaseUrl, workdir, filters, ids));
  results.push(await directRun(s, directReserve, "single", "reserve", databaseUrl, workdir, filters, ids));
  say(`${COUNT_STAR}: the page query as above, the total by plain count(*) as before migration 0021`);
  results.push(await directRun(s, COUNT_STAR, "list", "countstar", databaseUrl, workdir, filters, ids));

  const bareTarget = "bare Deno.serve, fixed JSON";
  say(bareTarget);
  const barePort = freePort();
  const bare = await spawnLogged(
    Deno.execPath(),
    ["run", "-A", `${BENCH}bare_server.ts`, String(barePort), `${workdir}/bodies`],
    `${workdir}/bare.log`,
    { cwd: REPO },
  );
  cleanups.push(() => bare.stop());
  const bareBase = `http://127.0.0.1:${barePort}`;
  await waitHealthy(bare, `${bareBase}/healthz`);
  results.push(await wrkRun(s, bareTarget, "list", bareBase, listFile, bare.pid));
  results.push(await wrkRun(s, bareTarget, "single", bareBase, singleFile, bare.pid));
  await bare.stop();

  await stopCluster();
  report(s, results, { sqlIdentical, published, pgVersion, plans });
  writeReport(s, writes, listings);
  return { listings, published, results, plans, writes, checked, load, orders };
}

/** The latency of the list mix in one sort order. */
interface OrderFigures {
  /** The sort order every request of the mix asked for. */
  sort: SortOrder;
  /** The wrk run. */
  run: Measurement;
  /** Distinct requests of this order compared with plain SQL before the run. */
  checked: number;
}

/**
 * The whole list mix once per sort order against the service: first the distinct requests compared with plain SQL
 * (total and items; the oracle's order written out by hand), then a wrk run with BENCH_SORT_CONNECTIONS.
 */
async function orderRuns(
  s: BenchSettings,
  base: string,
  pid: number,
  url: string,
  list: ListRequest[],
  workdir: string,
): Promise<OrderFigures[]> {
  const connections = Number(Deno.env.get("BENCH_SORT_CONNECTIONS") || 4);
  const out: OrderFigures[] = [];
  for (const sort of SORT_ORDERS) {
    const mix = inOrder(list, sort);
    const limit = Number(Deno.env.get("BENCH_ORDER_CHECKS") || mix.length);
    const distinct = [...new Map(mix.map((r) => [r.path, r])).values()].slice(0, limit);
    const check = await checkMix(base, url, distinct);
    if (check.mismatches.length > 0) {
      for (const m of check.mismatches.slice(0, 10)) console.log(`  MISMATCH ${m}`);
      throw new Error(
        `${check.mismatches.length} of ${check.checked} list requests (sort ${sort}) differ from plain SQL`,
      );
    }
    const file = `${workdir}/list-${sort}.txt`;
    await Deno.writeTextFile(file, mix.map((r) => r.path).join("\n") + "\n");
    say(
      `  sort ${sort}: ${check.checked} distinct list requests equal plain SQL; ${connections} connections`,
    );
    const run = await wrkRun({ ...s, connections }, `service, sort ${sort}`, "list", base, file, pid);
    out.push({ sort, run, checked: check.checked });
  }
  return out;
}

function orderReport(orders: OrderFigures[], listings: number): void {
  if (orders.length === 0) return;
  console.log(`\nList mix per sort order at ${listings} listings (service, rate limiter off):`);
  console.log(
    `  ${"sort".padEnd(18)} ${"req/s".padStart(7)} ${"p50 ms".padStart(8)} ${
      "p99 ms".padStart(8)
    }  p99 < 100 ms`,
  );
  for (const o of orders) {
    console.log(
      `  ${o.sort.padEnd(18)} ${o.run.rps.toFixed(0).padStart(7)} ${o.run.p50Ms.toFixed(2).padStart(8)} ${
        o.run.p99Ms.toFixed(2).padStart(8)
      }  ${o.run.p99Ms < 100 ? "yes" : "NO"}   (${o.checked} requests checked, ${o.run.errors} errors)`,
    );
  }
}

const COUNT_STAR = "direct postgres.js, count(*) total";
const ON = "service, rate limiter on";
const OFF = "service, rate limiter off";

function writeReport(s: BenchSettings, ws: WriteMeasurement[], listings: number): void {
  for (const w of ws) {
    console.log(
      `\nWrites, ${
        w.writers === 1 ? "one writer" : `${w.writers} concurrent writers`
      } (${s.writeSeconds} s; ` +
        "each statement timed):",
    );
    for (
      const [k, f] of [["publish", w.publish], ["withdraw", w.withdraw], [
        "edit, no count change",
        w.touch,
      ]] as const
    ) {
      console.log(
        `  ${k.padEnd(22)} p50 ${f.p50Ms.toFixed(2).padStart(6)} ms  p99 ${
          f.p99Ms.toFixed(2).padStart(6)
        } ms`,
      );
    }
  }
  const one = ws[0]!.publish;
  console.log(`  publish p99 < 5 ms at ${listings} listings (one writer): ${one.p99Ms < 5 ? "yes" : "NO"}`);
}

/** The figures of every scale side by side, and the largest scale over the smallest. */
function scaleReport(scales: ScaleResult[]): void {
  const get = (r: ScaleResult, target: string, e: "list" | "single") =>
    r.results.find((m) => m.target === target && m.endpoint === e)!;
  console.log("\n=== Scales ===");
  console.log(
    `  ${"listings".padStart(9)} ${"endpoint".padEnd(8)} ${"target".padEnd(36)} ${"req/s".padStart(7)} ${
      "p50 ms".padStart(7)
    } ${"p99 ms".padStart(7)}   load`,
  );
  for (const r of scales) {
    for (const e of ["list", "single"] as const) {
      for (const t of [ON, OFF, "direct postgres.js (pool)", ...(e === "list" ? [COUNT_STAR] : [])]) {
        const m = get(r, t, e);
        console.log(
          `  ${String(r.listings).padStart(9)} ${e.padEnd(8)} ${t.padEnd(36)} ${
            m.rps.toFixed(0).padStart(7)
          } ${m.p50Ms.toFixed(2).padStart(7)} ${m.p99Ms.toFixed(2).padStart(7)}   ${r.load}`,
        );
      }
    }
    console.log(
      `  ${String(r.listings).padStart(9)} publish (one writer) p50 ${
        r.writes[0]!.publish.p50Ms.toFixed(2)
      } ms, p99 ${r.writes[0]!.publish.p99Ms.toFixed(2)} ms; Postgres per list request ${
        r.plans.listMs.toFixed(2)
      } ms (count ${r.plans.countMs.toFixed(2)} ms); ` +
        `${r.checked} list requests equal plain SQL`,
    );
  }
  const small = scales[0]!;
  const big = scales.at(-1)!;
  console.log(`\nRatios ${big.listings} / ${small.listings} listings (req/s):`);
  for (const e of ["list", "single"] as const) {
    for (const t of [ON, OFF]) {
      const v = get(big, t, e).rps / get(small, t, e).rps;
      const expect = e === "list" ? `   (expected >= 0.8: ${v >= 0.8 ? "yes" : "NO"})` : "";
      console.log(`  ${`${e}: ${t}`.padEnd(40)} ${v.toFixed(2).padStart(6)}${expect}`);
    }
  }
  for (const r of scales) {
    const v = get(r, ON, "list").rps / get(r, "direct postgres.js (pool)", "list").rps;
    const p99 = get(r, ON, "list").p99Ms;
    console.log(
      `  at ${r.listings}: list service (limiter on) / direct driver ${v.toFixed(2)} (expected >= 0.9: ${
        v >= 0.9 ? "yes" : "NO"
      }); list p99 ${p99.toFixed(1)} ms (expected < 100: ${p99 < 100 ? "yes" : "NO"})`,
    );
  }
}

function report(
  s: BenchSettings,
  results: Measurement[],
  info: { sqlIdentical: boolean; published: number; pgVersion: string; plans: PlanFigures },
): void {
  const get = (target: string, endpoint: "list" | "single") =>
    results.find((r) => r.target === target && r.endpoint === endpoint)!;
  const on = "service, rate limiter on";
  const off = "service, rate limiter off";
  const direct = "direct postgres.js (pool)";
  const reserve = "direct postgres.js (reserve/query)";
  const bare = "bare Deno.serve, fixed JSON";

  console.log(
    `\nResults (${s.seconds} s measured after ${s.warmup} s warm-up each; ${s.connections} connections; ` +
      `${info.published} published listings; Postgres ${info.pgVersion}):`,
  );
  console.log(
    `  ${"endpoint".padEnd(8)} ${"target".padEnd(36)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${
      "p99 ms".padStart(8)
    } ${"requests".padStart(9)} ${"errors".padStart(7)}`,
  );
  for (const endpoint of ["list", "single"] as const) {
    for (const t of [on, off, direct, reserve, bare]) {
      const m = get(t, endpoint);
      console.log(
        `  ${endpoint.padEnd(8)} ${t.padEnd(36)} ${m.rps.toFixed(0).padStart(8)} ${
          m.p50Ms.toFixed(2).padStart(8)
        } ${m.p99Ms.toFixed(2).padStart(8)} ${String(m.requests).padStart(9)} ${
          String(m.errors).padStart(7)
        }`,
      );
    }
  }
  const ratio = (a: Measurement, b: Measurement) => a.rps / b.rps;
  const line = (label: string, v: number, expect?: number) =>
    console.log(
      `  ${label.padEnd(58)} ${v.toFixed(2).padStart(6)}${
        expect === undefined ? "" : `   (expected >= ${expect}: ${v >= expect ? "yes" : "NO"})`
      }`,
    );
  console.log(
    `\nRatios of req/s (direct floor: plain SQL copies through postgres.js, ${
      info.sqlIdentical ? "identical to Kysely's compiled SQL" : "DIFFERING from Kysely's compiled SQL"
    }):`,
  );
  for (const e of ["list", "single"] as const) {
    line(`${e}: service (limiter on) / direct driver`, ratio(get(on, e), get(direct, e)), 0.9);
  }
  for (const e of ["list", "single"] as const) {
    line(`${e}: service (limiter off) / direct driver`, ratio(get(off, e), get(direct, e)));
  }
  for (const e of ["list", "single"] as const) {
    line(`${e}: rate limiter on / off`, ratio(get(on, e), get(off, e)), 0.8);
  }
  for (const e of ["list", "single"] as const) {
    line(`${e}: direct reserve-per-statement / direct pool`, ratio(get(reserve, e), get(direct, e)));
  }
  for (const e of ["list", "single"] as const) {
    line(`${e}: service (limiter off) / bare Deno.serve`, ratio(get(off, e), get(bare, e)));
  }
  const cores = navigator.hardwareConcurrency;
  const db = info.plans;
  console.log(
    `\nDatabase cost of the list mix (EXPLAIN ANALYZE, mix-weighted): ${
      db.listMs.toFixed(2)
    } ms of Postgres ` +
      `planning and execution per list request (count query ${
        db.countMs.toFixed(2)
      } ms): a rough ceiling of ` +
      `${(cores * 1000 / db.listMs).toFixed(0)} list req/s with all ${cores} cores given to Postgres ` +
      "(one parameter set per statement).",
  );
  console.log("\np99 < 50 ms:");
  for (const t of [on, off]) {
    for (const e of ["list", "single"] as const) {
      const m = get(t, e);
      console.log(
        `  ${e.padEnd(7)} ${t.padEnd(28)} ${m.p99Ms.toFixed(2).padStart(8)} ms  ${
          m.p99Ms < 50 ? "yes" : "NO"
        }`,
      );
    }
  }
  console.log(
    "\nCPU during the measured runs (% of one core; the machine has " +
      `${navigator.hardwareConcurrency} cores = ${
        navigator.hardwareConcurrency * 100
      }%; direct: the floor process is target and loader):`,
  );
  console.log(
    `  ${"endpoint".padEnd(8)} ${"target".padEnd(36)} ${"target".padStart(7)} ${"postgres".padStart(9)} ${
      "wrk".padStart(6)
    } ${"other".padStart(6)} ${"machine".padStart(8)}`,
  );
  const pct = (v: number | undefined, w: number) => (v === undefined ? "-" : `${v.toFixed(0)}%`).padStart(w);
  let noisy = 0;
  for (const endpoint of ["list", "single"] as const) {
    for (const t of [on, off, direct, reserve, bare]) {
      const c = get(t, endpoint).cpu;
      const other = otherCpu(c);
      if (other > 30) noisy++;
      console.log(
        `  ${endpoint.padEnd(8)} ${t.padEnd(36)} ${pct(c.target, 7)} ${
          pct(pgDataDir ? c.postgres : undefined, 9)
        } ${pct(t === direct || t === reserve ? undefined : c.loader, 6)} ${pct(other, 6)} ${
          pct(c.machine, 8)
        }`,
      );
    }
  }
  console.log(
    "  other = machine - target - postgres - wrk: the kernel's network work (softirq), the benchmark itself, and " +
      "anything else running on the host (postgres includes its short-lived parallel workers).",
  );
  if (noisy > 0) {
    console.log(
      `  WARNING: in ${noisy} runs more than 30% of a core went to "other"; if something else was running on ` +
        "this host, the figures of those runs are low.",
    );
  }
  const errors = results.reduce((a, r) => a + r.errors, 0);
  if (errors > 0) console.log(`\nWARNING: ${errors} failed requests in total (see the errors column)`);
}

if (import.meta.main) {
  let code = 0;
  try {
    await main();
  } catch (e) {
    console.error(`\nbenchmark failed: ${e instanceof Error ? e.stack ?? e.message : e}`);
    code = 1;
  } finally {
    if (!interrupted) {
      say("cleaning up");
      await cleanup();
      say(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  if (!interrupted) Deno.exit(code);
}

/** CPU of the run that none of the watched processes accounts for, in percent of one core. */
function otherCpu(c: CpuUse): number {
  return Math.max(0, (c.machine ?? 0) - (c.target ?? 0) - (c.postgres ?? 0) - (c.loader ?? 0));
}
