/**
 * SQL of the official land values (Bodenrichtwerte): replacing one state's zones of one Stichtag, the
 * index-backed bounding-box search for a point, and a municipality's zones for the median.
 */
import { type InsertObject, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";

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

/** One zone to store: its attributes and its WGS84 geometry with bounding box. */
export interface BrwZoneInput {
  /** Land value in euro per m². */
  brw: number;
  gfz: number | null;
  wgfz: number | null;
  /** VBORIS use code (NUTA/ART), upper case. */
  nutzung: string | null;
  /** VBORIS development state (ENTW), upper case. */
  entwicklung: string | null;
  zone_name: string | null;
  zone_number: string | null;
  municipality_name: string | null;
  municipality_key: string | null;
  geometry: ZoneGeometry;
  min_lat: number;
  max_lat: number;
  min_lng: number;
  max_lng: number;
}

/** All zones of one state for one Stichtag, with their source and licence. */
export interface ZoneSet {
  /** Two-letter state code. */
  state: string;
  /** `YYYY-MM-DD`. */
  stichtag: string;
  source: string;
  licence: string;
  zones: readonly BrwZoneInput[];
}

/** How {@linkcode replaceZones} reports progress. */
export interface ReplaceOptions {
  /** Called after each batch with the number of zones inserted so far. */
  onProgress?: ((inserted: number) => void) | undefined;
  /** Rows per INSERT statement (default 500). */
  batchSize?: number | undefined;
}

const LOCK = 72_451_302;
/** Keeps one INSERT statement well below a few MB of geometry text. */
const MAX_BATCH_CHARS = 4_000_000;

/**
 * Replaces the zones of `set.state` with Stichtag `set.stichtag` by `set.zones` in ONE transaction: the old rows
 * are deleted and the new ones inserted in batches; any failure rolls everything back and leaves the previous
 * zones untouched. Concurrent replacements of the same state and Stichtag are serialised.
 */
export async function replaceZones(
  db: Db,
  set: ZoneSet,
  opts: ReplaceOptions = {},
): Promise<{ deleted: number; inserted: number }> {
  return await db.kysely.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${LOCK}, hashtext(${`${set.state}/${set.stichtag}`}))`.execute(tx);
    const del = await tx.deleteFrom("brw_zones")
      .where("state", "=", set.state).where("stichtag", "=", set.stichtag).executeTakeFirst();
    let inserted = 0;
    for (const batch of batches(set, opts.batchSize ?? 500)) {
      await tx.insertInto("brw_zones").values(batch).execute();
      inserted += batch.length;
      opts.onProgress?.(inserted);
    }
    return { deleted: Number(del.numDeletedRows), inserted };
  });
}

type InsertRow = InsertObject<Database, "brw_zones">;

function* batches(set: ZoneSet, size: number): Generator<InsertRow[]> {
  let batch: InsertRow[] = [];
  let chars = 0;
  for (const z of set.zones) {
    const geometry = JSON.stringify(z.geometry);
    if (batch.length > 0 && (batch.length >= size || chars + geometry.length > MAX_BATCH_CHARS)) {
      yield batch;
      batch = [];
      chars = 0;
    }
    batch.push({
      state: set.state,
      stichtag: set.stichtag,
      brw: z.brw,
      gfz: z.gfz,
      wgfz: z.wgfz,
      nutzung: z.nutzung,
      entwicklung: z.entwicklung,
      zone_name: z.zone_name,
      zone_number: z.zone_number,
      municipality_name: z.municipality_name,
      municipality_key: z.municipality_key,
      source: set.source,
      licence: set.licence,
      // Sent as text and cast in SQL: a jsonb-typed parameter would be JSON-encoded again by postgres.js.
      geometry: sql<string>`${geometry}::text::jsonb`,
      min_lat: z.min_lat,
      max_lat: z.max_lat,
      min_lng: z.min_lng,
      max_lng: z.max_lng,
    });
    chars += geometry.length;
  }
  if (batch.length > 0) yield batch;
}

/** A stored zone as the lookups see it. */
export interface StoredZone {
  /** The row id (as a string on both drivers); a stable tiebreak. */
  id: string;
  state: string;
  /** `YYYY-MM-DD`. */
  stichtag: string;
  brw: number;
  gfz: number | null;
  wgfz: number | null;
  nutzung: string | null;
  entwicklung: string | null;
  zone_name: string | null;
  zone_number: string | null;
  municipality_name: string | null;
  source: string;
  licence: string;
}

const ZONE_COLUMNS = [
  sql<string>`id::text`.as("id"),
  "state",
  sql<string>`to_char(stichtag, 'YYYY-MM-DD')`.as("stichtag"),
  sql<number>`brw::float8`.as("brw"),
  sql<number | null>`gfz::float8`.as("gfz"),
  sql<number | null>`wgfz::float8`.as("wgfz"),
  "nutzung",
  "entwicklung",
  "zone_name",
  "zone_number",
  "municipality_name",
  "source",
  "licence",
] as const;

/**
 * Zones whose bounding box contains the point (lat, lng), with their geometry: a GiST index search, so the result
 * is a small superset of the zones that really contain the point (test each with `containsPoint`).
 */
export async function zonesWithBoxAt(
  db: Db,
  lat: number,
  lng: number,
): Promise<Array<StoredZone & { geometry: ZoneGeometry }>> {
  const rows = await db.kysely.selectFrom("brw_zones")
    .select([...ZONE_COLUMNS, "geometry"])
    .where(
      sql<boolean>`bbox @> box(point(${lng}::float8, ${lat}::float8), point(${lng}::float8, ${lat}::float8))`,
    )
    .execute();
  return rows as Array<StoredZone & { geometry: ZoneGeometry }>;
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
  let inner = db.kysely.selectFrom("brw_zones")
    .select([
      ...ZONE_COLUMNS,
      sql<boolean>`stichtag = max(stichtag) over (partition by state, nutzung, entwicklung)`.as("latest"),
    ])
    .where("municipality_norm", "=", sql<string>`city_key(${municipality})`);
  if (state !== undefined) inner = inner.where("state", "=", state);
  const rows = await db.kysely.selectFrom(inner.as("z")).selectAll().where("latest", "=", true)
    .orderBy(sql`id::bigint`).execute();
  return rows.map(({ latest: _latest, ...z }) => z as StoredZone);
}

/** Number of stored zones, optionally of one state and Stichtag. */
export async function countZones(
  db: Db,
  filter: { state?: string; stichtag?: string } = {},
): Promise<number> {
  let q = db.kysely.selectFrom("brw_zones").select(sql<number>`count(*)::int`.as("n"));
  if (filter.state !== undefined) q = q.where("state", "=", filter.state);
  if (filter.stichtag !== undefined) q = q.where("stichtag", "=", filter.stichtag);
  return (await q.executeTakeFirstOrThrow()).n;
}
