/**
 * SQL of the official land-value zones (Bodenrichtwertzonen): inserting a dataset's zones, superseding older
 * values of the same zone, deleting a dataset's zones in batches, the index-backed bounding-box search for a
 * point and a municipality's zones for the median. Lookups read only the zones of ACTIVE datasets
 * (`db/brw_datasets.ts`, migration 0024).
 */
import { type InsertObject, type Selectable, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { BrwZonesTable, Database } from "./schema.ts";

/** A position: `[lng, lat]` in WGS84 or `[easting, northing]` in a projected CRS. */
export type Position = [number, number];

/** A closed ring: at least four positions, the last equal to the first. */
export type Ring = Position[];

/** A polygon: the outer ring first, then its holes. */
export interface PolygonGeometry {
  type: "Polygon";
  coordinates: Ring[];
}

/** Several polygons (each with its holes) that form one zone. */
export interface MultiPolygonGeometry {
  type: "MultiPolygon";
  coordinates: Ring[][];
}

/** The geometry of a land-value zone. */
export type ZoneGeometry = PolygonGeometry | MultiPolygonGeometry;

/**
 * What a zone states, as `brw_zones` stores it ({@linkcode BrwZonesTable}): its land value and what the value
 * applies to (density, use, development state), the zone's name and number and its municipality.
 */
export type ZoneAttributes = Pick<
  Selectable<BrwZonesTable>,
  "brw" | "gfz" | "wgfz" | "nutzung" | "entwicklung" | "zone_name" | "zone_number" | "municipality_name"
>;

/**
 * One zone to store: its attributes (use code and development state upper case) and its WGS84 geometry with
 * bounding box.
 */
export interface BrwZoneInput extends ZoneAttributes {
  municipality_key: string | null;
  geometry: ZoneGeometry;
  min_lat: number;
  max_lat: number;
  min_lng: number;
  max_lng: number;
  /** The zone's own Stichtag (`YYYY-MM-DD`); the insert's default Stichtag when absent. */
  stichtag?: string | undefined;
  /** The zone's identity across Stichtage (see migration 0024); none: never superseded. */
  zone_key?: string | null | undefined;
}

/** The dataset zones are inserted into. */
export interface DatasetRef {
  /** The dataset id (a string on both drivers). */
  id: string;
  /** Its two-letter state code. */
  state: string;
}

/** Keeps one INSERT statement well below a few MB of geometry text. */
const MAX_BATCH_CHARS = 4_000_000;
/** Rows per INSERT statement at most. */
const MAX_BATCH_ROWS = 1000;

type InsertRow = InsertObject<Database, "brw_zones">;

/**
 * Inserts `zones` into `dataset`, in as few statements as the size limits allow (each statement its own
 * transaction unless `db` runs inside one). `stichtag` is the Stichtag of zones that carry none of their own.
 */
export async function insertZones(
  db: Db,
  dataset: DatasetRef,
  zones: readonly BrwZoneInput[],
  stichtag?: string,
): Promise<void> {
  let batch: InsertRow[] = [];
  let chars = 0;
  for (const z of zones) {
    const geometry = JSON.stringify(z.geometry);
    if (batch.length > 0 && (batch.length >= MAX_BATCH_ROWS || chars + geometry.length > MAX_BATCH_CHARS)) {
      await db.kysely.insertInto("brw_zones").values(batch).execute();
      batch = [];
      chars = 0;
    }
    batch.push(insertRow(dataset, z, z.stichtag ?? stichtag, geometry));
    chars += geometry.length;
  }
  if (batch.length > 0) await db.kysely.insertInto("brw_zones").values(batch).execute();
}

function insertRow(
  dataset: DatasetRef,
  z: BrwZoneInput,
  stichtag: string | undefined,
  geometry: string,
): InsertRow {
  if (stichtag === undefined) throw new TypeError("insertZones: a zone without a Stichtag");
  return {
    dataset_id: dataset.id,
    zone_key: z.zone_key ?? null,
    state: dataset.state,
    stichtag,
    brw: z.brw,
    gfz: z.gfz,
    wgfz: z.wgfz,
    nutzung: z.nutzung,
    entwicklung: z.entwicklung,
    zone_name: z.zone_name,
    zone_number: z.zone_number,
    municipality_name: z.municipality_name,
    municipality_key: z.municipality_key,
    // Sent as text and cast in SQL: a jsonb-typed parameter would be JSON-encoded again by postgres.js.
    geometry: sql<string>`${geometry}::text::jsonb`,
    min_lat: z.min_lat,
    max_lat: z.max_lat,
    min_lng: z.min_lng,
    max_lng: z.max_lng,
  };
}

/**
 * Deletes the zones of dataset `datasetId` whose zone key also has a zone with a later Stichtag in the same
 * dataset (a file holding several Stichtage keeps the newest value per zone); returns how many were deleted.
 */
export async function deleteSupersededZones(db: Db, datasetId: string): Promise<number> {
  const r = await db.kysely.deleteFrom("brw_zones as z")
    .where("z.dataset_id", "=", datasetId)
    .where("z.zone_key", "is not", null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom("brw_zones as n").select(sql`1`.as("one"))
          .where("n.dataset_id", "=", datasetId)
          .whereRef("n.zone_key", "=", "z.zone_key")
          .whereRef("n.stichtag", ">", "z.stichtag"),
      )
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The number of zones and the newest Stichtag (`YYYY-MM-DD`, null without zones) of a dataset. */
export async function datasetZoneStats(
  db: Db,
  datasetId: string,
): Promise<{ zones: number; stichtag: string | null }> {
  return await db.kysely.selectFrom("brw_zones")
    .select([
      sql<number>`count(*)::int`.as("zones"),
      sql<string | null>`to_char(max(stichtag), 'YYYY-MM-DD')`.as("stichtag"),
    ])
    .where("dataset_id", "=", datasetId)
    .executeTakeFirstOrThrow();
}

/**
 * Deletes up to `limit` zones of dataset `datasetId` in one statement; returns how many went. Called in a loop,
 * so that deleting a replaced dataset of 500,000 zones never holds one long transaction.
 */
export async function deleteDatasetZones(db: Db, datasetId: string, limit = 20_000): Promise<number> {
  const r = await db.kysely.deleteFrom("brw_zones")
    .where(
      "id",
      "in",
      (q) => q.selectFrom("brw_zones").select("id").where("dataset_id", "=", datasetId).limit(limit),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** A stored zone as the lookups see it, with its dataset's source and licence. */
export interface StoredZone extends ZoneAttributes {
  /** The row id (as a string on both drivers); a stable tiebreak. */
  id: string;
  state: string;
  /** `YYYY-MM-DD`. */
  stichtag: string;
  /** Who published the value (the dataset's source). */
  source: string;
  /** Where it was published, when known. */
  source_url: string | null;
  /** The dataset's licence, e.g. `dl-de/by-2-0`. */
  licence: string;
}

/**
 * The columns of a {@linkcode StoredZone} from `brw_zones z` joined with its dataset `d`. The lookups are written
 * as SQL text: building them with kysely's query builder cost about 0.1 ms per call, a third of the point lookup
 * (docs/architecture.md §11.19).
 */
const ZONE_COLUMNS =
  sql`z.id::text as id, z.state, to_char(z.stichtag, 'YYYY-MM-DD') as stichtag, z.brw::float8 as brw,
  z.gfz::float8 as gfz, z.wgfz::float8 as wgfz, z.nutzung, z.entwicklung, z.zone_name, z.zone_number,
  z.municipality_name, d.source, d.source_url, d.licence`;

/**
 * Zones of active datasets whose bounding box contains the point (lat, lng), with their geometry: a GiST index
 * search, so the result is a small superset of the zones that really contain the point (test each with
 * `containsPoint`).
 */
export async function zonesWithBoxAt(
  db: Db,
  lat: number,
  lng: number,
): Promise<Array<StoredZone & { geometry: ZoneGeometry }>> {
  const r = await sql<StoredZone & { geometry: ZoneGeometry }>`
    select ${ZONE_COLUMNS}, z.geometry
    from brw_zones z join brw_datasets d on d.id = z.dataset_id
    where d.status = 'active'
      and z.bbox @> box(point(${lng}::float8, ${lat}::float8), point(${lng}::float8, ${lat}::float8))`
    .execute(db.kysely);
  return r.rows;
}

/**
 * The zones of a municipality, matched by normalised name (`city_key`) and optionally by state, keeping for each
 * (state, use, development state) only the rows of its latest Stichtag — the only rows a median can use.
 */
export async function latestMunicipalityZones(
  db: Db,
  municipality: string,
  state: string | undefined,
): Promise<StoredZone[]> {
  const r = await sql<StoredZone>`
    select id, state, stichtag, brw, gfz, wgfz, nutzung, entwicklung, zone_name, zone_number, municipality_name,
      source, source_url, licence
    from (
      select ${ZONE_COLUMNS},
        z.stichtag = max(z.stichtag) over (partition by z.state, z.nutzung, z.entwicklung) as latest
      from brw_zones z join brw_datasets d on d.id = z.dataset_id
      where d.status = 'active' and z.municipality_norm = city_key(${municipality})
        ${state === undefined ? sql`` : sql`and z.state = ${state}`}
    ) m
    where latest
    order by id::bigint`.execute(db.kysely);
  return r.rows;
}

function activeZones(db: Db) {
  return db.kysely.selectFrom("brw_zones as z")
    .innerJoin("brw_datasets as d", "d.id", "z.dataset_id")
    .where("d.status", "=", "active");
}

/** Number of zones of active datasets, optionally of one state and Stichtag. */
export async function countZones(
  db: Db,
  filter: { state?: string; stichtag?: string } = {},
): Promise<number> {
  let q = activeZones(db).select(sql<number>`count(*)::int`.as("n"));
  if (filter.state !== undefined) q = q.where("z.state", "=", filter.state);
  if (filter.stichtag !== undefined) q = q.where("z.stichtag", "=", filter.stichtag);
  return (await q.executeTakeFirstOrThrow()).n;
}
