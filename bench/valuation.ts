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
import { type RawBuilder, sql } from "kysely";
import { seedSample } from "../catalogue/seed.ts";
import { countZones, zonesWithBoxAt } from "../db/brw_zones.ts";
import { writeBrmGml } from "./brw_gml.ts";
import { type Db, openDb } from "../db/connection.ts";
import { countListings } from "../db/listings.ts";
import { migrate } from "../db/migrate.ts";
import { BASELINE_PATH } from "../routes/valuation.ts";
import { containsPoint } from "../valuation/geometry.ts";
import { municipalityMedian, zoneValueAt } from "../valuation/zones.ts";
import { CpuMeter, type CpuUse, postmasterPid, withChildren } from "./cpu.ts";
import { listingPath } from "./mix.ts";
import { startCluster } from "./pg_cluster.ts";
import { type Child, killRunning, run } from "./processes.ts";
import { describe, waitQuiet } from "./quiet.ts";
import { startService } from "./service.ts";
import { ensureWrk, parseWrk, runWrk, type WrkResult } from "./wrk.ts";
import {
  generateState,
  type Municipality,
  planZones,
  plzFor,
  randomPoints,
  RELEASING_STATES,
  rng,
} from "./zone_gen.ts";

const BENCH = new URL(".", import.meta.url).pathname;
const LUA = `${BENCH}valuation.lua`;

/** Source text of the synthetic zones (also how a later run recognises them). */
export const BENCH_SOURCE = "SYNTHETISCHE TESTDATEN: bench/valuation.ts, zone_gen v1";
/** Stichtag of the synthetic zones. */
export const BENCH_STICHTAG = "2025-01-01";

/** Settings of one benchmark run. */
export interface ValuationSettings {
  /** Synthetic zones the database must hold. */
  zones: number;
  /** Listings the database must hold (for the single-listing floor). */
  listings: number;
  /** Timed in-process lookups. */
  points: number;
  /** In-process lookups before timing. */
  lookupWarmup: number;
  /** Seconds of each measured wrk run. */
  seconds: number;
  /** Seconds of the warm-up before each measured wrk run. */
  warmup: number;
  /** Rounds of (single, baseline) per limiter mode; the order alternates. */
  rounds: number;
  /** Seconds of each per-kind baseline run (for information); 0 leaves them out. */
  kindSeconds: number;
  /** wrk connections. */
  connections: number;
  /** wrk threads. */
  threads: number;
  /** Longest wait for a quiet machine before a measurement, in seconds. */
  quietWaitS: number;
  /** X-Forwarded-For addresses in the pool. */
  addressPool: number;
  /** Request bodies in the baseline mix. */
  bodies: number;
  /** Listing ids in the single-listing mix. */
  ids: number;
  /** Where the service keeps Deno KV (the token buckets). */
  kv: "file" | "memory";
}

/** The figures of one measured wrk run. */
export interface Measurement {
  /** Rate limiter on or off. */
  limiter: "on" | "off";
  /** Which endpoint. */
  endpoint: "baseline" | "single";
  /** 1-based round (0: a run of one body kind). */
  round: number;
  /** `mix`, or the one body kind of a per-kind run. */
  kind: string;
  /** Requests completed. */
  requests: number;
  /** Requests per second. */
  rps: number;
  /** Median latency in ms. */
  p50Ms: number;
  /** 99th percentile latency in ms. */
  p99Ms: number;
  /** Non-2xx answers and socket errors. */
  errors: number;
  /** CPU during the run in percent of one core: `target` (service), `postgres`, `loader` (wrk), `machine`. */
  cpu: CpuUse;
}

/** Latency figures of an in-process series, in ms. */
export interface Latency {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

/** Reads the settings from the environment (see the module comment). */
export function settingsFromEnv(): ValuationSettings {
  const int = (name: string, dflt: number, min: number) => {
    const raw = Deno.env.get(name);
    if (raw === undefined || raw === "") return dflt;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be a whole number >= ${min}`);
    return v;
  };
  const kv = Deno.env.get("BENCH_KV") || "file";
  if (kv !== "file" && kv !== "memory") throw new Error("BENCH_KV must be file or memory");
  return {
    zones: int("BENCH_ZONES", 500_000, 10_000),
    listings: int("BENCH_LISTINGS", 20_000, 100),
    points: int("BENCH_POINTS", 5000, 100),
    lookupWarmup: int("BENCH_LOOKUP_WARMUP", 1000, 0),
    seconds: int("BENCH_SECONDS", 10, 1),
    warmup: int("BENCH_WARMUP", 3, 0),
    rounds: int("BENCH_ROUNDS", 2, 1),
    kindSeconds: int("BENCH_KIND_SECONDS", 5, 0),
    connections: int("BENCH_CONNECTIONS", 32, 1),
    threads: int("BENCH_THREADS", 2, 1),
    quietWaitS: int("BENCH_QUIET_WAIT", 120, 0),
    addressPool: 100_000,
    bodies: 2000,
    ids: 2000,
    kv,
  };
}

const started = performance.now();
/** Data folder of the throwaway cluster (for CPU accounting); undefined on BENCH_DATABASE_URL. */
let pgDataDir: string | undefined;

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

/** Stops the main flow at the next stage once SIGINT/SIGTERM arrived (the cleanup runs in the signal handler). */
function checkInterrupted(): void {
  if (interrupted) throw new Error("interrupted");
}

function onSignal(): void {
  if (interrupted) return;
  interrupted = true;
  console.error("\ninterrupted: stopping children and the cluster");
  killRunning();
  cleanup().finally(() => Deno.exit(130));
}

/** The benchmark's own process trees: this process (service, wrk) and the cluster's postmaster. */
function ownRoots(): number[] {
  const pm = pgDataDir ? postmasterPid(pgDataDir) : undefined;
  return pm ? [Deno.pid, pm] : [Deno.pid];
}

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

async function quiet(s: ValuationSettings, what: string): Promise<string> {
  say(`checking that the machine is quiet before ${what}`);
  const q = await waitQuiet({ ownRoots, maxWaitS: s.quietWaitS, say });
  const line = `${q.quiet ? "quiet" : "BUSY"}: ${describe(q.load)}${
    q.waitedS >= 1 ? `, waited ${q.waitedS.toFixed(0)} s` : ""
  }`;
  say(`  ${line}`);
  return line;
}

// ---------------------------------------------------------------------------------------------------------------
// Data

async function ensureListings(db: Db, s: ValuationSettings): Promise<void> {
  const have = await countListings(db);
  if (have >= s.listings) {
    say(`${have} listings present: seeding skipped`);
    return;
  }
  const n = s.listings - have;
  say(`seeding ${n} sample listings (${have} present)`);
  const t = performance.now();
  await seedSample(db, { count: n });
  say(`  seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/** Figures of importing the synthetic zones from GML files, one per state, with `deno task brw:import`. */
export interface ImportFigures {
  /** Per state: zones, file size (MB), seconds and peak resident memory (MB) of the import process. */
  states: Array<{ state: string; zones: number; fileMb: number; seconds: number; peakMb: number }>;
  /** Seconds writing the GML files (generation excluded). */
  writeS: number;
}

/** The municipalities of the synthetic zones in the database. */
async function benchMunicipalities(db: Db): Promise<Municipality[]> {
  const rows = await sql<{ name: string; state: string; key: string; zones: number }>`
    select z.municipality_name as name, z.state, min(z.municipality_key) as key, count(*)::int as zones
    from brw_zones z join brw_datasets d on d.id = z.dataset_id
    where d.status = 'active' and d.source = ${BENCH_SOURCE} group by 1, 2`.execute(db.kysely);
  return rows.rows.map((r) => ({ ...r, state: r.state as Municipality["state"] }));
}

/**
 * Imports the synthetic zones unless exactly `s.zones` of them are present: per state, the zones are written as a
 * BRM 2.1 GML file (`brw_gml.ts`) and imported by `deno task brw:import` in a child process under GNU time, which
 * reports its peak resident memory. Returns the municipalities and the import figures.
 */
async function ensureZones(
  db: Db,
  s: ValuationSettings,
  databaseUrl: string,
  workdir: string,
): Promise<{ munis: Municipality[]; imported?: ImportFigures }> {
  const counts = await sql<{ bench: number; foreign: number }>`
    select coalesce(sum(zone_count) filter (where source = ${BENCH_SOURCE}), 0)::int as bench,
      count(*) filter (where source <> ${BENCH_SOURCE})::int as foreign
    from brw_datasets where status = 'active'`.execute(db.kysely);
  const { bench, foreign } = counts.rows[0]!;
  if (bench === s.zones) {
    say(`${bench} synthetic zones present: import skipped`);
    return { munis: await benchMunicipalities(db) };
  }
  if (foreign > 0) {
    throw new Error(
      `the database holds ${foreign} land-value datasets that this benchmark did not create; importing its ` +
        "zones would replace them: use a throwaway database",
    );
  }
  const t0 = performance.now();
  const plan = planZones(s.zones);
  const c = plan.counts;
  say(
    `zone plan: ${plan.rows} × ${plan.cols} lattice, cells ${(plan.dx * 1e3).toFixed(2)}‰° × ${
      (plan.dy * 1e3).toFixed(2)
    }‰° (about ${(plan.dy * 111.2 * 1000).toFixed(0)} m square), ${c.cells} cells in releasing states; ` +
      `${c.blocks} rural 3×3 blocks, ${c.multipolygons} multipolygons, ${c.holes} zones with a hole ` +
      `(${c.filledHoles} filled by another zone), ${c.overlays} overlays (${
        (c.overlays / s.zones * 100).toFixed(1)
      } %) (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  const figures: ImportFigures = { states: [], writeS: 0 };
  for (const state of RELEASING_STATES) {
    checkInterrupted();
    const file = `${workdir}/bench_${state}.gml`;
    let t = performance.now();
    let zones: ReturnType<typeof generateState>["zones"] | undefined = generateState(plan, state).zones;
    const count = zones.length;
    const bytes = await writeBrmGml(file, state, zones, BENCH_STICHTAG);
    zones = undefined;
    figures.writeS += (performance.now() - t) / 1000;
    t = performance.now();
    const stats = await importGml(file, state, databaseUrl, workdir);
    await Deno.remove(file);
    const row = { state, zones: count, fileMb: bytes / 1e6, seconds: stats.seconds, peakMb: stats.peakMb };
    figures.states.push(row);
    say(
      `  ${state}: ${count} zones, GML ${row.fileMb.toFixed(0)} MB, imported in ${
        row.seconds.toFixed(1)
      } s, ` +
        `peak memory ${row.peakMb.toFixed(0)} MB`,
    );
  }
  const total = figures.states.reduce((a, r) => a + r.seconds, 0);
  say(
    `zones written as GML in ${figures.writeS.toFixed(1)} s, imported in ${
      total.toFixed(1)
    } s (${RELEASING_STATES.length} files)`,
  );
  return { munis: await benchMunicipalities(db), imported: figures };
}

/** Runs `deno task brw:import` on one file under GNU time; its wall time and peak resident memory. */
async function importGml(
  file: string,
  state: string,
  databaseUrl: string,
  workdir: string,
): Promise<{ seconds: number; peakMb: number }> {
  const timing = `${workdir}/time_${state}.txt`;
  const root = new URL("../", import.meta.url).pathname;
  await run("/usr/bin/time", [
    "-f",
    "%e %M",
    "-o",
    timing,
    Deno.execPath(),
    "run",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-write",
    "--allow-sys",
    `${root}tasks/brw_import.ts`,
    file,
    "--state",
    state,
    "--source",
    BENCH_SOURCE,
    "--licence",
    "synthetische Daten, keine Lizenz nötig",
  ], { env: { DATABASE_URL: databaseUrl, NO_COLOR: "1" }, cwd: root });
  const [seconds, kb] = (await Deno.readTextFile(timing)).trim().split("\n").at(-1)!.split(" ").map(Number);
  return { seconds: seconds!, peakMb: kb! / 1024 };
}

// ---------------------------------------------------------------------------------------------------------------
// In process

function latency(values: number[]): Latency {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  return {
    n: s.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length),
    max: s.at(-1) ?? 0,
  };
}

const TYPES = ["apartment", "house", "land", "commercial", undefined] as const;

/** Figures of the in-process part. */
interface InProcess {
  lookup: Latency;
  sqlOnly: Latency;
  median: Latency;
  bigMedians: Array<{ name: string; zones: number; ms: number }>;
  candidates: { mean: number; max: number };
  containing: number;
  withValue: number;
  machinePct: number;
  quiet: string;
}

async function inProcess(db: Db, s: ValuationSettings, munis: Municipality[]): Promise<InProcess> {
  const quietLine = await quiet(s, "the in-process lookups");
  const pts = randomPoints(s.lookupWarmup + 2 * s.points, 4711);
  const cpu = meter(() => [Deno.pid], () => []);
  await cpu.start();
  say(`in process: ${s.lookupWarmup} warm-up lookups, then ${s.points} timed zoneValueAt (sequential)`);
  for (let i = 0; i < s.lookupWarmup; i++) {
    const p = pts[i]!;
    await zoneValueAt(db, p.lat, p.lng, TYPES[i % TYPES.length]);
  }
  const total: number[] = [];
  let withValue = 0;
  for (let i = 0; i < s.points; i++) {
    const p = pts[s.lookupWarmup + i]!;
    const t0 = performance.now();
    const v = await zoneValueAt(db, p.lat, p.lng, TYPES[i % TYPES.length]);
    total.push(performance.now() - t0);
    if (v) withValue++;
  }
  const lookup = latency(total);
  say(`  zoneValueAt    ${fmtLat(lookup)}`);
  // the same SQL and row decoding alone, on other points (so that the pages are not fresh from the pass above)
  const sqlOnly: number[] = [];
  let cand = 0, candMax = 0, hits = 0;
  for (let i = 0; i < s.points; i++) {
    const p = pts[s.lookupWarmup + s.points + i]!;
    const t0 = performance.now();
    const rows = await zonesWithBoxAt(db, p.lat, p.lng);
    sqlOnly.push(performance.now() - t0);
    cand += rows.length;
    candMax = Math.max(candMax, rows.length);
    hits += rows.filter((z) => containsPoint(z.geometry, p.lng, p.lat)).length;
  }
  const sqlLat = latency(sqlOnly);
  say(`  zonesWithBoxAt ${fmtLat(sqlLat)}`);

  // municipality medians: the three city-states and random municipalities, every property type
  const rand = rng(17);
  const big = [...munis].sort((a, b) => b.zones - a.zones);
  const chosen = new Map<string, Municipality>();
  for (const m of big.slice(0, 3)) chosen.set(`${m.state}/${m.name}`, m);
  while (chosen.size < Math.min(100, munis.length)) {
    const m = munis[Math.floor(rand() * munis.length)]!;
    chosen.set(`${m.state}/${m.name}`, m);
  }
  for (const m of chosen.values()) await municipalityMedian(db, m.name, m.state, "house");
  const medians: number[] = [];
  const bigMedians: InProcess["bigMedians"] = [];
  for (const type of TYPES) {
    for (const m of chosen.values()) {
      const t0 = performance.now();
      const v = await municipalityMedian(db, m.name, m.state, type);
      const ms = performance.now() - t0;
      medians.push(ms);
      if (type === "apartment" && big.indexOf(m) < 3) bigMedians.push({ name: m.name, zones: m.zones, ms });
      if (!v && type !== "land" && type !== "commercial") {
        // with ~70 % residential/mixed zones every municipality with a few zones has a match
        if (m.zones > 20) {
          say(`  note: no median for ${m.name} (${m.state}, ${m.zones} zones, ${type ?? "none"})`);
        }
      }
    }
  }
  const median = latency(medians);
  say(`  municipalityMedian (${chosen.size} municipalities × ${TYPES.length} types) ${fmtLat(median)}`);
  const cpuUse = await cpu.stop();
  return {
    lookup,
    sqlOnly: sqlLat,
    median,
    bigMedians,
    candidates: { mean: cand / s.points, max: candMax },
    containing: hits / s.points,
    withValue: withValue / s.points,
    machinePct: cpuUse.machine ?? 0,
    quiet: quietLine,
  };
}

function fmtLat(l: Latency): string {
  return `p50 ${l.p50.toFixed(3)} ms  p95 ${l.p95.toFixed(3)} ms  p99 ${l.p99.toFixed(3)} ms  mean ${
    l.mean.toFixed(3)
  } ms  max ${l.max.toFixed(1)} ms  (n=${l.n})`;
}

// ---------------------------------------------------------------------------------------------------------------
// Plans and table figures

async function tableFigures(db: Db, munis: Municipality[]): Promise<string[]> {
  const out: string[] = [];
  const size = await sql<
    {
      total: string;
      heap: string;
      toast: string;
      bbox: string;
      rows: number;
      shared: string;
      version: string;
    }
  >`
    select pg_size_pretty(pg_total_relation_size('brw_zones')) as total,
      pg_size_pretty(pg_relation_size('brw_zones')) as heap,
      pg_size_pretty(coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0)) as toast,
      pg_size_pretty(pg_relation_size('brw_zones_bbox')) as bbox,
      (select count(*)::int from brw_zones) as rows,
      current_setting('shared_buffers') as shared, current_setting('server_version') as version
    from pg_class where oid = 'brw_zones'::regclass`.execute(db.kysely);
  const z = size.rows[0]!;
  out.push(
    `brw_zones: ${z.rows} rows, ${z.total} with indexes and TOAST (heap ${z.heap}, TOAST ${z.toast}, GiST bbox ` +
      `${z.bbox}); shared_buffers ${z.shared}; Postgres ${z.version}`,
  );
  const explain = async (label: string, query: RawBuilder<Record<string, unknown>>) => {
    const rows = (await query.execute(db.kysely)).rows.map((r) => String(Object.values(r)[0]));
    out.push(`${label}:`);
    for (const r of rows) out.push(`    ${r}`);
  };
  const [p] = randomPoints(1, 99);
  // hand copies of zonesWithBoxAt and latestMunicipalityZones (db/brw_zones.ts), with literal values
  await explain(
    `plan of the point lookup (zonesWithBoxAt) at ${p!.lat}, ${p!.lng}`,
    sql`explain (analyze, buffers, costs off) select z.id::text, z.state, z.geometry, d.source, d.licence
      from brw_zones z join brw_datasets d on d.id = z.dataset_id
      where d.status = 'active' and z.bbox @> box(point(${p!.lng}::float8, ${p!.lat}::float8), point(${
      p!.lng
    }::float8, ${p!.lat}::float8))`,
  );
  const top = [...munis].sort((a, b) => b.zones - a.zones)[0];
  if (top) {
    await explain(
      `plan of the municipality median query (latestMunicipalityZones) for ${top.name} (${top.zones} zones)`,
      sql`explain (analyze, buffers, costs off) select * from (
          select z.id::text as id, z.state, z.brw::float8 as brw, z.nutzung, z.entwicklung, d.source,
            z.stichtag = max(z.stichtag) over (partition by z.state, z.nutzung, z.entwicklung) as latest
          from brw_zones z join brw_datasets d on d.id = z.dataset_id
          where d.status = 'active' and z.municipality_norm = city_key(${top.name}) and z.state = ${top.state}) z
        where latest = true order by id::bigint`,
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Request mixes

/** The baseline request bodies (one JSON text each) and the kind of each. */
function baselineBodies(n: number, munis: Municipality[]): { bodies: string[]; kindOf: string[] } {
  const rand = rng(2026);
  const pts = randomPoints(n, 777);
  const withPlz = munis.filter((m) => m.zones >= 5).map((m) => ({ ...m, plz: plzFor(m.state, m.name) }))
    .filter((m): m is Municipality & { plz: string } => m.plz !== undefined);
  const big = withPlz.filter((m) => m.state === "BE" || m.state === "HH" || m.state === "HB");
  const byState = new Map<string, Array<Municipality & { plz: string }>>();
  for (const m of withPlz) byState.set(m.state, [...(byState.get(m.state) ?? []), m]);
  // a quarter of the place-name requests ask for one of the city-states (about 2,000 zones each)
  const pickMuni = (): [Municipality & { plz: string }, string] =>
    rand() < 0.25 && big.length
      ? [big[Math.floor(rand() * big.length)]!, " (city-state)"]
      : [withPlz[Math.floor(rand() * withPlz.length)]!, ""];
  const propertyType = () => {
    const r = rand();
    return r < 0.35
      ? "apartment"
      : r < 0.65
      ? "house"
      : r < 0.8
      ? "land"
      : r < 0.9
      ? "commercial"
      : undefined;
  };
  const kindOf: string[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = pts[i]!;
    const r = rand();
    let kind: string;
    let body: Record<string, unknown>;
    if (r < 0.7) {
      kind = "kauf lat/lng";
      body = {
        lat: p.lat,
        lng: p.lng,
        property_type: propertyType(),
        art: rand() < 0.8 ? "kauf" : undefined,
      };
    } else if (r < 0.75) {
      kind = "kauf lat/lng + plz/city";
      const local = byState.get(p.state) ?? withPlz;
      const m = local[Math.floor(rand() * local.length)]!;
      body = { plz: m.plz, city: m.name, lat: p.lat, lng: p.lng, property_type: propertyType(), art: "kauf" };
    } else if (r < 0.83) {
      const [m, tag] = pickMuni();
      kind = `kauf plz/city${tag}`;
      body = { plz: m.plz, city: m.name, property_type: propertyType(), art: "kauf" };
    } else if (r < 0.87) {
      const [m, tag] = pickMuni();
      kind = `kauf city${tag}`;
      body = { city: m.name, property_type: propertyType() };
    } else if (r < 0.95) {
      kind = "miete lat/lng";
      body = { lat: p.lat, lng: p.lng, property_type: rand() < 0.6 ? "apartment" : "house", art: "miete" };
    } else {
      kind = "miete plz/city";
      const [m] = pickMuni();
      body = { plz: m.plz, city: m.name, property_type: rand() < 0.6 ? "apartment" : "house", art: "miete" };
    }
    kindOf.push(kind);
    bodies.push(JSON.stringify(body)); // undefined members are left out
  }
  return { bodies, kindOf };
}

/** Posts every body once (each from its own address) and counts the answers' sources; fails on non-200. */
async function checkBodies(base: string, bodies: string[]): Promise<Map<string, number>> {
  const sources = new Map<string, number>();
  for (const [i, body] of bodies.entries()) {
    checkInterrupted();
    const res = await fetch(base + BASELINE_PATH, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-forwarded-for": `198.18.${Math.floor(i / 250)}.${1 + (i % 250)}`,
      },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST ${body} answered ${res.status}: ${text.slice(0, 300)}`);
    const src = (JSON.parse(text) as { source: string }).source;
    sources.set(src, (sources.get(src) ?? 0) + 1);
  }
  return sources;
}

async function checkIds(base: string, ids: string[]): Promise<void> {
  for (const [i, id] of ids.slice(0, 5).entries()) {
    const res = await fetch(base + listingPath(id), { headers: { "x-forwarded-for": `192.0.2.${i + 1}` } });
    const text = await res.text();
    if (res.status !== 200) {
      throw new Error(`GET ${listingPath(id)} answered ${res.status}: ${text.slice(0, 300)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// wrk runs

async function runWrkPost(
  o: { url: string; bodiesFile: string; seconds: number; connections: number; threads: number; pool: number },
  onSpawn?: (pid: number) => void,
): Promise<WrkResult> {
  const raw = await run("wrk", [
    `-t${o.threads}`,
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    "--timeout",
    "5s",
    "--latency",
    "-s",
    LUA,
    o.url,
    "--",
    o.bodiesFile,
    String(o.pool),
    BASELINE_PATH,
  ], onSpawn ? { onSpawn } : {});
  return parseWrk(raw);
}

/** What one wrk run loads: the endpoint, its body or path file, and the labels of the result. */
interface RunSpec {
  limiter: "on" | "off";
  endpoint: Measurement["endpoint"];
  round: number;
  kind: string;
  /** Bodies (baseline) or paths (single) file. */
  file: string;
  seconds: number;
  warmup: number;
}

async function measure(
  s: ValuationSettings,
  spec: RunSpec,
  base: string,
  service: Child,
): Promise<Measurement> {
  checkInterrupted();
  const common = { url: base, connections: s.connections, threads: s.threads, pool: s.addressPool };
  const once = (seconds: number, onSpawn?: (pid: number) => void) =>
    spec.endpoint === "baseline"
      ? runWrkPost({ ...common, bodiesFile: spec.file, seconds }, onSpawn)
      : runWrk({ ...common, pathsFile: spec.file, seconds, ...(onSpawn ? { onSpawn } : {}) });
  if (spec.warmup > 0) await once(spec.warmup);
  let wrkPid = 0;
  const cpu = meter(() => [service.pid], () => (wrkPid ? [wrkPid] : []));
  await cpu.start();
  const r = await once(spec.seconds, (pid) => (wrkPid = pid));
  const cpuUse = await cpu.stop();
  const m: Measurement = {
    limiter: spec.limiter,
    endpoint: spec.endpoint,
    round: spec.round,
    kind: spec.kind,
    requests: r.requests,
    rps: r.rps,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.non2xx + r.socketErrors,
    cpu: cpuUse,
  };
  const label = spec.round ? `${spec.endpoint.padEnd(8)} round ${spec.round}` : spec.kind.padEnd(30);
  say(`  ${label}  ${fmtRow(m)}`);
  return m;
}

function fmtRow(m: Measurement): string {
  return `${m.rps.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(7)} ms  p99 ${
    m.p99Ms.toFixed(2).padStart(7)
  } ms  (${m.requests} requests, ${m.errors} errors; CPU per request: service ${
    cpuPerRequest(m, "target").toFixed(0)
  } µs, postgres ${cpuPerRequest(m, "postgres").toFixed(0)} µs)`;
}

/** CPU microseconds per request of one group (`target`: the service, `postgres`, `loader`: wrk). */
function cpuPerRequest(m: Measurement, group: string): number {
  return m.rps > 0 ? (m.cpu[group] ?? 0) / 100 / m.rps * 1e6 : 0;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const s = settingsFromEnv();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  console.log(
    `valuation benchmark: ${s.zones} synthetic zones, ${s.listings} listings, ${s.points} in-process lookups; ` +
      `wrk ${s.connections} connections, ${s.threads} threads, ${s.warmup} s warm-up + ${s.seconds} s per run, ` +
      `${s.rounds} rounds; KV ${s.kv}; deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`,
  );
  await ensureWrk(say);
  const workdir = await Deno.makeTempDir({ prefix: "valuation-bench-" });
  await Deno.chmod(workdir, 0o755);
  cleanups.push(() => Deno.remove(workdir, { recursive: true }));

  // --- database ------------------------------------------------------------------------------------------------
  let databaseUrl = Deno.env.get("BENCH_DATABASE_URL") || undefined;
  if (databaseUrl) {
    say("using BENCH_DATABASE_URL");
  } else {
    const keepDir = Deno.env.get("BENCH_PG_DIR") || undefined;
    say(`starting a throwaway Postgres cluster${keepDir ? ` in ${keepDir} (kept)` : ""}`);
    const cluster = await startCluster({
      dir: keepDir ?? `${workdir}/pg`,
      keep: keepDir !== undefined,
      say: (l) => say(`  ${l}`),
    });
    cleanups.push(() => cluster.stop());
    databaseUrl = cluster.url;
    pgDataDir = cluster.dataDir;
  }
  const db = await openDb({ databaseUrl });
  let closed = false;
  const closeDb = async () => {
    if (!closed) {
      closed = true;
      await db.close();
    }
  };
  cleanups.push(closeDb);
  const applied = await migrate(db);
  if (applied.length) say(`migrations applied: ${applied.join(", ")}`);
  await ensureListings(db, s);
  checkInterrupted();
  const { munis, imported } = await ensureZones(db, s, databaseUrl, workdir);
  checkInterrupted();
  let t = performance.now();
  await sql`vacuum (analyze) brw_zones`.execute(db.kysely);
  await sql`vacuum (analyze) brw_datasets`.execute(db.kysely);
  await sql`vacuum (analyze) listings`.execute(db.kysely);
  say(`vacuum (analyze) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  say(`${await countZones(db)} zones stored in total, ${munis.length} municipalities`);
  const figures = await tableFigures(db, munis);
  for (const l of figures) console.log(l.startsWith("    ") ? l : `  ${l}`);
  const idRows = await sql<{ id: string }>`
    select id from listings where status = 'published' order by random() limit ${s.ids}`.execute(db.kysely);
  const ids = idRows.rows.map((r) => r.id);
  if (ids.length === 0) throw new Error("no published listings");

  // --- in process ------------------------------------------------------------------------------------------------
  checkInterrupted();
  const ip = await inProcess(db, s, munis);
  await closeDb();

  // --- request mixes ---------------------------------------------------------------------------------------------
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

  // --- endpoint runs ---------------------------------------------------------------------------------------------
  const results: Measurement[] = [];
  const quietLines: string[] = [];
  let sources: Map<string, number> | undefined;
  for (const limiter of ["on", "off"] as const) {
    checkInterrupted();
    say(`service, rate limiter ${limiter}`);
    const svc = await startService({
      databaseUrl,
      workdir,
      label: `limiter-${limiter}`,
      rateLimit: limiter === "on",
      kv: s.kv,
      onSpawn: (child) => {
        // spawned after an interrupt: the cleanup may have run already
        if (interrupted) child.stop();
        else cleanups.push(() => child.stop());
      },
    });
    await checkIds(svc.base, ids);
    if (!sources) {
      t = performance.now();
      sources = await checkBodies(svc.base, bodies);
      say(
        `  every body answered 200 once (${((performance.now() - t) / 1000).toFixed(1)} s sequentially): ${
          [...sources].map(([k, n]) => `${k} ${(n / bodies.length * 100).toFixed(1)}%`).join(", ")
        }`,
      );
    }
    quietLines.push(`limiter ${limiter}: ${await quiet(s, `the runs with the limiter ${limiter}`)}`);
    for (let round = 1; round <= s.rounds; round++) {
      const order: Array<Measurement["endpoint"]> = round % 2 === 1
        ? ["single", "baseline"]
        : ["baseline", "single"];
      for (const endpoint of order) {
        const file = endpoint === "baseline" ? files.bodies : files.paths;
        const spec = { limiter, endpoint, round, kind: "mix", file, seconds: s.seconds, warmup: s.warmup };
        results.push(await measure(s, spec, svc.base, svc.child));
      }
    }
    if (s.kindSeconds > 0) {
      // with the limiter off every kind; with it on only the most frequent one (lat/lng, kauf)
      const byShare = [...kinds].sort((a, b) => b[1] - a[1]).map(([k]) => k);
      const toRun = limiter === "off" ? byShare : byShare.slice(0, 1);
      say(
        `baseline by body kind (limiter ${limiter}, 2 s warm-up + ${s.kindSeconds} s each, for information)`,
      );
      for (const kind of toRun) {
        const file = `${workdir}/bodies-${kind.replace(/[^a-z]+/g, "-")}.txt`;
        await Deno.writeTextFile(file, bodies.filter((_, i) => kindOf[i] === kind).join("\n") + "\n");
        const spec = {
          limiter,
          endpoint: "baseline" as const,
          round: 0,
          kind,
          file,
          seconds: s.kindSeconds,
          warmup: 2,
        };
        results.push(await measure(s, spec, svc.base, svc.child));
      }
    }
    await svc.child.stop();
  }

  report(s, ip, results, { quietLines, sources: sources!, imported });
  const jsonPath = Deno.env.get("BENCH_JSON");
  if (jsonPath) {
    await Deno.writeTextFile(
      jsonPath,
      JSON.stringify({ settings: s, inProcess: ip, results, figures }, null, 2),
    );
  }
}

function report(
  s: ValuationSettings,
  ip: InProcess,
  results: Measurement[],
  info: { quietLines: string[]; sources: Map<string, number>; imported: ImportFigures | undefined },
): void {
  const yes = (ok: boolean) => (ok ? "yes" : "NO");
  console.log(`\nResults (${s.zones} synthetic zones; in process: postgres.js pool, sequential calls):`);
  console.log(`  zoneValueAt          ${fmtLat(ip.lookup)}`);
  console.log(`  zonesWithBoxAt only  ${fmtLat(ip.sqlOnly)}   (SQL + row decoding, other points)`);
  console.log(
    `  per point: ${ip.candidates.mean.toFixed(2)} bbox candidates (max ${ip.candidates.max}), ` +
      `${ip.containing.toFixed(2)} containing zones; ${
        (ip.withValue * 100).toFixed(1)
      } % of points with a value`,
  );
  console.log(`  municipalityMedian   ${fmtLat(ip.median)}`);
  for (const b of ip.bigMedians) {
    console.log(`    ${b.name}: ${b.zones} zones, ${b.ms.toFixed(2)} ms (apartment)`);
  }
  console.log(
    `  machine CPU during the in-process part: ${ip.machinePct.toFixed(0)}% of one core (${ip.quiet})`,
  );
  console.log(
    `  in-process zoneValueAt p50 < 2 ms: ${ip.lookup.p50.toFixed(3)} ms  ${yes(ip.lookup.p50 < 2)}`,
  );

  console.log(
    `\nEndpoint runs (wrk, ${s.connections} connections, ${s.threads} threads, ${s.warmup} s warm-up + ` +
      `${s.seconds} s each, X-Forwarded-For from ${s.addressPool} addresses, TRUST_PROXY=1):`,
  );
  const pct = (v: number | undefined, w: number) => (v === undefined ? "-" : `${v.toFixed(0)}%`).padStart(w);
  const us = (m: Measurement, g: string) => cpuPerRequest(m, g).toFixed(0).padStart(6);
  let noisy = 0;
  const table = (rows: Measurement[], label: (m: Measurement) => string, head: string) => {
    console.log(
      `  ${head} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${
        "requests".padStart(8)
      } ${"errors".padStart(6)} | ${"service".padStart(7)} ${"postgres".padStart(8)} ${"wrk".padStart(4)} ${
        "other".padStart(5)
      } ${"machine".padStart(7)} | ${"svc µs".padStart(6)} ${"pg µs".padStart(6)}`,
    );
    for (const m of rows) {
      const c = m.cpu;
      const other = Math.max(0, (c.machine ?? 0) - (c.target ?? 0) - (c.postgres ?? 0) - (c.loader ?? 0));
      if (other > 30) noisy++;
      console.log(
        `  ${label(m)} ${m.rps.toFixed(0).padStart(7)} ${m.p50Ms.toFixed(2).padStart(7)} ${
          m.p99Ms.toFixed(2).padStart(7)
        } ${String(m.requests).padStart(8)} ${String(m.errors).padStart(6)} | ${pct(c.target, 7)} ${
          pct(pgDataDir ? c.postgres : undefined, 8)
        } ${pct(c.loader, 4)} ${pct(other, 5)} ${pct(c.machine, 7)} | ${us(m, "target")} ${
          us(m, "postgres")
        }`,
      );
    }
  };
  const mix = results.filter((m) => m.kind === "mix");
  table(
    mix,
    (m) => `${m.limiter.padEnd(7)} ${m.endpoint.padEnd(8)} ${String(m.round).padStart(5)}`,
    `${"limiter".padEnd(7)} ${"endpoint".padEnd(8)} ${"round".padStart(5)}`,
  );
  const perKind = results.filter((m) => m.kind !== "mix");
  if (perKind.length) {
    console.log(
      `\n  Baseline by body kind (2 s warm-up + ${s.kindSeconds} s each; with the limiter on only the most ` +
        "frequent kind; for information):",
    );
    table(
      perKind,
      (m) => `${m.limiter.padEnd(7)} ${m.kind.padEnd(29)}`,
      `${"limiter".padEnd(7)} ${"kind".padEnd(29)}`,
    );
    for (const limiter of ["on", "off"]) {
      const k = perKind.find((m) => m.limiter === limiter && m.kind === "kauf lat/lng");
      const floor = mix.filter((m) => m.limiter === limiter && m.endpoint === "single");
      const f = floor.reduce((a, m) => a + m.rps, 0) / Math.max(1, floor.length);
      if (k && f > 0) {
        console.log(
          `  limiter ${limiter}: kauf lat/lng alone / single-listing (mean of the mix runs): ${
            (k.rps / f).toFixed(2)
          }`,
        );
      }
    }
  }
  console.log(
    `  CPU in % of one core (the machine has ${navigator.hardwareConcurrency * 100}%); other = machine - ` +
      "service - postgres - wrk (kernel network work, this process, anything else on the host); svc µs / pg µs: " +
      "CPU of the service / of Postgres per request.",
  );
  if (noisy) console.log(`  WARNING: in ${noisy} runs more than 30% of a core went to "other".`);

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`\nSummary (mean over ${s.rounds} round${s.rounds > 1 ? "s" : ""}; like with like):`);
  for (const limiter of ["on", "off"] as const) {
    const pick = (e: Measurement["endpoint"]) => mix.filter((r) => r.limiter === limiter && r.endpoint === e);
    const single = pick("single"), base = pick("baseline");
    const row = (label: string, ms: Measurement[]) =>
      console.log(
        `  limiter ${limiter.padEnd(4)} ${label.padEnd(44)} ${
          mean(ms.map((m) => m.rps)).toFixed(0).padStart(7)
        } req/s  ` +
          `p50 ${mean(ms.map((m) => m.p50Ms)).toFixed(2).padStart(6)} ms  p99 ${
            mean(ms.map((m) => m.p99Ms)).toFixed(2).padStart(6)
          } ms`,
      );
    row("GET /api/public/properties/{id} (floor)", single);
    row("POST /api/public/valuation/location-baseline", base);
    const ratio = mean(base.map((m) => m.rps)) / mean(single.map((m) => m.rps));
    console.log(
      `  limiter ${limiter.padEnd(4)} ratio baseline / single-listing: ${ratio.toFixed(2)}${
        limiter === "on"
          ? `   (expected >= 0.7: ${yes(ratio >= 0.7)})`
          : `   (for information; expected >= 0.7: ${yes(ratio >= 0.7)})`
      }`,
    );
  }
  console.log(
    `\nBaseline answers of the mix: ${
      [...info.sources].map(([k, n]) => `${k} ${n}`).join(", ")
    } (of ${s.bodies}); machine before the runs: ${info.quietLines.join("; ")}`,
  );
  if (info.imported) reportImport(info.imported);
  const errors = results.reduce((a, r) => a + r.errors, 0);
  if (errors > 0) console.log(`\nWARNING: ${errors} failed requests in total (see the errors column)`);
}

function reportImport(f: ImportFigures): void {
  const zones = f.states.reduce((a, r) => a + r.zones, 0);
  const seconds = f.states.reduce((a, r) => a + r.seconds, 0);
  const mb = f.states.reduce((a, r) => a + r.fileMb, 0);
  const peak = Math.max(...f.states.map((r) => r.peakMb));
  const biggest = [...f.states].sort((a, b) => b.fileMb - a.fileMb)[0]!;
  console.log(
    `\nZone import from GML (deno task brw:import, one BRM 2.1 file per state): ${zones} zones, ${
      mb.toFixed(0)
    } MB ` +
      `in ${f.states.length} files, ${seconds.toFixed(1)} s (${(zones / seconds).toFixed(0)} zones/s, ` +
      `${(mb / seconds).toFixed(1)} MB/s); peak resident memory of an import process ${peak.toFixed(0)} MB ` +
      `(largest file ${biggest.state}, ${biggest.fileMb.toFixed(0)} MB: ${biggest.peakMb.toFixed(0)} MB).`,
  );
  console.log("  state   zones   GML MB   seconds   peak MB");
  for (const r of f.states) {
    console.log(
      `  ${r.state.padEnd(5)} ${String(r.zones).padStart(7)} ${r.fileMb.toFixed(0).padStart(8)} ${
        r.seconds.toFixed(1).padStart(9)
      } ${r.peakMb.toFixed(0).padStart(9)}`,
    );
  }
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
