/**
 * `deno task openimmo:import <file.xml|zip> --office <id|name> [--publish] [--dry-run] [--strict]`: creates or
 * updates the office's listings from an OpenImmo stock file, keyed by `objektnr_extern` (see
 * `catalogue/openimmo_import.ts` for the rules), in one transaction.
 *
 * Exit codes: 0 imported (possibly with invalid objects, which are skipped and listed), 1 the file is broken or the
 * import failed (nothing changed; with `--strict` also when any object is invalid), 2 usage error, unreadable file
 * or unknown office. `--help` prints the usage.
 */
import { commandLine, fileTaskArgs, UsageError, usageText } from "./args.ts";
import { basename } from "node:path";
import type { Db } from "../db/connection.ts";
import { findOffice } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import { importOpenImmo, type ImportSummary } from "../catalogue/openimmo_import.ts";
import { failWith, runImport, taskActDeps, type TaskDeps } from "./open.ts";
import type { Who } from "../deps.ts";
import { reportedProgress } from "./progress.ts";

const USAGE = usageText({
  synopsis: ["openimmo:import FILE.xml|FILE.zip --office ID|NAME [--publish] [--dry-run] [--strict]"],
  about: [
    "Creates or updates the office's listings from an OpenImmo 1.2 stock file (an XML document, or a ZIP",
    "holding one), keyed by objektnr_extern, in one transaction; objects with aktionart DELETE are withdrawn.",
    "Invalid objects are skipped and listed. New listings are drafts unless --publish. Images of a ZIP",
    "(anhang elements) become the listings' photos; an object with a bad image is invalid.",
  ],
  options: [
    ["--office ID|NAME", "the office, by id or exact name (required)"],
    ["--publish", "publish new listings (and drafts) that have every field publication needs"],
    ["--dry-run", "do everything and report it, then write nothing"],
    ["--strict", "import nothing when any object is invalid"],
  ],
  exits: {
    0: "imported (possibly with invalid objects, which are skipped and listed)",
    1: "the file is broken or the import failed: nothing changed (with --strict also: an invalid object)",
    2: "usage: a wrong command line, an unreadable file or an unknown office",
  },
});

interface Args {
  file: string;
  office: string;
  publish: boolean;
  dryRun: boolean;
  strict: boolean;
}

/** Runs the import described by `args` and returns the exit code (0 ok, 1 broken file or failed, 2 usage). */
export async function main(args: string[], deps: TaskDeps = {}): Promise<number> {
  const out = deps.out ?? ((l: string) => console.log(l));
  const err = deps.err ?? ((l: string) => console.error(l));
  const parsed = commandLine(args, USAGE, parseCli, { out, err });
  if (typeof parsed === "number") return parsed;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(parsed.file);
  } catch (e) {
    return failWith(err, `cannot read ${parsed.file}: ${(e as Error).message}`, 2);
  }
  return await runImport("openimmo:import", { ...deps, err }, async (db) => {
    const office = await findOffice(db, parsed.office);
    if (!office) return failWith(err, `no office "${parsed.office}" (give its id or exact name)`, 2);
    out(`importing ${basename(parsed.file)} into office ${office.name} (${office.id})`);
    const summary = await run(db, office.id, bytes, parsed, deps.progress ?? true);
    for (const line of reportLines(summary)) out(line);
    if (parsed.strict && summary.invalid.length > 0) {
      return failWith(err, "--strict: invalid objects, nothing was imported", 1);
    }
    return 0;
  }, (e) => {
    const broken = e instanceof AppError && e.code === "invalid_request";
    const why = e instanceof AppError && e.facts.reason === "broken_file" ? e.facts.hint : undefined;
    return { what: broken ? "broken file" : "import failed", why: why ?? message(e), code: 1 };
  });
}

/** Parses the command line; throws {@linkcode UsageError} for a wrong one. */
function parseCli(argv: string[]): Args {
  const { values, file } = fileTaskArgs(argv, {
    office: { type: "string" },
    publish: { type: "boolean" },
    "dry-run": { type: "boolean" },
    strict: { type: "boolean" },
  });
  if (typeof values.office !== "string" || !values.office.trim()) {
    throw new UsageError("--office is required");
  }
  return {
    file,
    office: values.office.trim(),
    publish: values.publish === true,
    dryRun: values["dry-run"] === true,
    strict: values.strict === true,
  };
}

async function run(db: Db, officeId: string, bytes: Uint8Array, a: Args, progress: boolean) {
  const bar = reportedProgress("importing", progress);
  const who: Who = { actor: { kind: "service", officeId }, origin: null };
  try {
    return await importOpenImmo(taskActDeps(db), who, bytes, {
      publish: a.publish,
      dryRun: a.dryRun,
      strict: a.strict,
      onProgress: bar.onProgress,
    });
  } finally {
    bar.done();
  }
}

/** The report of an import, line by line. */
export function reportLines(s: ImportSummary): string[] {
  const lines = [
    `${s.objects} objects read (${s.container}, ${s.encoding})`,
    `created ${s.created}, updated ${s.updated}, unchanged ${s.unchanged}, withdrawn ${s.withdrawn}, ` +
    `invalid ${s.invalid.length}, photos ${s.photos}`,
  ];
  if (s.invalid.length > 0) lines.push("invalid objects (not imported):");
  for (const i of s.invalid) {
    lines.push(`  ${i.objektnr_extern ?? "(no objektnr_extern)"} (object ${i.position}): ${i.reason}`);
  }
  if (s.not_published.length > 0) lines.push("left as drafts (missing fields for publication):");
  for (const n of s.not_published) lines.push(`  ${n.objektnr_extern}: ${n.missing.join(", ")}`);
  if (s.unmapped.length > 0) lines.push("unmapped elements (imported without them):");
  for (const u of s.unmapped) {
    const more = u.objects > u.objektnr_extern.length ? ", …" : "";
    const n = `${u.objects} ${u.objects === 1 ? "object" : "objects"}`;
    lines.push(`  ${u.element} (${n}: ${u.objektnr_extern.join(", ")}${more})`);
  }
  if (!s.committed) lines.push("nothing was written");
  return lines;
}

function message(e: unknown): string {
  return e instanceof AppError ? e.detail ?? e.code : (e as Error)?.message ?? String(e);
}

if (import.meta.main) Deno.exit(await main(Deno.args));
