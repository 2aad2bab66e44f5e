/**
 * The settings and the measured runs of `bench:catalogue`: wrk against a service child or the bare server, and
 * the direct-driver floor as its own process, each with the CPU of the target, the loader and Postgres.
 */
import type { ListingFilter } from "../catalogue/listing.ts";
import { type CpuUse, loadMeter, metered } from "./cpu.ts";
import type { DirectConfig, DirectResult } from "./direct_driver.ts";
import { intSetting, kvSetting, say } from "./harness.ts";
import { run } from "./processes.ts";
import { formatRun, type RunFigures } from "./stats.ts";
import { ADDRESS_POOL_LUA, measureWrk, wrkFigures } from "./wrk.ts";

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
export interface Measurement extends RunFigures {
  /** What was loaded. */
  target: string;
  /** Which endpoint. */
  endpoint: "list" | "single";
  /** Failed requests (non-2xx answers, socket errors, missing rows). */
  errors: number;
  /** CPU use during the run in percent of one core: `target`, `postgres`, `loader` (wrk) and `machine`. */
  cpu: CpuUse;
}

/** Reads the settings from the environment (see the comment of `catalogue.ts`). */
export function settingsFromEnv(): BenchSettings {
  return {
    scales: scalesFromEnv(intSetting("BENCH_LISTINGS", 200_000, 1)),
    writers: intSetting("BENCH_WRITERS", 4, 1),
    writeSeconds: intSetting("BENCH_WRITE_SECONDS", 5, 1),
    seconds: intSetting("BENCH_SECONDS", 10, 1),
    warmup: intSetting("BENCH_WARMUP", 5, 0),
    connections: intSetting("BENCH_CONNECTIONS", 32, 1),
    threads: intSetting("BENCH_THREADS", 2, 1),
    poolSize: 10,
    listMixSize: 2000,
    idMixSize: 2000,
    addressPool: 100_000,
    kv: kvSetting(),
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

/** What the runs of one scale share: the settings, the database, the mix and the working folder. */
export interface ScaleRuns {
  /** The settings. */
  s: BenchSettings;
  /** postgres:// URL of the database. */
  url: string;
  /** Data folder of the throwaway cluster (undefined on BENCH_DATABASE_URL: Postgres CPU not measured). */
  pgDataDir: string | undefined;
  /** The working folder of the scale. */
  workdir: string;
  /** The list filters of the mix. */
  filters: ListingFilter[];
  /** The listing ids of the mix. */
  ids: string[];
  /** wrk's path files of the list and the single-listing mix. */
  files: Record<"list" | "single", string>;
}

function said(m: Measurement): Measurement {
  say(`  ${m.endpoint.padEnd(6)} ${formatRun(m)}`);
  return m;
}

/** A wrk run (after its warm-up) of one endpoint's mix against `base`, with `targetPid` as the target's CPU. */
export async function wrkRun(
  r: ScaleRuns,
  target: string,
  endpoint: "list" | "single",
  base: string,
  targetPid: number,
): Promise<Measurement> {
  const { result, cpu } = await measureWrk({
    url: base,
    script: ADDRESS_POOL_LUA,
    args: [r.files[endpoint], String(r.s.addressPool)],
    seconds: r.s.seconds,
    warmup: r.s.warmup,
    connections: r.s.connections,
    threads: r.s.threads,
    targetPid,
    pgDataDir: r.pgDataDir,
  });
  return said({ target, endpoint, ...wrkFigures(result), cpu });
}

/** The direct-driver floor (`direct_driver.ts` as its own process, target and loader in one) for one endpoint. */
export async function directRun(
  r: ScaleRuns,
  target: string,
  endpoint: "list" | "single",
  mode: DirectConfig["mode"],
): Promise<Measurement> {
  const cfg: DirectConfig = {
    url: r.url,
    endpoint,
    mode,
    connections: r.s.connections,
    poolSize: r.s.poolSize,
    warmupS: r.s.warmup,
    durationS: r.s.seconds,
    filters: r.filters,
    ids: r.ids,
  };
  const cfgPath = `${r.workdir}/direct-${mode}-${endpoint}.json`;
  await Deno.writeTextFile(cfgPath, JSON.stringify(cfg));
  let pid = 0;
  const meter = loadMeter(r.pgDataDir, () => (pid ? [pid] : []), () => []);
  const { value: out, cpu } = await metered(
    meter,
    () =>
      run(Deno.execPath(), ["run", "-A", `${BENCH}direct_driver.ts`, cfgPath], {
        cwd: REPO,
        onSpawn: (p) => (pid = p),
      }),
  );
  const d = JSON.parse(out.trim().split("\n").at(-1)!) as DirectResult;
  return said({
    target,
    endpoint,
    requests: d.requests,
    rps: d.rps,
    p50Ms: d.p50Ms,
    p99Ms: d.p99Ms,
    errors: d.errors,
    cpu,
  });
}
