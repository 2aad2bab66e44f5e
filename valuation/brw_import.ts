/**
 * Import of an official land-value file (Bodenrichtwerte) as one dataset of a state.
 *
 * The file streams through a reader of its kind (`formats/layouts.ts`) and the attribute mapping of its layout;
 * every feature becomes a zone (`brw_zone.ts`) and zones go to the database in batches of
 * {@linkcode BATCH_ZONES} into a LOADING dataset (one batch inserted while the next is read), so neither the
 * file nor its zones need to fit in memory. Then:
 * the older values of zones that the file holds with several Stichtage are deleted (newest per zone key), and one
 * short transaction makes the dataset the state's active one — only if its newest Stichtag is not older than the
 * active dataset's (else `older_stichtag`, unless `allowOlder`). A re-import of the same file therefore replaces
 * the state's dataset with an identical one (idempotent), and lookups switch from the old values to the new ones
 * at that commit, never seeing a half-loaded file. Any failure deletes the loading dataset: nothing of the file
 * stays. The replaced dataset's zones are deleted afterwards in batches.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import {
  activateDataset,
  createLoadingDataset,
  type DatasetRow,
  deleteDataset,
  deleteSuperseded,
  purgeDatasets,
} from "../db/brw_datasets.ts";
import { insertZones } from "../db/brw_zones.ts";
import type { Db } from "../db/connection.ts";
import { AppError } from "../errors.ts";
import { BrwImportError, fail } from "./brw_errors.ts";
import { type DatasetSource, INVENTED_MARKER, INVENTED_SOURCE, STATE_SOURCES } from "./brw_sources.ts";
import { toZone, type ZoneContext, type ZoneRecord } from "./brw_zone.ts";
import { type CrsRef, crsRef } from "./crs.ts";
import type { SourceFeature } from "./formats/feature.ts";
import {
  chooseMapping,
  type FileInfo,
  type FileKind,
  type LayoutId,
  readFeatures,
  sniff,
} from "./formats/layouts.ts";
import { NON_RELEASING_STATES, STATE_CODES, type StateCode } from "./states.ts";

export { type StateCode } from "./states.ts";
export { INVENTED_MARKER } from "./brw_sources.ts";
export type { ZoneRecord } from "./brw_zone.ts";

/** States whose land values we have no licence to reuse (docs/contract.md §3.3); imports for them are refused. */
export const REFUSED_STATES = NON_RELEASING_STATES;

/** Zones per INSERT batch. */
export const BATCH_ZONES = 1000;

/** The state `code` (any case) accepted for import; throws AppError for unknown codes and the four refused states. */
export function importState(code: string): StateCode {
  const upper = code.trim().toUpperCase();
  const state = STATE_CODES.find((s) => s === upper);
  if (!state) {
    throw new AppError("invalid_request", {
      hint: `unknown state ${JSON.stringify(code)}: use one of ${STATE_CODES.join(", ")}`,
    });
  }
  if (REFUSED_STATES.has(state)) {
    throw new AppError("invalid_request", {
      hint:
        `${state}: refused, no licence to reuse its Bodenrichtwerte (BW, SL and SH release them for viewing ` +
        "only, BY only to registered expert committees); the location baseline answers `none` there",
    });
  }
  return state;
}

/** How to read a file. */
export interface ReadOptions {
  /** The state the file belongs to (from {@linkcode importState}). */
  state: StateCode;
  /** The CRS from the command line, for files whose CRS travels outside them. */
  crs?: CrsRef | undefined;
  /** Called as the file is read, with the bytes (or records) done and the total. */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** What reading a file found besides its zones. */
export interface ReadSummary {
  layout: LayoutId | undefined;
  features: number;
  /** Features without a land value (BRW empty or 0), skipped. */
  noValue: number;
  /** Features of other states (by municipality key), skipped, by state. */
  otherStates: Record<string, number>;
  /** Distinct Stichtage of the zones. */
  stichtage: Set<string>;
  /** Whether the file marks itself as invented data ("ERFUNDENE TESTDATEN"). */
  invented: boolean;
}

/** The zones of the file at `path`, streamed; `summary` is filled as they come. */
export async function* readZones(
  path: string,
  opts: ReadOptions,
  summary: ReadSummary,
): AsyncGenerator<ZoneRecord> {
  const file = await sniff(path);
  const info: FileInfo = {};
  const features = readFeatures(path, file, info, opts.onProgress);
  let ctx: ZoneContext | undefined;
  let mapping: ReturnType<typeof chooseMapping>["mapping"] | undefined;
  for await (const f of features) {
    if (!mapping) {
      const chosen = chooseMapping(file.kind, f);
      mapping = chosen.mapping;
      summary.layout = chosen.layout;
      ctx = { state: opts.state, given: opts.crs, fallback: fallbackCrs(file.kind) };
      summary.invented = (info.name ?? "").includes(INVENTED_MARKER) || marksInvented(f);
    }
    summary.features++;
    const outcome = toZone(f, mapping.read(f), ctx!);
    if (outcome.kind === "no_value") summary.noValue++;
    else if (outcome.kind === "other_state") {
      summary.otherStates[outcome.state] = (summary.otherStates[outcome.state] ?? 0) + 1;
    } else {
      summary.stichtage.add(outcome.zone.stichtag);
      yield outcome.zone;
    }
  }
}

/** A new, empty summary. */
export function newSummary(): ReadSummary {
  return {
    layout: undefined,
    features: 0,
    noValue: 0,
    otherStates: {},
    stichtage: new Set(),
    invented: false,
  };
}

/** GeoJSON and OGC API default to CRS84 (lon, lat); Brandenburg's CSV to EPSG:25833; GML must name its CRS. */
function fallbackCrs(kind: FileKind): CrsRef | undefined {
  if (kind === "json") return crsRef("CRS84");
  if (kind === "csv") return crsRef("EPSG:25833");
  return undefined;
}

function marksInvented(f: SourceFeature): boolean {
  for (const a of f.attributes.values()) {
    if (typeof a.value === "string" && a.value.includes(INVENTED_MARKER)) return true;
  }
  return false;
}

/** An import: the file, its state, and what the command line says about origin and licence. */
export interface ImportOptions extends ReadOptions {
  path: string;
  /** Publisher named with the values (default: the state's, see `brw_sources.ts`). */
  source?: string | undefined;
  sourceUrl?: string | undefined;
  licence?: string | undefined;
  /** Replace the state's dataset even when the file's Stichtag is older. */
  allowOlder?: boolean | undefined;
}

/** The outcome of an import. */
export interface ImportResult extends Omit<ReadSummary, "stichtage"> {
  dataset: DatasetRow;
  replaced: DatasetRow | undefined;
  /** Older values of the same zones deleted (newest Stichtag per zone). */
  superseded: number;
}

/**
 * Imports the file `opts.path` as the new dataset of `opts.state`. Throws a {@linkcode BrwImportError} (problem
 * and location) for a file that cannot be imported; nothing of it stays then.
 */
export async function importBrwFile(db: Db, opts: ImportOptions): Promise<ImportResult> {
  const name = basename(opts.path);
  const sha = await fileSha256(opts.path);
  const summary = newSummary();
  let datasetId: string | undefined;
  // One batch is inserted while the next one is read: reading is this process's work, inserting the server's.
  let inFlight: Promise<void> = Promise.resolve();
  try {
    let batch: ZoneRecord[] = [];
    const flush = async () => {
      const zones = batch;
      batch = [];
      datasetId ??= await createLoadingDataset(db, {
        state: opts.state,
        ...origin(opts, summary.invented, name),
        layout: summary.layout ?? "unknown",
        fileName: name.slice(0, 500),
        fileSha256: sha,
      });
      await inFlight;
      inFlight = insertZones(db, { id: datasetId, state: opts.state }, zones);
      inFlight.catch(() => {}); // awaited before the next batch and at the end
    };
    for await (const zone of readZones(opts.path, opts, summary)) {
      batch.push(zone);
      if (batch.length >= BATCH_ZONES) await flush();
    }
    if (batch.length > 0) await flush();
    await inFlight;
    if (datasetId === undefined) fail({ code: "no_zones", features: summary.features });
    const superseded = summary.stichtage.size > 1 ? await deleteSuperseded(db, datasetId) : 0;
    const activation = await activateDataset(
      db,
      datasetId,
      (incoming, current) =>
        opts.allowOlder === true || current.stichtag === null || incoming.stichtag >= current.stichtag,
    );
    if (!activation.activated) {
      fail({
        code: "older_stichtag",
        stichtag: activation.incoming.stichtag,
        active: activation.current.stichtag ?? "?",
        dataset: activation.current.id,
      });
    }
    datasetId = undefined;
    await purgeDatasets(db, opts.state);
    const { stichtage: _, ...rest } = summary;
    return { ...rest, dataset: activation.dataset, replaced: activation.replaced, superseded };
  } catch (e) {
    await inFlight.catch(() => {});
    if (datasetId !== undefined) await deleteDataset(db, datasetId).catch(() => {});
    throw e instanceof BrwImportError ? e.inFile(name) : e;
  }
}

/** Source and licence: the flags, else invented-data labels for our fixtures, else the state's defaults. */
function origin(opts: ImportOptions, invented: boolean, name: string): DatasetSource {
  const fallback: DatasetSource | undefined = invented
    ? { source: INVENTED_SOURCE.source(name), sourceUrl: null, licence: INVENTED_SOURCE.licence }
    : STATE_SOURCES[opts.state];
  const licence = opts.licence ?? fallback?.licence;
  const source = opts.source ?? fallback?.source;
  if (licence === undefined || source === undefined) fail({ code: "no_licence", state: opts.state });
  return {
    source: source.slice(0, 500),
    sourceUrl: opts.sourceUrl ?? (opts.source === undefined ? fallback?.sourceUrl ?? null : null),
    licence: licence.slice(0, 200),
  };
}

/** The SHA-256 of a file in hex, read in chunks. */
async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of (await Deno.open(path)).readable) hash.update(chunk);
  return hash.digest("hex");
}
