/**
 * The settings and the measured runs of `bench:valuation`: wrk posting baseline bodies or getting listings from
 * many addresses, against the service child, with the CPU of the service, wrk and Postgres; and the check for a
 * quiet machine before a measurement.
 */
import { BASELINE_PATH } from "../routes/valuation.ts";
import { type CpuUse, ownRoots } from "./cpu.ts";
import { checkInterrupted, intSetting, kvSetting, say } from "./harness.ts";
import { describe, waitQuiet } from "./quiet.ts";
import type { Served } from "./service.ts";
import { formatRun, type RunFigures } from "./stats.ts";
import { ADDRESS_POOL_LUA, measureWrk, wrkFigures } from "./wrk.ts";

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
export interface Measurement extends RunFigures {
  /** Rate limiter on or off. */
  limiter: "on" | "off";
  /** Which endpoint. */
  endpoint: "baseline" | "single";
  /** 1-based round (0: a run of one body kind). */
  round: number;
  /** `mix`, or the one body kind of a per-kind run. */
  kind: string;
  /** Non-2xx answers and socket errors. */
  errors: number;
  /** CPU during the run in percent of one core: `target` (service), `postgres`, `loader` (wrk), `machine`. */
  cpu: CpuUse;
}

/** Reads the settings from the environment (see the comment of `valuation.ts`). */
export function settingsFromEnv(): ValuationSettings {
  return {
    zones: intSetting("BENCH_ZONES", 500_000, 10_000),
    listings: intSetting("BENCH_LISTINGS", 20_000, 100),
    points: intSetting("BENCH_POINTS", 5000, 100),
    lookupWarmup: intSetting("BENCH_LOOKUP_WARMUP", 1000, 0),
    seconds: intSetting("BENCH_SECONDS", 10, 1),
    warmup: intSetting("BENCH_WARMUP", 3, 0),
    rounds: intSetting("BENCH_ROUNDS", 2, 1),
    kindSeconds: intSetting("BENCH_KIND_SECONDS", 5, 0),
    connections: intSetting("BENCH_CONNECTIONS", 32, 1),
    threads: intSetting("BENCH_THREADS", 2, 1),
    quietWaitS: intSetting("BENCH_QUIET_WAIT", 120, 0),
    addressPool: 100_000,
    bodies: 2000,
    ids: 2000,
    kv: kvSetting(),
  };
}

/** Waits (up to `BENCH_QUIET_WAIT`) for a quiet machine before `what`; returns the line that says how it was. */
export async function quietCheck(
  s: ValuationSettings,
  what: string,
  pgDataDir: string | undefined,
): Promise<string> {
  say(`checking that the machine is quiet before ${what}`);
  const q = await waitQuiet({ ownRoots: () => ownRoots(pgDataDir), maxWaitS: s.quietWaitS, say });
  const line = `${q.quiet ? "quiet" : "BUSY"}: ${describe(q.load)}${
    q.waitedS >= 1 ? `, waited ${q.waitedS.toFixed(0)} s` : ""
  }`;
  say(`  ${line}`);
  return line;
}

/** What one wrk run loads: the endpoint, its body or path file, and the labels of the result. */
export interface RunSpec {
  /** Rate limiter on or off (a label: the service was started so). */
  limiter: "on" | "off";
  /** Baseline (POST bodies) or single listing (GET paths). */
  endpoint: Measurement["endpoint"];
  /** 1-based round (0: a run of one body kind). */
  round: number;
  /** `mix`, or the one body kind of a per-kind run. */
  kind: string;
  /** Bodies (baseline) or paths (single) file. */
  file: string;
  /** Seconds measured. */
  seconds: number;
  /** Seconds of warm-up. */
  warmup: number;
}

/** One measured run (after its warm-up) against the service. */
export async function measure(
  s: ValuationSettings,
  spec: RunSpec,
  svc: Served,
  pgDataDir: string | undefined,
): Promise<Measurement> {
  checkInterrupted();
  const pool = String(s.addressPool);
  const { result, cpu } = await measureWrk({
    url: svc.base,
    script: ADDRESS_POOL_LUA,
    args: spec.endpoint === "baseline" ? [spec.file, pool, BASELINE_PATH] : [spec.file, pool],
    seconds: spec.seconds,
    warmup: spec.warmup,
    connections: s.connections,
    threads: s.threads,
    targetPid: svc.child.pid,
    pgDataDir,
  });
  const m: Measurement = {
    limiter: spec.limiter,
    endpoint: spec.endpoint,
    round: spec.round,
    kind: spec.kind,
    ...wrkFigures(result),
    cpu,
  };
  const label = spec.round ? `${spec.endpoint.padEnd(8)} round ${spec.round}` : spec.kind.padEnd(30);
  const perRequest = `CPU per request: service ${cpuPerRequest(m, "target").toFixed(0)} µs, postgres ${
    cpuPerRequest(m, "postgres").toFixed(0)
  } µs`;
  say(`  ${label}  ${formatRun(m, perRequest)}`);
  return m;
}

/** CPU microseconds per request of one group (`target`: the service, `postgres`, `loader`: wrk). */
export function cpuPerRequest(m: Measurement, group: string): number {
  return m.rps > 0 ? (m.cpu[group] ?? 0) / 100 / m.rps * 1e6 : 0;
}
