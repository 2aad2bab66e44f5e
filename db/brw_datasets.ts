/**
 * SQL of the land-value datasets (migration 0024): one row per import with its state, Stichtag, source, licence
 * and zone count. A dataset is LOADING while its zones are inserted, ACTIVE once it replaced the state's previous
 * dataset (one short transaction), REPLACED afterwards until its zones are deleted.
 */
import { sql } from "kysely";
import type { Db } from "./connection.ts";
import {
  type BrwZoneInput,
  datasetZoneStats,
  deleteDatasetZones,
  deleteSupersededZones,
  insertZones,
} from "./brw_zones.ts";
import type { BrwDatasetStatus } from "./schema.ts";

export type { BrwDatasetStatus } from "./schema.ts";

/** What an import records about its origin. */
export interface DatasetOrigin {
  /** Two-letter state code. */
  state: string;
  /** Who published the values (named wherever a value is shown). */
  source: string;
  /** Where they were published, when known. */
  sourceUrl: string | null;
  /** A licence identifier such as `dl-de/by-2-0`, or the licence's name. */
  licence: string;
  /** The file layout it was read from. */
  layout: string;
  /** The file's name (no folders), when it came from a file. */
  fileName: string | null;
  /** The file's SHA-256 in hex, when it came from a file. */
  fileSha256: string | null;
}

/** A dataset as listed: its origin, where it stands and what it holds. */
export interface DatasetRow extends DatasetOrigin {
  /** The id (a string on both drivers). */
  id: string;
  status: BrwDatasetStatus;
  /** The newest Stichtag of its zones (`YYYY-MM-DD`); null while loading. */
  stichtag: string | null;
  zoneCount: number;
  /** When the import started (ISO 8601). */
  createdAt: string;
  /** When it became active (ISO 8601); null while loading. */
  importedAt: string | null;
}

const LOCK = 72_451_302;

const DATASET_COLUMNS = [
  sql<string>`id::text`.as("id"),
  "state",
  "status",
  sql<string | null>`to_char(stichtag, 'YYYY-MM-DD')`.as("stichtag"),
  "source",
  sql<string | null>`source_url`.as("sourceUrl"),
  "licence",
  "layout",
  sql<string | null>`file_name`.as("fileName"),
  sql<string | null>`file_sha256`.as("fileSha256"),
  sql<number>`zone_count`.as("zoneCount"),
  sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`.as("createdAt"),
  sql<string | null>`to_char(imported_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`.as("importedAt"),
] as const;

/** Records a new LOADING dataset of `origin` and returns its id. */
export async function createLoadingDataset(db: Db, origin: DatasetOrigin): Promise<string> {
  const row = await db.kysely.insertInto("brw_datasets")
    .values({
      state: origin.state,
      source: origin.source,
      source_url: origin.sourceUrl,
      licence: origin.licence,
      layout: origin.layout,
      file_name: origin.fileName,
      file_sha256: origin.fileSha256,
    })
    .returning(sql<string>`id::text`.as("id"))
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes the zones of a loading dataset that a later Stichtag of the same zone supersedes; returns the count. */
export function deleteSuperseded(db: Db, datasetId: string): Promise<number> {
  return deleteSupersededZones(db, datasetId);
}

/** The dataset `id`, or undefined. */
export async function datasetById(db: Db, id: string): Promise<DatasetRow | undefined> {
  return await db.kysely.selectFrom("brw_datasets").select(DATASET_COLUMNS).where("id", "=", id)
    .executeTakeFirst() as DatasetRow | undefined;
}

/** The loading dataset about to become active: its zones and newest Stichtag. */
export interface Incoming {
  zones: number;
  /** `YYYY-MM-DD`. */
  stichtag: string;
}

/** The result of {@linkcode activateDataset}. */
export type Activation =
  | { activated: true; dataset: DatasetRow; replaced: DatasetRow | undefined }
  | { activated: false; incoming: Incoming; current: DatasetRow };

/**
 * In ONE transaction, serialised per state: counts the loading dataset's zones, asks `accept` whether it may
 * replace the state's active dataset (`current`, if any), and if so marks the current one REPLACED and the new
 * one ACTIVE with its zone count, newest Stichtag and the time. Lookups switch over at the commit; a refusal
 * changes nothing. Throws when the dataset has no zones or is not loading.
 */
export async function activateDataset(
  db: Db,
  id: string,
  accept: (incoming: Incoming, current: DatasetRow) => boolean,
): Promise<Activation> {
  return await db.kysely.transaction().execute(async (tx) => {
    const txDb: Db = { ...db, kysely: tx };
    const loading = await tx.selectFrom("brw_datasets").select(["state", "status"]).where("id", "=", id)
      .executeTakeFirst();
    if (!loading || loading.status !== "loading") throw new Error(`dataset ${id} is not loading`);
    await sql`select pg_advisory_xact_lock(${LOCK}, hashtext(${loading.state}))`.execute(tx);
    const stats = await datasetZoneStats(txDb, id);
    if (stats.stichtag === null) throw new Error(`dataset ${id} has no zones`);
    const incoming = { zones: stats.zones, stichtag: stats.stichtag };
    const current = await tx.selectFrom("brw_datasets").select(DATASET_COLUMNS)
      .where("state", "=", loading.state).where("status", "=", "active").executeTakeFirst() as
        | DatasetRow
        | undefined;
    if (current && !accept(incoming, current)) return { activated: false, incoming, current };
    if (current) {
      await tx.updateTable("brw_datasets").set({ status: "replaced" }).where("id", "=", current.id).execute();
    }
    await tx.updateTable("brw_datasets")
      .set({ status: "active", stichtag: stats.stichtag, zone_count: stats.zones, imported_at: sql`now()` })
      .where("id", "=", id).execute();
    const dataset = await tx.selectFrom("brw_datasets").select(DATASET_COLUMNS).where("id", "=", id)
      .executeTakeFirstOrThrow() as DatasetRow;
    return { activated: true, dataset, replaced: current && { ...current, status: "replaced" as const } };
  });
}

/** Takes `state`'s active dataset out of the lookups and deletes it; returns the zones deleted (0: none was active). */
export async function retireActiveDataset(db: Db, state: string): Promise<number> {
  const retired = await db.kysely.updateTable("brw_datasets").set({ status: "replaced" })
    .where("state", "=", state).where("status", "=", "active")
    .returning(sql<string>`id::text`.as("id")).executeTakeFirst();
  return retired ? await deleteDataset(db, retired.id) : 0;
}

/** Deletes a dataset that is not active: its zones in batches, then the row. Returns the zones deleted. */
export async function deleteDataset(db: Db, id: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await deleteDatasetZones(db, id);
    deleted += n;
    if (n === 0) break;
  }
  await db.kysely.deleteFrom("brw_datasets").where("id", "=", id).where("status", "<>", "active").execute();
  return deleted;
}

/**
 * Deletes the REPLACED datasets of `state`, and LOADING ones whose import started more than `staleHours` ago (a
 * crashed import); returns how many datasets went.
 */
export async function purgeDatasets(db: Db, state: string, staleHours = 24): Promise<number> {
  const rows = await db.kysely.selectFrom("brw_datasets").select(sql<string>`id::text`.as("id"))
    .where("state", "=", state)
    .where((eb) =>
      eb.or([
        eb("status", "=", "replaced"),
        eb.and([
          eb("status", "=", "loading"),
          eb("created_at", "<", sql<Date>`now() - make_interval(hours => ${staleHours})`),
        ]),
      ])
    )
    .execute();
  for (const r of rows) await deleteDataset(db, r.id);
  return rows.length;
}

/** The datasets, newest first: the active ones, or with `all` also the loading and replaced ones. */
export async function listDatasets(
  db: Db,
  filter: { state?: string; all?: boolean } = {},
): Promise<DatasetRow[]> {
  let q = db.kysely.selectFrom("brw_datasets").select(DATASET_COLUMNS);
  if (!filter.all) q = q.where("status", "=", "active");
  if (filter.state !== undefined) q = q.where("state", "=", filter.state);
  return await q.orderBy("state").orderBy("id", "desc").execute() as DatasetRow[];
}

/** A state's land values held in memory: the zones of a small set (sample data, tests). */
export interface ZoneSet {
  /** Two-letter state code. */
  state: string;
  /** `YYYY-MM-DD`: the Stichtag of zones that carry none of their own. */
  stichtag: string;
  source: string;
  licence: string;
  /** Where the source published them. */
  sourceUrl?: string | null;
  zones: readonly BrwZoneInput[];
}

/**
 * Replaces `set.state`'s land values by `set.zones` as one new dataset (layout `memory`): loads it, keeps the
 * newest Stichtag per zone key, activates it whatever the current one's Stichtag, deletes the replaced one. No
 * zones: the state's dataset is retired (the state has no land values then).
 * Returns the zones inserted and the zone count of the dataset it replaced. For small sets; files go through
 * `valuation/brw_import.ts`.
 */
export async function replaceZones(db: Db, set: ZoneSet): Promise<{ deleted: number; inserted: number }> {
  if (set.zones.length === 0) return { deleted: await retireActiveDataset(db, set.state), inserted: 0 };
  const id = await createLoadingDataset(db, {
    state: set.state,
    source: set.source,
    sourceUrl: set.sourceUrl ?? null,
    licence: set.licence,
    layout: "memory",
    fileName: null,
    fileSha256: null,
  });
  try {
    await insertZones(db, { id, state: set.state }, set.zones, set.stichtag);
    await deleteSupersededZones(db, id);
    const a = await activateDataset(db, id, () => true);
    if (!a.activated) throw new Error("unreachable: replaceZones accepts every dataset");
    if (a.replaced) await deleteDataset(db, a.replaced.id);
    return { deleted: a.replaced?.zoneCount ?? 0, inserted: a.dataset.zoneCount };
  } catch (e) {
    await deleteDataset(db, id).catch(() => {});
    throw e;
  }
}
