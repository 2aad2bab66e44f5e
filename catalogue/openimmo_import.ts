/**
 * Importing an OpenImmo stock file into one office: objects are keyed by `objektnr_extern` (created, updated,
 * withdrawn on `aktion aktionart="DELETE"`), all in ONE transaction. A broken file changes nothing
 * (`invalid_request`); invalid objects are skipped and reported while the valid ones are imported (with `strict`
 * any invalid object rolls everything back). New listings are drafts, or published with `publish` when they have
 * every field publication needs; existing listings keep their status (a published one stays published, and an
 * update that would leave it without a field publication needs is refused for that object). Mapped fields the file
 * leaves out are cleared: the file describes the whole object. Shared by `deno task openimmo:import` and the
 * provider tool `import_openimmo`.
 */
import { z } from "zod";
import { type ListingColumns, setListingStatus } from "../db/listings.ts";
import {
  findByExternalNumber,
  type ImportedRow,
  insertImported,
  lockOfficeImport,
  referenceTaken,
  updateImported,
} from "../db/openimmo.ts";
import { type OpenImmoFile, type OpenImmoObject, readOpenImmo } from "./openimmo.ts";
import { importPhotos } from "./openimmo_photos.ts";
import { mapDetails } from "./openimmo_details.ts";
import { DETAIL_COLUMNS, type ListingDetails, officeDetails, saveDetails } from "./listing_details.ts";
import { type ReadyPhoto, replacePhotos } from "../photos/photos.ts";
import { COLUMN_KEYS, LISTING_STATUSES, makeUnavailable, missingForPublication } from "./office_listings.ts";
import { act, type ActDeps, actingOffice, type Action, type Who } from "../deps.ts";

/** How to import. */
export interface ImportOptions {
  /** Publish new listings (and drafts) that have every field publication needs. */
  publish?: boolean;
  /** Do everything, report it, then roll back. */
  dryRun?: boolean;
  /** Roll everything back when any object is invalid. */
  strict?: boolean;
  /** Called after each object with the number done and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** How many object numbers an unmapped element names at most. */
const UNMAPPED_NUMBERS = 10;

/** What happened to one object. */
export const IMPORT_RESULTS = ["created", "updated", "unchanged", "withdrawn"] as const;

/** The summary of an import (also the output of the `import_openimmo` tool). */
export const importSummarySchema = z.object({
  objects: z.number().int().describe("Number of <immobilie> elements in the file."),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  withdrawn: z.number().int(),
  photos: z.number().int().describe(
    "Photos of the imported objects' anhang images (stored, or kept when the listing had them already).",
  ),
  invalid: z.array(z.object({
    objektnr_extern: z.string().nullable(),
    position: z.number().int().describe("1-based position of the <immobilie> in the file."),
    reason: z.string(),
  })).describe("Objects not imported, with their number and the reason."),
  unmapped: z.array(z.object({
    element: z.string().describe("Path below <immobilie>, e.g. ausstattung or geo/strasse."),
    objects: z.number().int().describe("Number of imported objects that had it."),
    objektnr_extern: z.array(z.string()).describe(`The first ${UNMAPPED_NUMBERS} of those objects' numbers.`),
  })).describe("Elements not mapped to listing fields (the objects were imported without them)."),
  not_published: z.array(z.object({ objektnr_extern: z.string(), missing: z.array(z.string()) }))
    .describe("With publish: new or draft listings left as drafts because fields are missing."),
  listings: z.array(z.object({
    objektnr_extern: z.string(),
    id: z.string(),
    result: z.enum(IMPORT_RESULTS),
    status: z.enum(LISTING_STATUSES),
  })).describe("Each imported object's listing, in file order."),
  committed: z.boolean().describe(
    "false for a dry run or a strict import with invalid objects: nothing written.",
  ),
  encoding: z.string(),
  container: z.enum(["xml", "zip"]),
});

/** The summary of an import. */
export type ImportSummary = z.infer<typeof importSummarySchema>;

/** Thrown inside the transaction to roll it back while keeping the summary. */
class Rollback extends Error {}

/**
 * Imports OpenImmo `bytes` (XML or zip) into the office `who` acts for (a provider, or the service for the office
 * an operator named) in one action; a broken file throws `invalid_request` before anything is written. Reading the
 * file and its photos happens before the action. Returns the summary; `committed` says whether it was written.
 */
export async function importOpenImmo(
  deps: ActDeps,
  who: Who,
  bytes: Uint8Array,
  opts: ImportOptions,
): Promise<ImportSummary> {
  const officeId = actingOffice(who);
  const file = await readOpenImmo(bytes);
  const summary = emptySummary(file);
  const photos = await importPhotos(file, bytes);
  try {
    await act(deps, who, async (a) => {
      await lockOfficeImport(a.tx, officeId);
      const seen = new Set<string>();
      for (const [i, o] of file.objects.entries()) {
        const done = summary.listings.length;
        await importObject(a, o, seen, summary, opts);
        const written = summary.listings[done];
        const ready = photos.get(o.position);
        if (written && ready) await importedPhotos(a, written, ready, summary);
        opts.onProgress?.(i + 1, file.objects.length);
      }
      if (opts.dryRun || (opts.strict && summary.invalid.length > 0)) throw new Rollback();
    });
    summary.committed = true;
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
  summary.unmapped = unmappedOf(file.objects, summary);
  return summary;
}

function emptySummary(file: OpenImmoFile): ImportSummary {
  return {
    objects: file.objects.length,
    created: 0,
    updated: 0,
    unchanged: 0,
    withdrawn: 0,
    photos: 0,
    invalid: [],
    unmapped: [],
    not_published: [],
    listings: [],
    committed: false,
    encoding: file.encoding,
    container: file.container,
  };
}

/** Gives the object's listing exactly its file's photos; a listing whose photos changed counts as updated. */
async function importedPhotos(
  a: Action,
  written: ImportSummary["listings"][number],
  ready: ReadyPhoto[],
  s: ImportSummary,
): Promise<void> {
  const changed = await replacePhotos(a, written.id, ready);
  s.photos += ready.length;
  if (changed && written.result === "unchanged") {
    written.result = "updated";
    s.unchanged--;
    s.updated++;
  }
}

async function importObject(
  a: Action,
  o: OpenImmoObject,
  seen: Set<string>,
  s: ImportSummary,
  opts: ImportOptions,
): Promise<void> {
  const reject = (reason: string): void => {
    s.invalid.push({ objektnr_extern: o.number, position: o.position, reason });
  };
  if (o.invalid !== undefined || o.number === null) return reject(o.invalid ?? "objektnr_extern is missing");
  if (seen.has(o.number)) return reject("objektnr_extern appears more than once in the file");
  seen.add(o.number);
  const officeId = actingOffice(a);
  const tx = a.tx;
  const row = await findByExternalNumber(tx, officeId, o.number);
  if (o.action === "delete") return await withdraw(a, o.number, row, s, reject);
  const fields = o.fields!;
  const mapped = mapDetails(o.node, fields);
  if ("invalid" in mapped) return reject(mapped.invalid);
  const clash = fields.reference !== null &&
    await referenceTaken(tx, officeId, fields.reference, row?.id ?? null);
  if (clash) return reject(`objektnr_intern "${fields.reference}" is the reference of another listing`);
  if (!row) return await create(a, o.number, fields, mapped.details, s, opts);
  if (row.status === "published" && missingForPublication(fields).length > 0) {
    return reject(`the published listing would lack: ${missingForPublication(fields).join(", ")}`);
  }
  await update(a, o.number, row, fields, mapped.details, s, opts);
}

async function withdraw(
  a: Action,
  number: string,
  row: ImportedRow | undefined,
  s: ImportSummary,
  reject: (reason: string) => void,
): Promise<void> {
  if (!row) return reject("aktion DELETE: no listing of this office has this objektnr_extern");
  if (row.status !== "withdrawn") await makeUnavailable(a, row.id, "withdrawn");
  s.withdrawn++;
  s.listings.push({ objektnr_extern: number, id: row.id, result: "withdrawn", status: "withdrawn" });
}

async function create(
  a: Action,
  number: string,
  fields: ListingColumns,
  details: ListingDetails,
  s: ImportSummary,
  opts: ImportOptions,
): Promise<void> {
  const status = publishable(number, fields, s, opts) ? "published" : "draft";
  const id = await insertImported(a.tx, actingOffice(a), number, fields, status, a.now);
  await saveDetails(a.tx, id, details, details, fields);
  s.created++;
  s.listings.push({ objektnr_extern: number, id, result: "created", status });
}

async function update(
  a: Action,
  number: string,
  row: ImportedRow,
  fields: ListingColumns,
  details: ListingDetails,
  s: ImportSummary,
  opts: ImportOptions,
): Promise<void> {
  const publish = row.status === "draft" && publishable(number, fields, s, opts);
  const current = await officeDetails(a.tx, actingOffice(a), row.id);
  const same = sameColumns(row, fields) && DETAIL_COLUMNS.every((k) => current[k] === details[k]);
  if (!same) {
    await updateImported(a.tx, row.id, fields, a.now);
    await saveDetails(a.tx, row.id, details, current, fields);
  }
  if (publish) await setListingStatus(a.tx, row.id, "published", a.now);
  const result = same && !publish ? "unchanged" : "updated";
  s[result]++;
  s.listings.push({
    objektnr_extern: number,
    id: row.id,
    result,
    status: publish ? "published" : row.status,
  });
}

/** With `publish`: whether the listing can be published; when it cannot, it is named in `not_published`. */
function publishable(number: string, fields: ListingColumns, s: ImportSummary, opts: ImportOptions): boolean {
  if (!opts.publish) return false;
  const missing = missingForPublication(fields);
  if (missing.length > 0) s.not_published.push({ objektnr_extern: number, missing });
  return missing.length === 0;
}

function sameColumns(row: ImportedRow, f: ListingColumns): boolean {
  return COLUMN_KEYS.every((k) => row[k] === f[k]);
}

/** Unmapped element paths of the imported objects, with the objects that had each, most frequent first. */
function unmappedOf(objects: OpenImmoObject[], s: ImportSummary): ImportSummary["unmapped"] {
  const invalid = new Set(s.invalid.map((i) => i.position));
  const found = new Map<string, string[]>();
  for (const o of objects) {
    if (invalid.has(o.position) || o.action === "delete" || o.number === null) continue;
    for (const p of o.unmapped) found.set(p, [...found.get(p) ?? [], o.number]);
  }
  return [...found].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([element, numbers]) => ({
      element,
      objects: numbers.length,
      objektnr_extern: numbers.slice(0, UNMAPPED_NUMBERS),
    }));
}
