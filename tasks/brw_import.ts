/**
 * `deno task brw:import <file> --state <code> [--crs …] [--source "…"] [--source-url URL] [--licence ID]
 * [--allow-older]`: imports a state's official land values (Bodenrichtwerte) from a saved file as its new dataset
 * (`valuation/brw_import.ts` for how; `--help` for the usage).
 *
 * Exit codes: 0 imported; 1 the file cannot be imported or the database failed (nothing changed; the message
 * names the file, the feature or line and the reason); 2 usage error, refused state, no known licence, unreadable
 * file.
 */
import { commandLine, fileTaskArgs, UsageError, usageText } from "./args.ts";
import type { Db } from "../db/connection.ts";
import { AppError } from "../errors.ts";
import { BrwImportError } from "../valuation/brw_errors.ts";
import { importBrwFile, type ImportResult, importState, type StateCode } from "../valuation/brw_import.ts";
import { type CrsRef, crsRef, SUPPORTED_CRS } from "../valuation/crs.ts";
import { importErrorText } from "./brw_messages.ts";
import { failWith, runImport, type TaskDeps } from "./open.ts";
import { reportedProgress } from "./progress.ts";

const USAGE = usageText({
  synopsis: [
    'brw:import FILE --state CODE [--crs CRS] [--source "…"] [--source-url URL] [--licence ID] [--allow-older]',
  ],
  about: [
    "Imports FILE as the new land-value dataset (Bodenrichtwerte) of one state, replacing its previous one",
    "once every zone has loaded. FILE is a saved answer or download in one of the layouts:",
    "  BRM 2.1 GML (WFS boris:BR_BodenrichtwertZonal: Hessen, Niedersachsen, Bremen),",
    "  Hamburg's WFS (app:lgv_brw_zoniert_alle), Berlin's WFS (brw2025:brw_2025_vector),",
    "  Thüringen's WFS (vBORIS_simple_wfs, boris:bodenrichtwertzone),",
    "  OGC API Features JSON, BRM 3.0.1 (Brandenburg br_bodenrichtwert; CRS from the Content-Crs header: --crs),",
    "  NRW's shapefile ZIP (BRW_<year>_EPSG25832_Shape.zip), VBORIS GeoJSON, Brandenburg's | CSV with WKT.",
    "A file holding several Stichtage keeps the newest per zone. A bad file fails whole, naming the feature.",
  ],
  options: [
    [
      "--state CODE",
      "the state, e.g. HE or NW (required; BW, SL, SH and BY are refused: no licence to reuse)",
    ],
    ["--crs CRS", `when the file does not name it: ${SUPPORTED_CRS.join(", ")} or a URN/URI of them`],
    ['--source "…"', "who published the values, named with them (default: the state's known publisher)"],
    ["--source-url URL", "where they were published (http or https)"],
    ["--licence ID", "their licence, e.g. dl-de/by-2-0 (default: the state's known licence)"],
    ["--allow-older", "replace the state's dataset even when FILE's Stichtag is older"],
  ],
  exits: {
    0: "imported",
    1: "FILE cannot be imported (broken, cut off, a feature without geometry, a CRS that does not fit, an older " +
      "Stichtag) or the database failed: nothing changed",
    2: "usage: a wrong command line, a refused state, no known licence or an unreadable file",
  },
});

interface Args {
  file: string;
  state: StateCode;
  crs: CrsRef | undefined;
  source: string | undefined;
  sourceUrl: string | undefined;
  licence: string | undefined;
  allowOlder: boolean;
}

/** Runs the import described by `args` and returns the exit code (0 ok, 1 import failed, 2 refused or unusable input). */
export async function main(args: string[], deps: TaskDeps = {}): Promise<number> {
  const out = deps.out ?? ((l: string) => console.log(l));
  const err = deps.err ?? ((l: string) => console.error(l));
  let parsed: Args | number;
  try {
    parsed = commandLine(args, USAGE, parseCli, { out, err });
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return failWith(err, e.detail ?? e.code, 2);
  }
  if (typeof parsed === "number") return parsed;
  try {
    const stat = await Deno.stat(parsed.file);
    if (!stat.isFile) return failWith(err, `cannot read ${parsed.file}: not a file`, 2);
  } catch (e) {
    return failWith(err, `cannot read ${parsed.file}: ${(e as Error).message}`, 2);
  }
  return await runImport("brw:import", { ...deps, err }, async (db) => {
    report(out, await run(db, parsed, deps.progress ?? true));
    return 0;
  }, (e) => {
    if (!(e instanceof BrwImportError)) {
      return { what: "import failed", why: (e as Error)?.message ?? String(e), code: 1 };
    }
    return { what: "import failed", why: importErrorText(e), code: e.problem.code === "no_licence" ? 2 : 1 };
  });
}

/** Parses the command line: throws {@linkcode UsageError}, or the AppError of `importState` for a refused state. */
function parseCli(argv: string[]): Args {
  const { values, file } = fileTaskArgs(argv, {
    state: { type: "string" },
    crs: { type: "string" },
    source: { type: "string" },
    "source-url": { type: "string" },
    licence: { type: "string" },
    "allow-older": { type: "boolean" },
  });
  if (typeof values.state !== "string") throw new UsageError("--state is required");
  const state = importState(values.state);
  const crs = typeof values.crs === "string" ? crsRef(values.crs) : undefined;
  if (typeof values.crs === "string" && !crs) {
    throw new UsageError(`--crs must name one of ${SUPPORTED_CRS.join(", ")}`);
  }
  const text = (name: string, max: number) => {
    const v = values[name];
    if (v === undefined) return undefined;
    const s = String(v).trim();
    if (s === "" || s.length > max) throw new UsageError(`--${name} must be 1 to ${max} characters`);
    return s;
  };
  const sourceUrl = text("source-url", 500);
  if (sourceUrl !== undefined && !/^https?:\/\/\S+$/.test(sourceUrl)) {
    throw new UsageError("--source-url must be an http or https address");
  }
  return {
    file,
    state,
    crs,
    source: text("source", 500),
    sourceUrl,
    licence: text("licence", 200),
    allowOlder: values["allow-older"] === true,
  };
}

async function run(db: Db, a: Args, progress: boolean): Promise<ImportResult> {
  const bar = reportedProgress("reading", progress);
  try {
    return await importBrwFile(db, {
      path: a.file,
      state: a.state,
      crs: a.crs,
      source: a.source,
      sourceUrl: a.sourceUrl,
      licence: a.licence,
      allowOlder: a.allowOlder,
      onProgress: bar.onProgress,
    });
  } finally {
    bar.done();
  }
}

function report(out: (line: string) => void, r: ImportResult): void {
  const d = r.dataset;
  out(
    `imported ${d.zoneCount} zones for ${d.state}, Stichtag ${d.stichtag} (dataset ${d.id}, layout ${r.layout})` +
      (r.replaced
        ? `; replaces dataset ${r.replaced.id} (${r.replaced.zoneCount} zones, Stichtag ${r.replaced.stichtag})`
        : ""),
  );
  out(`source: ${d.source}${d.sourceUrl ? ` <${d.sourceUrl}>` : ""}; licence: ${d.licence}`);
  if (r.invented) out("note: the file is marked ERFUNDENE TESTDATEN (invented data)");
  const skipped = [
    r.noValue > 0 ? `${r.noValue} without a land value (BRW empty or 0)` : "",
    ...Object.entries(r.otherStates).map(([s, n]) => `${n} of ${s} (by municipality key)`),
    r.superseded > 0 ? `${r.superseded} older values of zones the file holds with a later Stichtag` : "",
  ].filter((s) => s !== "");
  out(`${r.features} features read${skipped.length ? `; skipped: ${skipped.join(", ")}` : ""}`);
}

if (import.meta.main) Deno.exit(await main(Deno.args));
