/**
 * Running wrk (Debian package `wrk`) with one of the benchmarks' Lua scripts, reading its `--latency` report, and
 * a measured run: a warm-up, then the run with the CPU of the target, wrk and Postgres sampled.
 */
import { type CpuUse, loadMeter, metered } from "./cpu.ts";
import { aptInstall, isRoot } from "./pg_cluster.ts";
import { onPath, run } from "./processes.ts";
import type { RunFigures } from "./stats.ts";

/** Figures of one wrk run. */
export interface WrkResult {
  /** Requests completed. */
  requests: number;
  /** Requests per second as wrk reports them. */
  rps: number;
  /** Median latency in ms. */
  p50Ms: number;
  /** 99th percentile latency in ms. */
  p99Ms: number;
  /** Responses with a status of 400 and above ("Non-2xx or 3xx responses"). */
  non2xx: number;
  /** Socket errors: connect, read, write, timeout. */
  socketErrors: number;
  /** The full report. */
  raw: string;
}

/** Options of {@linkcode runWrk}. */
export interface WrkOptions {
  /** Base URL, e.g. http://127.0.0.1:8000. */
  url: string;
  /** Path of the Lua script. */
  script: string;
  /** The script's arguments (after `--`). */
  args: string[];
  /** Seconds to run. */
  seconds: number;
  /** Open connections. */
  connections: number;
  /** wrk threads. */
  threads: number;
  /** Called with wrk's process id once it runs. */
  onSpawn?: (pid: number) => void;
}

/**
 * The script that sends every request from a random X-Forwarded-For address of a pool: its arguments are a file
 * of paths to GET, the pool size, and optionally a path to POST the lines of the file to (as JSON bodies).
 */
export const ADDRESS_POOL_LUA = new URL("./address_pool.lua", import.meta.url).pathname;

/** Makes sure `wrk` is on the PATH: as root `apt-get update && apt-get install -y wrk` when it is missing. */
export async function ensureWrk(say: (line: string) => void = () => {}): Promise<void> {
  if (await onPath("wrk")) return;
  if (!isRoot()) {
    throw new Error("wrk is not installed; run `apt-get install -y wrk` as root (or run this as root)");
  }
  say("wrk is missing: apt-get update && apt-get install -y wrk");
  await aptInstall(["wrk"]);
  if (!await onPath("wrk")) throw new Error("apt-get install wrk did not provide wrk");
}

/** Runs wrk once (5 s timeout per request) and returns its parsed report. */
export async function runWrk(o: WrkOptions): Promise<WrkResult> {
  const raw = await run("wrk", [
    `-t${o.threads}`,
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    "--timeout",
    "5s",
    "--latency",
    "-s",
    o.script,
    o.url,
    "--",
    ...o.args,
  ], o.onSpawn ? { onSpawn: o.onSpawn } : {});
  return parseWrk(raw);
}

/** Options of {@linkcode measureWrk}. */
export interface MeasureOptions extends Omit<WrkOptions, "onSpawn"> {
  /** Seconds of an unmeasured run first (0: none). */
  warmup: number;
  /** Process id of the process under load. */
  targetPid: number;
  /** Data folder of the throwaway cluster whose CPU counts as `postgres` (undefined: not measured). */
  pgDataDir: string | undefined;
}

/** A warm-up run, then a measured run with the CPU of the target (`target`), wrk (`loader`) and `postgres`. */
export async function measureWrk(o: MeasureOptions): Promise<{ result: WrkResult; cpu: CpuUse }> {
  if (o.warmup > 0) await runWrk({ ...o, seconds: o.warmup });
  let wrkPid = 0;
  const meter = loadMeter(o.pgDataDir, () => [o.targetPid], () => (wrkPid ? [wrkPid] : []));
  const { value, cpu } = await metered(meter, () => runWrk({ ...o, onSpawn: (pid) => (wrkPid = pid) }));
  return { result: value, cpu };
}

/** The printed figures of a wrk run; failed requests are the non-2xx answers and the socket errors. */
export function wrkFigures(r: WrkResult): RunFigures {
  return {
    requests: r.requests,
    rps: r.rps,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.non2xx + r.socketErrors,
  };
}

/** A wrk duration such as `850.12us`, `1.23ms`, `1.02s` or `1.50m`, in milliseconds. */
export function parseDuration(s: string): number {
  const m = /^([0-9.]+)(us|ms|s|m)$/.exec(s.trim());
  if (!m) throw new Error(`not a wrk duration: ${s}`);
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "ms" ? v : m[2] === "s" ? v * 1000 : v * 60_000;
}

/** Reads req/s, the 50% and 99% latencies, the request count and the errors from a wrk `--latency` report. */
export function parseWrk(raw: string): WrkResult {
  const num = (re: RegExp, what: string) => {
    const m = re.exec(raw);
    if (!m) throw new Error(`wrk report without ${what}:\n${raw}`);
    return m[1]!;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(raw);
  return {
    requests: Number(num(/(\d+) requests in /, "request count")),
    rps: Number(num(/Requests\/sec:\s+([0-9.]+)/, "Requests/sec")),
    // wrk pads some durations with a trailing space (`1.17s `)
    p50Ms: parseDuration(num(/^\s+50%\s+(\S+)[ \t]*$/m, "50% latency")),
    p99Ms: parseDuration(num(/^\s+99%\s+(\S+)[ \t]*$/m, "99% latency")),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(raw)?.[1] ?? 0),
    socketErrors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    raw,
  };
}
