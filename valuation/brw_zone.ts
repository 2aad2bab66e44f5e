/**
 * One feature of a land-value file → one zone ready to store: the values read and checked, the geometry closed,
 * put in lon/lat order, converted to WGS84 and checked to lie in Germany (else the CRS or the axis order does
 * not fit the coordinates: the zone must lie within its state's bounding box, 0.1° to spare), the zone key for
 * "newest Stichtag per zone".
 *
 * A feature without a land value (BRW empty or 0: restructuring areas, zones shown without a value) and a
 * feature whose municipality key belongs to another state (a WFS answer cut by a bounding box around Bremen
 * holds Lower Saxony's zones too) are skipped and counted, not errors. Everything else that does not fit fails
 * the whole file with the feature and the reason.
 */
import type { BrwZoneInput } from "../db/brw_zones.ts";
import { BrwImportError, fail } from "./brw_errors.ts";
import type { CrsRef } from "./crs.ts";
import { locationOf, type SourceFeature } from "./formats/feature.ts";
import type { ZoneAttributes } from "./formats/layout.ts";
import {
  dateOf,
  developmentOf,
  municipalityKeyOf,
  numberOf,
  ratioOf,
  textOf,
  useCodeOf,
} from "./formats/values.ts";
import { bboxOf, toZoneGeometry, type ZoneGeometry } from "./geometry.ts";
import { toWgs84 } from "./reproject.ts";
import { STATE_BOUNDS, STATE_BY_KEY_PREFIX, type StateCode } from "./states.ts";
import { AppError } from "../errors.ts";

/** A zone of an import: attributes, WGS84 geometry and bounding box, its Stichtag and zone key. */
export interface ZoneRecord extends BrwZoneInput {
  /** `YYYY-MM-DD`. */
  stichtag: string;
  zone_key: string | null;
}

/** How the features of one file are read. */
export interface ZoneContext {
  state: StateCode;
  /** The CRS given on the command line (`--crs`), if any. */
  given: CrsRef | undefined;
  /** The CRS when neither the file nor `--crs` names one (undefined: the file must name it). */
  fallback: CrsRef | undefined;
}

/** What became of a feature. */
export type ZoneOutcome =
  | { kind: "zone"; zone: ZoneRecord }
  | { kind: "no_value" }
  | { kind: "other_state"; state: string };

/**
 * How far (degrees) a zone may reach beyond its state's bounding box: zones of a border municipality, and the
 * simplified borders. Farther means a wrong CRS or axis order (EPSG:25832 read as 25833 moves a zone 6° east).
 */
const STATE_MARGIN = 0.1;

/** The zone of feature `f` whose attributes `a` its layout found; throws a located {@linkcode BrwImportError}. */
export function toZone(f: SourceFeature, a: ZoneAttributes, ctx: ZoneContext): ZoneOutcome {
  try {
    return zoneOf(f, a, ctx);
  } catch (e) {
    if (e instanceof BrwImportError && e.at.feature === undefined) {
      throw new BrwImportError(e.problem, { ...locationOf(f), ...e.at });
    }
    throw e;
  }
}

function zoneOf(f: SourceFeature, a: ZoneAttributes, ctx: ZoneContext): ZoneOutcome {
  const brw = numberOf(a.brw);
  if (brw === null || brw === 0) return { kind: "no_value" };
  const stichtag = dateOf(a.stichtag);
  if (stichtag === null) fail({ code: "missing_field", field: a.stichtag?.name ?? "Stichtag" });
  const key = municipalityKeyOf(a.municipalityKey);
  const keyState = key ? STATE_BY_KEY_PREFIX[key.slice(0, 2)] : undefined;
  if (key && keyState !== ctx.state) return { kind: "other_state", state: keyState ?? key.slice(0, 2) };
  const geometry = wgs84Geometry(f, ctx);
  const box = bboxOf(geometry);
  const zoneNumber = textOf(a.zoneNumber, 50);
  const municipality = textOf(a.municipalityName, 200);
  const zone: ZoneRecord = {
    stichtag,
    brw,
    gfz: ratioOf(a.gfz),
    wgfz: ratioOf(a.wgfz),
    nutzung: useCodeOf(a.nutzung),
    entwicklung: developmentOf(a.entwicklung),
    zone_name: textOf(a.zoneName, 300),
    zone_number: zoneNumber,
    municipality_name: municipality,
    municipality_key: key,
    geometry,
    min_lat: box.minY,
    max_lat: box.maxY,
    min_lng: box.minX,
    max_lng: box.maxX,
    zone_key: null,
  };
  zone.zone_key = zoneKey(zone);
  return { kind: "zone", zone };
}

function wgs84Geometry(f: SourceFeature, ctx: ZoneContext): ZoneGeometry {
  const g = f.geometry;
  if (!g) fail({ code: "missing_geometry" });
  const declared = g.crs;
  if (declared && ctx.given && declared.crs !== ctx.given.crs) {
    fail({ code: "crs_conflict", declared: declared.name, given: ctx.given.name });
  }
  const crs = declared ?? ctx.given ?? ctx.fallback;
  if (!crs) fail({ code: "crs_unknown" });
  const polygons = crs.latFirst ? g.polygons.map((p) => p.map((r) => r.map(([y, x]) => [x, y]))) : g.polygons;
  let geometry: ZoneGeometry;
  try {
    geometry = toZoneGeometry(
      polygons.length === 1
        ? { type: "Polygon", coordinates: polygons[0] }
        : { type: "MultiPolygon", coordinates: polygons },
    );
  } catch (e) {
    if (e instanceof AppError) fail({ code: "bad_geometry", detail: e.facts.hint ?? e.detail ?? e.code });
    throw e;
  }
  const wgs84 = toWgs84(geometry, crs.crs);
  const box = bboxOf(wgs84);
  const [minLat, minLng, maxLat, maxLng] = STATE_BOUNDS[ctx.state];
  const m = STATE_MARGIN;
  if (
    !(box.minY >= minLat - m && box.maxY <= maxLat + m && box.minX >= minLng - m && box.maxX <= maxLng + m)
  ) {
    const [x, y] = wgs84.type === "Polygon" ? wgs84.coordinates[0]![0]! : wgs84.coordinates[0]![0]![0]!;
    fail({ code: "crs_mismatch", crs: crs.name, state: ctx.state, lng: x, lat: y });
  }
  return wgs84;
}

/**
 * A zone's identity across Stichtage: its municipality (key, else name) and zone number; without a number its
 * geometry (rounded to about 1 m) with use and development state.
 */
function zoneKey(z: ZoneRecord): string {
  const place = z.municipality_key ?? z.municipality_name?.toLowerCase() ?? "";
  if (z.zone_number !== null) return `${place}|${z.zone_number}`.slice(0, 200);
  return `${place}|${z.nutzung ?? ""}|${z.entwicklung ?? ""}|${geometryHash(z.geometry)}`.slice(0, 200);
}

/** A 53-bit hash (cyrb53) of the geometry's coordinates rounded to 1e-5° (about 1 m), in hex. */
function geometryHash(g: ZoneGeometry): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  const polygons = g.type === "Polygon" ? [g.coordinates] : g.coordinates;
  for (const p of polygons) {
    for (const r of p) {
      for (const [x, y] of r) {
        for (const v of [Math.round(x * 1e5), Math.round(y * 1e5), -1]) {
          h1 = Math.imul(h1 ^ v, 2654435761);
          h2 = Math.imul(h2 ^ v, 1597334677);
        }
      }
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
}
