/**
 * The settings and the measured runs of `bench:mcp`: wrk with `mcp.lua`, which checks every response, against the
 * service child, with the CPU of the service, wrk and Postgres.
 */
import type { CpuUse } from "./cpu.ts";
import { otherCpu } from "./cpu.ts";
import { choiceSetting, intSetting, kvSetting, say } from "./harness.ts";
import type { Api, Op } from "./mcp_requests.ts";
import type { Served } from "./service.ts";
import { formatPct, formatRun, type RunFigures } from "./stats.ts";
import { measureWrk, type WrkResult } from "./wrk.ts";

const LUA = new URL("./mcp.lua", import.meta.url).pathname;

/** Settings of one benchmark run. */
export interface McpBenchSettings {
  /** Listings the database must hold. */
  listings: number;
  /** Seconds of each measured run. */
  seconds: number;
  /** Seconds of the warm-up before each measured run. */
  warmup: number;
  /** Rounds of the four runs; the order alternates between rounds. */
  rounds: number;
  /** wrk connections. */
  connections: number;
  /** wrk threads. */
  threads: number;
  /** Longest wait for a quiet machine before each round, in seconds. */
  quietWaitS: number;
  /** List requests in the mix. */
  listMixSize: number;
  /** Listing ids in the mix. */
  idMixSize: number;
  /** Where the service keeps Deno KV. */
  kv: "file" | "memory";
  /** The MCP credential: the seeker's API key, or an OAuth access token of a connected app. */
  auth: "key" | "oauth";
}

/** The figures of one measured run. */
export interface Measurement extends RunFigures {
  /** Which API. */
  api: Api;
  /** Which operation. */
  op: Op;
  /** 1-based round. */
  round: number;
  /** Failed requests: responses that failed the check of mcp.lua (non-200, isError, …) plus socket errors. */
  errors: number;
  /** Responses mcp.lua checked. */
  checked: number;
  /** CPU use in percent of one core: `target` (service), `postgres`, `loader` (wrk), `machine`. */
  cpu: CpuUse;
}

/** Reads the settings from the environment (see the comment of `mcp.ts`). */
export function settingsFromEnv(): McpBenchSettings {
  return {
    listings: intSetting("BENCH_LISTINGS", 200_000, 1),
    seconds: intSetting("BENCH_SECONDS", 10, 1),
    warmup: intSetting("BENCH_WARMUP", 3, 0),
    rounds: intSetting("BENCH_ROUNDS", 2, 1),
    connections: intSetting("BENCH_CONNECTIONS", 32, 1),
    threads: intSetting("BENCH_THREADS", 2, 1),
    quietWaitS: intSetting("BENCH_QUIET_WAIT", 20, 0),
    listMixSize: 2000,
    idMixSize: 2000,
    kv: kvSetting(),
    auth: choiceSetting("BENCH_AUTH", ["key", "oauth"]),
  };
}

/** The check counts and sample bodies mcp.lua prints at the end of a run. */
interface Checked {
  good: number;
  bad: number;
  goodSample: string;
  badSample: string;
}

function checkedOf(r: WrkResult): Checked {
  const checked = /mcp\.lua checked: good (\d+) bad (\d+)/.exec(r.raw);
  if (!checked) throw new Error(`wrk output without the check counts of mcp.lua:\n${r.raw}`);
  return {
    good: Number(checked[1]),
    bad: Number(checked[2]),
    goodSample: /^mcp\.lua good sample: (.*)$/m.exec(r.raw)?.[1] ?? "",
    badSample: /^mcp\.lua bad sample: (.*)$/m.exec(r.raw)?.[1] ?? "",
  };
}

/** What the runs of a benchmark share: the settings, the service, the request files and the credential. */
export interface McpRuns {
  /** The settings. */
  s: McpBenchSettings;
  /** The service under load. */
  svc: Served;
  /** The request file of each (API, operation). */
  files: Record<`${Api}-${Op}`, string>;
  /** The MCP bearer: an API key or an OAuth access token. */
  key: string;
  /** Data folder of the throwaway cluster (undefined on BENCH_DATABASE_URL). */
  pgDataDir: string | undefined;
}

/** One measured run (after its warm-up) of an API's operation. */
export async function measure(r: McpRuns, api: Api, op: Op, round: number): Promise<Measurement> {
  const { result, cpu } = await measureWrk({
    url: r.svc.base,
    script: LUA,
    args: [r.files[`${api}-${op}`], api, r.key],
    seconds: r.s.seconds,
    warmup: r.s.warmup,
    connections: r.s.connections,
    threads: r.s.threads,
    targetPid: r.svc.child.pid,
    pgDataDir: r.pgDataDir,
  });
  const c = checkedOf(result);
  const m: Measurement = {
    api,
    op,
    round,
    requests: result.requests,
    rps: result.rps,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    errors: c.bad + result.socketErrors,
    checked: c.good + c.bad,
    cpu,
  };
  const where = `service ${formatPct(cpu.target)}, postgres ${formatPct(cpu.postgres)}, wrk ${
    formatPct(cpu.loader)
  }, other ${formatPct(otherCpu(cpu))} of a core`;
  say(`  ${label(api, op).padEnd(26)} ${formatRun(m, where)}`);
  if (round === 1) say(`    sample response: ${c.goodSample.slice(0, 140)}`);
  if (c.bad > 0) say(`    FAILED response sample: ${c.badSample}`);
  return m;
}

/** The printed name of a run. */
export function label(api: Api, op: Op): string {
  if (api === "rest") return op === "search" ? "REST GET list" : "REST GET {id}";
  return op === "search" ? "MCP search_properties" : "MCP get_property";
}

/** The four runs of a round: odd rounds REST first, even rounds MCP first. */
export function roundOrder(round: number, ops: Op[]): Array<[Api, Op]> {
  const apis: Api[] = round % 2 === 1 ? ["rest", "mcp"] : ["mcp", "rest"];
  return ops.flatMap((op) => apis.map((api): [Api, Op] => [api, op]));
}
