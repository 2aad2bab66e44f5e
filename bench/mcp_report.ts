/** The printed report of `bench:mcp`: the mean of the rounds per run, the MCP / REST ratios and the checks. */
import { PROTOCOL } from "./mcp_requests.ts";
import type { Api, Op } from "./mcp_requests.ts";
import { label, type McpBenchSettings, type Measurement } from "./mcp_runs.ts";
import { mean, verdict } from "./stats.ts";

interface Summary {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  /** CPU time of the service per request in ms (mean of the rounds). */
  cpuMsPerReq: number;
}

function summarise(results: Measurement[], api: Api, op: Op): Summary | undefined {
  const rs = results.filter((r) => r.api === api && r.op === op);
  if (!rs.length) return undefined;
  const avg = (f: (r: Measurement) => number) => mean(rs.map(f));
  return {
    rps: avg((r) => r.rps),
    p50Ms: avg((r) => r.p50Ms),
    p99Ms: Math.max(...rs.map((r) => r.p99Ms)),
    requests: rs.reduce((a, r) => a + r.requests, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    cpuMsPerReq: avg((r) => (r.cpu.target ?? 0) * 10 / r.rps),
  };
}

/** Prints the table, the MCP / REST ratios and the checks; returns the ratio of each operation. */
export function reportMcp(
  s: McpBenchSettings,
  results: Measurement[],
  info: { published: number; pgVersion: string; checks: string[]; quiet: string[] },
): Record<Op, number | undefined> {
  console.log(
    `\nResults (${s.rounds} rounds of ${s.seconds} s measured after ${s.warmup} s warm-up each; ` +
      `${s.connections} connections, ${s.threads} wrk threads; ${info.published} published listings; ` +
      `Postgres ${info.pgVersion}; rate limiter off; MCP: stateless ${PROTOCOL}, ${
        s.auth === "oauth" ? "OAuth access token" : "API key"
      }):`,
  );
  console.log(
    `  ${"run".padEnd(26)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${
      "requests".padStart(9)
    } ${"errors".padStart(7)} ${"svc CPU ms/req".padStart(15)}`,
  );
  for (const op of ["search", "get"] as const) {
    for (const api of ["rest", "mcp"] as const) {
      const m = summarise(results, api, op);
      const row = m
        ? `${m.rps.toFixed(0).padStart(8)} ${m.p50Ms.toFixed(2).padStart(8)} ${
          m.p99Ms.toFixed(2).padStart(8)
        } ${String(m.requests).padStart(9)} ${String(m.errors).padStart(7)} ${
          m.cpuMsPerReq.toFixed(2).padStart(15)
        }`
        : "   not measured (search_properties missing)";
      console.log(`  ${label(api, op).padEnd(26)} ${row}`);
    }
  }
  console.log(
    "  (req/s, p50 and service CPU per request: mean of the rounds; p99: worst round; requests and errors: sum)",
  );
  console.log("\nRatio MCP / REST of req/s (expected >= 0.5):");
  const ratios: Record<Op, number | undefined> = { search: undefined, get: undefined };
  for (const op of ["search", "get"] as const) {
    const rest = summarise(results, "rest", op);
    const mcp = summarise(results, "mcp", op);
    const name = op === "search" ? "search_properties / GET list" : "get_property / GET {id}";
    if (!rest || !mcp) {
      console.log(
        `  ${name.padEnd(30)}    -   not measured: the seeker server has no search_properties tool`,
      );
      continue;
    }
    const perRound = Array.from({ length: s.rounds }, (_, i) => {
      const a = results.find((r) => r.api === "mcp" && r.op === op && r.round === i + 1)!;
      const b = results.find((r) => r.api === "rest" && r.op === op && r.round === i + 1)!;
      return (a.rps / b.rps).toFixed(2);
    });
    const v = mcp.rps / rest.rps;
    ratios[op] = v;
    console.log(
      `  ${name.padEnd(30)} ${v.toFixed(2).padStart(6)}   ${verdict(v >= 0.5)} (rounds: ${
        perRound.join(", ")
      })`,
    );
  }
  console.log("\nChecks:");
  for (const c of info.checks) console.log(`  ${c}`);
  for (const q of info.quiet) console.log(`  ${q}`);
  const errors = results.reduce((a, r) => a + r.errors, 0);
  const checked = results.reduce((a, r) => a + r.checked, 0);
  console.log(`  responses checked by mcp.lua during the measured runs: ${checked}, failed: ${errors}`);
  if (errors > 0) console.log(`\nWARNING: ${errors} failed requests in total (see the errors column)`);
  return ratios;
}
