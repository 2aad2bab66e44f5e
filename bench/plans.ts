/**
 * Query plans of the benchmarked statements on the seeded data: EXPLAIN ANALYZE with the values bound (the
 * custom plan), and the plan a prepared statement settles on after five executions (as postgres.js prepares
 * every statement per connection, Postgres may switch to a generic plan from the sixth execution on).
 */
import postgres from "postgres";
import { listingQuery, searchQueries, type SqlQuery } from "./listings_sql.ts";
import { filterSignature, type ListRequest } from "./mix.ts";

/** One plan, summarised. */
export interface PlanSummary {
  /** Execution time reported by EXPLAIN ANALYZE, in ms. */
  ms: number;
  /** Compact plan tree, e.g. `Limit(Index Scan listings_pub_city)`. */
  tree: string;
  /** Rows read and then thrown away by filters, summed over the nodes. */
  removed: number;
  /** Whether the plan is generic (conditions refer to `$n` instead of the values). */
  generic: boolean;
}

/** The plans of one statement. */
export interface PlanReport {
  /** What the statement is. */
  label: string;
  /** The statement. */
  query: SqlQuery;
  /** With the values bound at planning time. */
  custom: PlanSummary;
  /** The plan of the sixth execution of a prepared statement (plan_cache_mode = auto). */
  prepared: PlanSummary;
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
  const top = (json as Array<{ Plan: PlanNode; "Execution Time": number }>)[0]!;
  const text = JSON.stringify(top.Plan);
  return {
    ms: top["Execution Time"],
    tree: tree(top.Plan),
    removed: removed(top.Plan),
    generic: /\$[0-9]+/.test(text),
  };
}

function literal(v: string | number): string {
  return typeof v === "number" ? String(v) : `'${v.replaceAll("'", "''")}'`;
}

/** EXPLAIN ANALYZE of each statement, custom and as a prepared statement after five executions. */
export async function explainAll(
  url: string,
  items: Array<{ label: string; query: SqlQuery }>,
): Promise<PlanReport[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const out: PlanReport[] = [];
  try {
    const conn = await sql.reserve();
    try {
      let n = 0;
      for (const { label, query } of items) {
        const custom = await conn.unsafe(
          `explain (analyze, timing off, buffers, format json) ${query.text}`,
          query.params,
        );
        const name = `bench_plan_${n++}`;
        const args = query.params.length ? `(${query.params.map(literal).join(", ")})` : "";
        await conn.unsafe(`prepare ${name} as ${query.text}`);
        for (let i = 0; i < 5; i++) await conn.unsafe(`execute ${name}${args}`);
        const prepared = await conn.unsafe(
          `explain (analyze, timing off, buffers, format json) execute ${name}${args}`,
        );
        await conn.unsafe(`deallocate ${name}`);
        out.push({
          label,
          query,
          custom: summarise(custom[0]!["QUERY PLAN"]),
          prepared: summarise(prepared[0]!["QUERY PLAN"]),
        });
      }
    } finally {
      conn.release();
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return out;
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
  /** Mix-weighted Postgres execution time of one list request (page query + count query), in ms. */
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
  for (const r of list) {
    const q = searchQueries(r.filter);
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
      "first use in the mix; prepared = the plan of the 6th execution of a prepared statement, g = generic):",
  );
  console.log(
    `  ${"uses".padStart(5)}  ${"statement".padEnd(52)} ${"custom".padStart(8)} ${
      "prepared".padStart(10)
    }  plan (prepared)`,
  );
  for (const st of [...stmts, single]) {
    const r = byLabel.get(st.query.text)!;
    const flags = [
      /Gather/.test(r.prepared.tree) ? "parallel workers" : "",
      /Seq Scan/.test(r.prepared.tree) ? "whole table" : "",
      r.prepared.removed > 1000 ? `${r.prepared.removed} rows filtered out` : "",
    ].filter(Boolean).join(", ");
    console.log(
      `  ${String(st.uses || "-").padStart(5)}  ${st.label.padEnd(52)} ${
        r.custom.ms.toFixed(2).padStart(8)
      } ${(r.prepared.ms.toFixed(2) + (r.prepared.generic ? " g" : "  ")).padStart(10)}  ${r.prepared.tree}${
        flags ? `  << ${flags}` : ""
      }`,
    );
  }
  let listMs = 0;
  let countMs = 0;
  let parallel = 0;
  let seq = 0;
  for (const [items, count] of perRequest) {
    const pi = byLabel.get(items)!.prepared;
    const pc = byLabel.get(count)!.prepared;
    listMs += pi.ms + pc.ms;
    countMs += pc.ms;
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
    `  mix-weighted Postgres execution time per list request: ${
      figures.listMs.toFixed(1)
    } ms, of which the count ` +
      `query ${figures.countMs.toFixed(1)} ms (${(figures.countMs / figures.listMs * 100).toFixed(0)}%); ` +
      `${(figures.parallelShare * 100).toFixed(0)}% of list requests start parallel workers, ` +
      `${(figures.seqScanShare * 100).toFixed(0)}% read the whole table`,
  );
  return figures;
}
