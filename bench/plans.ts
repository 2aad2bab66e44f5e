/**
 * Query plans of the benchmarked statements on the seeded data: EXPLAIN ANALYZE with the values bound, in a
 * session with the settings of the service's search sessions (`SEARCH_SESSION_SETTINGS` of db/connection.ts: every
 * statement is planned for its values, so the plan shown is the plan the service runs), with the planning time
 * that every execution of a search statement pays. (The lookup by id runs on the other sessions, with a cached plan.)
 */
import postgres from "postgres";
import { SEARCH_SESSION_SETTINGS } from "../db/connection.ts";
import { listingQuery, searchQueries, type SqlQuery } from "./listings_sql.ts";
import { filterSignature, type ListRequest } from "./mix.ts";

/** One plan, summarised. */
export interface PlanSummary {
  /** Execution time reported by EXPLAIN ANALYZE, in ms. */
  ms: number;
  /** Planning time reported by EXPLAIN ANALYZE, in ms (paid at every execution of a search statement). */
  planMs: number;
  /** Compact plan tree, e.g. `Limit(Index Scan listings_pub_city)`. */
  tree: string;
  /** Rows read and then thrown away by filters, summed over the nodes. */
  removed: number;
}

/** The plan of one statement. */
export interface PlanReport {
  /** What the statement is. */
  label: string;
  /** The statement. */
  query: SqlQuery;
  /** The plan with the values bound, as the service's sessions run it. */
  plan: PlanSummary;
}

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
  [k: string]: unknown;
}

function tree(n: PlanNode): string {
  const name = n["Index Name"] ?? n["Relation Name"];
  const head = name ? `${n["Node Type"]} ${name}` : n["Node Type"];
  return n.Plans?.length ? `${head}(${n.Plans.map(tree).join(", ")})` : head;
}

function removed(n: PlanNode): number {
  return (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0) +
    (n.Plans ?? []).reduce((a, c) => a + removed(c), 0);
}

function summarise(json: unknown): PlanSummary {
  const top = (json as Array<{ Plan: PlanNode; "Execution Time": number; "Planning Time": number }>)[0]!;
  return {
    ms: top["Execution Time"],
    planMs: top["Planning Time"],
    tree: tree(top.Plan),
    removed: removed(top.Plan),
  };
}

/**
 * EXPLAIN ANALYZE of each statement with its values, in a session with the search sessions' settings. Each one is
 * explained twice and the second is kept, so that catalogue caches filled by the first planning do not count.
 */
export async function explainAll(
  url: string,
  items: Array<{ label: string; query: SqlQuery }>,
): Promise<PlanReport[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { ...SEARCH_SESSION_SETTINGS } });
  const out: PlanReport[] = [];
  try {
    for (const { label, query } of items) {
      const explain = `explain (analyze, timing off, buffers, format json) ${query.text}`;
      await sql.unsafe(explain, query.params);
      const r = await sql.unsafe(explain, query.params);
      out.push({ label, query, plan: summarise(r[0]!["QUERY PLAN"]) });
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return out;
}

/** The total of each list request of the mix (keyed by its filter as JSON), which decides its page query. */
async function totalsOf(url: string, list: ListRequest[]): Promise<Map<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { ...SEARCH_SESSION_SETTINGS } });
  const totals = new Map<string, number>();
  try {
    for (const r of list) {
      const key = JSON.stringify(r.filter);
      if (totals.has(key)) continue;
      const count = searchQueries(r.filter, 0).count;
      const rows = await sql.unsafe(count.text, count.params);
      totals.set(key, (rows[0] as unknown as { total: number }).total);
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return totals;
}

/** A distinct statement of the mix and how many list requests issue it. */
interface MixStatement {
  label: string;
  query: SqlQuery;
  uses: number;
}

/** Summary figures of {@linkcode planSection}. */
export interface PlanFigures {
  /** Distinct statements explained (page and count queries of the list mix, and the single-listing query). */
  statements: number;
  /** Mix-weighted Postgres time (planning and execution) of one list request (page query + count query), in ms. */
  listMs: number;
  /** The part of `listMs` spent in count queries, in ms. */
  countMs: number;
  /** Share of list requests whose page or count query has a parallel plan (Gather). */
  parallelShare: number;
  /** Share of list requests whose page or count query reads the whole table (Seq Scan). */
  seqScanShare: number;
}

/**
 * Explains every distinct statement of the list mix (with the parameters of its first use) and the single-listing
 * query, prints one line each, and estimates the mix-weighted database time of a list request.
 */
export async function planSection(url: string, list: ListRequest[], id: string): Promise<PlanFigures> {
  const byText = new Map<string, MixStatement>();
  const perRequest: Array<[string, string]> = [];
  const totals = await totalsOf(url, list);
  for (const r of list) {
    const q = searchQueries(r.filter, totals.get(JSON.stringify(r.filter))!);
    for (const [part, sq] of [["page ", q.items], ["count", q.count]] as const) {
      const e = byText.get(sq.text);
      if (e) e.uses++;
      else byText.set(sq.text, { label: `${part} ${filterSignature(r.filter)}`, query: sq, uses: 1 });
    }
    perRequest.push([q.items.text, q.count.text]);
  }
  const stmts = [...byText.values()].sort((a, b) => b.uses - a.uses || a.label.localeCompare(b.label));
  const single = { label: "single listing", query: listingQuery(id), uses: 0 };
  const reports = await explainAll(url, [...stmts, single]);
  const byLabel = new Map(reports.map((r) => [r.query.text, r]));

  console.log(
    `\nQuery plans of the ${reports.length} distinct statements (EXPLAIN ANALYZE with the parameters of the ` +
      "first use in the mix, planned for its values as in the service's search sessions):",
  );
  console.log(
    `  ${"uses".padStart(5)}  ${"statement".padEnd(52)} ${"plan ms".padStart(8)} ${
      "exec ms".padStart(8)
    }  plan`,
  );
  for (const st of [...stmts, single]) {
    const r = byLabel.get(st.query.text)!.plan;
    const flags = [
      /Gather/.test(r.tree) ? "parallel workers" : "",
      /Seq Scan/.test(r.tree) ? "whole table" : "",
      r.removed > 1000 ? `${r.removed} rows filtered out` : "",
    ].filter(Boolean).join(", ");
    console.log(
      `  ${String(st.uses || "-").padStart(5)}  ${st.label.padEnd(52)} ${r.planMs.toFixed(2).padStart(8)} ${
        r.ms.toFixed(2).padStart(8)
      }  ${r.tree}${flags ? `  << ${flags}` : ""}`,
    );
  }
  let listMs = 0;
  let countMs = 0;
  let parallel = 0;
  let seq = 0;
  for (const [items, count] of perRequest) {
    const pi = byLabel.get(items)!.plan;
    const pc = byLabel.get(count)!.plan;
    listMs += pi.ms + pi.planMs + pc.ms + pc.planMs;
    countMs += pc.ms + pc.planMs;
    if (/Gather/.test(pi.tree + pc.tree)) parallel++;
    if (/Seq Scan/.test(pi.tree + pc.tree)) seq++;
  }
  const n = Math.max(1, perRequest.length);
  const figures = {
    statements: reports.length,
    listMs: listMs / n,
    countMs: countMs / n,
    parallelShare: parallel / n,
    seqScanShare: seq / n,
  };
  console.log(
    `  mix-weighted Postgres time (planning and execution) per list request: ${
      figures.listMs.toFixed(1)
    } ms, of which the count ` +
      `query ${figures.countMs.toFixed(1)} ms (${(figures.countMs / figures.listMs * 100).toFixed(0)}%); ` +
      `${(figures.parallelShare * 100).toFixed(0)}% of list requests start parallel workers, ` +
      `${(figures.seqScanShare * 100).toFixed(0)}% read the whole table`,
  );
  return figures;
}
