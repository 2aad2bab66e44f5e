/**
 * `deno task brw:datasets [--state CODE] [--all] [--json]`: lists the land-value datasets — per state the active
 * one with its Stichtag, zone count, source, licence and when it was imported (`--help` for the usage).
 */
import { type DatasetRow, listDatasets } from "../db/brw_datasets.ts";
import { AppError } from "../errors.ts";
import { isStateCode } from "../valuation/states.ts";
import { commandLine, taskArgs, UsageError, usageText } from "./args.ts";
import { type TaskDeps, withTaskDb } from "./open.ts";

const USAGE = usageText({
  synopsis: ["brw:datasets [--state CODE] [--all] [--json]"],
  about: [
    "Lists the land-value datasets (one per import of brw:import): state, Stichtag, zones, licence, source,",
    "when it was imported and from which file. Without --all only the active dataset of each state.",
  ],
  options: [
    ["--state CODE", "only this state, e.g. NW"],
    ["--all", "also datasets still loading or replaced and not yet deleted"],
    ["--json", "print the datasets as a JSON array"],
  ],
});

interface Query {
  state: string | undefined;
  all: boolean;
  json: boolean;
}

function parse(args: string[]): Query {
  const { values } = taskArgs<{ state?: string; all?: boolean; json?: boolean }>(args, {
    state: { type: "string" },
    all: { type: "boolean" },
    json: { type: "boolean" },
  });
  const state = values.state?.trim().toUpperCase();
  if (state !== undefined && !isStateCode(state)) {
    throw new UsageError(`--state ${values.state} is no state code`);
  }
  return { state, all: values.all ?? false, json: values.json ?? false };
}

/** Two lines per dataset, for people. */
function lines(d: DatasetRow): string[] {
  const head =
    `${d.state}  Stichtag ${d.stichtag ?? "-"}  ${d.zoneCount} zones  ${d.licence}  dataset ${d.id}` +
    (d.status === "active" ? "" : ` (${d.status})`);
  const file = d.fileName ? `, file ${d.fileName} (${d.layout})` : ` (${d.layout})`;
  return [
    head,
    `    ${d.source}${d.sourceUrl ? ` <${d.sourceUrl}>` : ""}; imported ${
      d.importedAt ?? `- (started ${d.createdAt})`
    }${file}`,
  ];
}

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[], deps: TaskDeps = {}): Promise<number> {
  const out = deps.out ?? ((l: string) => console.log(l));
  const err = deps.err ?? ((l: string) => console.error(l));
  const q = commandLine(args, USAGE, parse, { out, err });
  if (typeof q === "number") return q;
  const list = async (db: Parameters<typeof listDatasets>[0]) => {
    const rows = await listDatasets(db, { state: q.state, all: q.all });
    if (q.json) out(JSON.stringify(rows, null, 2));
    else if (rows.length === 0) {
      out(q.state ? `no land-value dataset for ${q.state}` : "no land-value dataset");
    } else for (const r of rows) lines(r).forEach((l) => out(l));
    return 0;
  };
  try {
    if (!deps.open) return await withTaskDb("brw:datasets", list);
    const db = await deps.open();
    try {
      return await list(db);
    } finally {
      await db.close();
    }
  } catch (e) {
    if (e instanceof AppError) {
      err(e.detail ?? e.code);
      return 1;
    }
    throw e;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
