/**
 * The printed report of `bench:catalogue`: the table and the ratios of one scale, the write latencies, and the
 * scales side by side.
 */
import type { WriteMeasurement } from "./catalogue_checks.ts";
import type { BenchSettings, Measurement } from "./catalogue_runs.ts";
import { otherCpu } from "./cpu.ts";
import type { PlanFigures } from "./plans.ts";
import { formatPct, verdict } from "./stats.ts";

/** The figures of one scale. */
export interface ScaleResult {
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
}

/** Target name of the direct floor that counts the total with a plain count(*). */
export const COUNT_STAR = "direct postgres.js, count(*) total";
const ON = "service, rate limiter on";
const OFF = "service, rate limiter off";

/** Prints the publish, withdraw and edit latencies of each writer count. */
export function writeReport(s: BenchSettings, ws: WriteMeasurement[], listings: number): void {
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
  console.log(`  publish p99 < 5 ms at ${listings} listings (one writer): ${verdict(one.p99Ms < 5)}`);
}

/** The figures of every scale side by side, and the largest scale over the smallest. */
export function scaleReport(scales: ScaleResult[]): void {
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
      const expect = e === "list" ? `   (expected >= 0.8: ${verdict(v >= 0.8)})` : "";
      console.log(`  ${`${e}: ${t}`.padEnd(40)} ${v.toFixed(2).padStart(6)}${expect}`);
    }
  }
  for (const r of scales) {
    const v = get(r, ON, "list").rps / get(r, "direct postgres.js (pool)", "list").rps;
    const p99 = get(r, ON, "list").p99Ms;
    console.log(
      `  at ${r.listings}: list service (limiter on) / direct driver ${v.toFixed(2)} (expected >= 0.9: ${
        verdict(v >= 0.9)
      }); list p99 ${p99.toFixed(1)} ms (expected < 100: ${verdict(p99 < 100)})`,
    );
  }
}

/** Prints the table, the ratios, the database cost and the CPU of one scale's runs. */
export function report(
  s: BenchSettings,
  results: Measurement[],
  info: {
    sqlIdentical: boolean;
    published: number;
    pgVersion: string;
    plans: PlanFigures;
    pgDataDir: string | undefined;
  },
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
        expect === undefined ? "" : `   (expected >= ${expect}: ${verdict(v >= expect)})`
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
        `  ${e.padEnd(7)} ${t.padEnd(28)} ${m.p99Ms.toFixed(2).padStart(8)} ms  ${verdict(m.p99Ms < 50)}`,
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
  const pct = formatPct;
  let noisy = 0;
  for (const endpoint of ["list", "single"] as const) {
    for (const t of [on, off, direct, reserve, bare]) {
      const c = get(t, endpoint).cpu;
      const other = otherCpu(c);
      if (other > 30) noisy++;
      console.log(
        `  ${endpoint.padEnd(8)} ${t.padEnd(36)} ${pct(c.target, 7)} ${
          pct(info.pgDataDir ? c.postgres : undefined, 9)
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
