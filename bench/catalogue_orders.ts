/**
 * The list mix once per sort order of `catalogue/sort.ts` (issue 31) against the service: the distinct requests of
 * each order compared with plain SQL first (total and items; the oracle's order is written out by hand in
 * `listings_sql.ts`), then a wrk run. Settings: BENCH_SORT_CONNECTIONS (4) concurrent connections,
 * BENCH_ORDER_CHECKS (all) distinct requests compared per order.
 */
import { SORT_ORDERS, type SortOrder } from "../catalogue/sort.ts";
import { checkMix } from "./catalogue_checks.ts";
import { type Measurement, type ScaleRuns, wrkRun } from "./catalogue_runs.ts";
import { intSetting, say } from "./harness.ts";
import { inOrder, type ListRequest } from "./mix.ts";

/** The latency of the list mix in one sort order. */
export interface OrderFigures {
  /** The sort order every request of the mix asked for. */
  sort: SortOrder;
  /** The wrk run. */
  run: Measurement;
  /** Distinct requests of this order compared with plain SQL before the run. */
  checked: number;
}

/** Checks, then measures the mix `list` in each sort order against the service at `base` (process `pid`). */
export async function orderRuns(
  r: ScaleRuns,
  base: string,
  pid: number,
  list: ListRequest[],
): Promise<OrderFigures[]> {
  const connections = intSetting("BENCH_SORT_CONNECTIONS", 4, 1);
  const out: OrderFigures[] = [];
  for (const sort of SORT_ORDERS) {
    const mix = inOrder(list, sort);
    const limit = intSetting("BENCH_ORDER_CHECKS", mix.length, 1);
    const distinct = [...new Map(mix.map((q) => [q.path, q])).values()].slice(0, limit);
    const check = await checkMix(base, r.url, distinct);
    if (check.mismatches.length > 0) {
      for (const m of check.mismatches.slice(0, 10)) console.log(`  MISMATCH ${m}`);
      throw new Error(
        `${check.mismatches.length} of ${check.checked} list requests (sort ${sort}) differ from plain SQL`,
      );
    }
    const file = `${r.workdir}/list-${sort}.txt`;
    await Deno.writeTextFile(file, mix.map((q) => q.path).join("\n") + "\n");
    say(
      `  sort ${sort}: ${check.checked} distinct list requests equal plain SQL; ${connections} connections`,
    );
    const runs: ScaleRuns = { ...r, s: { ...r.s, connections }, files: { ...r.files, list: file } };
    const run = await wrkRun(runs, `service, sort ${sort}`, "list", base, pid);
    out.push({ sort, run, checked: check.checked });
  }
  return out;
}

/** Prints the per-order figures and whether each p99 is under 100 ms. */
export function orderReport(orders: OrderFigures[], listings: number): void {
  if (orders.length === 0) return;
  console.log(`\nList mix per sort order at ${listings} listings (service, rate limiter off):`);
  console.log(
    `  ${"sort".padEnd(18)} ${"req/s".padStart(7)} ${"p50 ms".padStart(8)} ${
      "p99 ms".padStart(8)
    }  p99 < 100 ms`,
  );
  for (const o of orders) {
    const { rps, p50Ms, p99Ms, errors } = o.run;
    console.log(
      `  ${o.sort.padEnd(18)} ${rps.toFixed(0).padStart(7)} ${p50Ms.toFixed(2).padStart(8)} ${
        p99Ms.toFixed(2).padStart(8)
      }` +
        `  ${p99Ms < 100 ? "yes" : "NO"}   (${o.checked} requests checked, ${errors} errors)`,
    );
  }
}
