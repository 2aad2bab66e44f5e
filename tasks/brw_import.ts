/**
 * `deno task brw:import <file> --state <code> [--crs EPSG:25833] [--stichtag YYYY-MM-DD] [--source "…"]
 * [--licence "…"]`: replaces one state's official land values (Bodenrichtwerte) of one Stichtag with the zones of
 * a Brandenburg-style CSV or a VBORIS GeoJSON file (see `valuation/brw_import.ts` for the formats; `--help` for
 * the usage).
 *
 * The replacement is one transaction: when it fails, the previous zones stay as they were. Bad rows are skipped
 * and listed with their line number (CSV) or feature index (GeoJSON). Exit codes: 0 imported (possibly with bad
 * rows), 1 the import failed as a whole (nothing changed), 2 usage error, refused state or unreadable file.
 */
import { commandLine, taskArgs, UsageError, usageText } from "./args.ts";
import { basename } from "node:path";
import { countZones, replaceZones } from "../db/brw_zones.ts";
import type { Db } from "../db/connection.ts";
import { migrate } from "../db/migrate.ts";
import { AppError } from "../errors.ts";
import {
  formatBadRow,
  importState,
  parseBrwFile,
  type ParsedFile,
  type StateCode,
} from "../valuation/brw_import.ts";
import { type Crs, parseCrs, SUPPORTED_CRS } from "../valuation/geometry.ts";
import { openConfiguredDb, type TaskDeps } from "./open.ts";
import { progressBar } from "./progress.ts";

const USAGE = usageText({
  synopsis: [
    'brw:import FILE --state CODE [--crs EPSG:…] [--stichtag YYYY-MM-DD] [--source "…"] [--licence "…"]',
  ],
  about: [
    "Replaces one state's official land values (Bodenrichtwerte) of one Stichtag with the zones of FILE, a",
    "Brandenburg-style CSV (| separated, WKT geometry) or a VBORIS GeoJSON FeatureCollection, in one",
    "transaction. Bad rows are skipped and listed with their line number (CSV) or feature index (GeoJSON).",
  ],
  options: [
    ["--state CODE", "the state, e.g. BB or NW (required; BW, SL, SH and BY are refused: no licence)"],
    ["--crs EPSG:…", `the coordinate system when the file does not name it: ${SUPPORTED_CRS.join(", ")}`],
    ["--stichtag YYYY-MM-DD", "the Stichtag to import (default: the most frequent STAG of the rows)"],
    ['--source "…"', "the source shown with the values (default: state and file name)"],
    ['--licence "…"', "the licence shown with the values (required for states without a known default)"],
  ],
  exits: {
    0: "imported (possibly with bad rows)",
    1: "the import failed as a whole (broken file or database error): nothing changed",
    2: "usage: a wrong command line, a refused state, no known licence or an unreadable file",
  },
});

/** Licences of the open state downloads, used when `--licence` is not given. */
const DEFAULT_LICENCE: Partial<Record<StateCode, string>> = {
  BB:
    "Datenlizenz Deutschland – Namensnennung – Version 2.0 (dl-de/by-2-0); © Gutachterausschüsse für Grundstückswerte im Land Brandenburg",
  NW:
    "Datenlizenz Deutschland – Zero – Version 2.0 (dl-de/zero-2-0); Gutachterausschüsse für Grundstückswerte in NRW",
};

interface Args {
  file: string;
  state: StateCode;
  crs: Crs | undefined;
  stichtag: string | undefined;
  source: string | undefined;
  licence: string | undefined;
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
    return fail(err, message(e), 2);
  }
  if (typeof parsed === "number") return parsed;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(parsed.file);
  } catch (e) {
    return fail(err, `cannot read ${parsed.file}: ${(e as Error).message}`, 2);
  }
  let file: ParsedFile;
  try {
    file = parseWithProgress(bytes, parsed, deps.progress ?? true);
  } catch (e) {
    return fail(err, `import failed, nothing changed: ${message(e)}`, 1);
  }
  const origin = provenance(parsed, file);
  if (typeof origin === "string") return fail(err, origin, 2);
  const db = await (deps.open ?? (() => openConfiguredDb("brw:import")))();
  try {
    await migrate(db);
    const result = await store(db, parsed.state, file, origin, deps.progress ?? true);
    report(out, parsed, file, result);
    return 0;
  } catch (e) {
    return fail(err, `import failed, the previous zones are unchanged: ${message(e)}`, 1);
  } finally {
    await db.close();
  }
}

/**
 * Parses the command line: throws {@linkcode UsageError} for a wrong one, and the AppError of `importState` for
 * an unknown or refused state.
 */
function parseCli(argv: string[]): Args {
  const { values, positionals } = taskArgs(argv, {
    state: { type: "string" },
    crs: { type: "string" },
    stichtag: { type: "string" },
    source: { type: "string" },
    licence: { type: "string" },
  }, true);
  const [file, ...rest] = positionals;
  if (!file) throw new UsageError("FILE is required");
  if (rest.length > 0) throw new UsageError(`one FILE only, not also ${rest.join(" ")}`);
  if (typeof values.state !== "string") throw new UsageError("--state is required");
  const state = importState(values.state);
  const crs = typeof values.crs === "string" ? parseCrs(values.crs) : undefined;
  if (typeof values.crs === "string" && !crs) {
    throw new UsageError(`--crs must be one of ${SUPPORTED_CRS.join(", ")}`);
  }
  const stichtag = values.stichtag as string | undefined;
  if (stichtag !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(stichtag)) {
    throw new UsageError("--stichtag must be YYYY-MM-DD");
  }
  return {
    file,
    state,
    crs,
    stichtag,
    source: values.source as string | undefined,
    licence: values.licence as string | undefined,
  };
}

function parseWithProgress(bytes: Uint8Array, a: Args, progress: boolean): ParsedFile {
  let bar: ReturnType<typeof progressBar> | undefined;
  const file = parseBrwFile(bytes, {
    state: a.state,
    crs: a.crs,
    stichtag: a.stichtag,
    onProgress: progress
      ? (done, total) => {
        bar ??= progressBar("reading  ", total);
        bar.update(done);
      }
      : undefined,
  });
  bar?.done();
  return file;
}

/** Source and licence: the flags, else invented-data labels for our fixtures, else the state's default licence. */
function provenance(a: Args, file: ParsedFile): { source: string; licence: string } | string {
  const name = basename(a.file);
  const source = a.source ??
    (file.invented ? `ERFUNDENE TESTDATEN (${name})` : `Bodenrichtwerte ${a.state}, Datei ${name}`);
  const licence = a.licence ??
    (file.invented
      ? "ERFUNDENE TESTDATEN: keine amtlichen Werte, frei verwendbar"
      : DEFAULT_LICENCE[a.state]);
  if (!licence) return `${a.state}: no default licence is known; name it with --licence "…"`;
  return { source: source.slice(0, 500), licence: licence.slice(0, 500) };
}

async function store(
  db: Db,
  state: StateCode,
  file: ParsedFile,
  origin: { source: string; licence: string },
  progress: boolean,
): Promise<{ deleted: number; inserted: number; total: number }> {
  const bar = progress ? progressBar("importing", file.zones.length) : undefined;
  const result = await replaceZones(db, { state, stichtag: file.stichtag, ...origin, zones: file.zones }, {
    onProgress: bar?.update,
  });
  bar?.done();
  return { ...result, total: await countZones(db, { state }) };
}

function report(
  out: (line: string) => void,
  a: Args,
  file: ParsedFile,
  r: { deleted: number; inserted: number; total: number },
): void {
  out(
    `imported ${r.inserted} zones for ${a.state}, Stichtag ${file.stichtag} (${r.deleted} previous zones of ` +
      `that Stichtag replaced; ${r.total} zones of ${a.state} stored in all)`,
  );
  if (file.invented) out("note: the file is marked ERFUNDENE TESTDATEN (invented data)");
  const n = file.bad.length;
  out(`${n} bad ${n === 1 ? "row" : "rows"} of ${file.rows} skipped${n ? ":" : ""}`);
  for (const b of file.bad) out(`  ${formatBadRow(b)}`);
}

function message(e: unknown): string {
  return e instanceof AppError ? e.detail ?? e.code : (e as Error)?.message ?? String(e);
}

function fail(err: (line: string) => void, text: string, code: number): number {
  err(text);
  return code;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
