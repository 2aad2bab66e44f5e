/**
 * The conversion of ETRS89/UTM coordinates (EPSG:25832, 25833) to WGS84 `[lng, lat]` with proj4, for land-value
 * imports. Kept apart from `geometry.ts`, which the lookups use, so a service that only answers lookups never
 * loads proj4 (docs/architecture.md §11.17).
 */
import proj4 from "proj4";
import type { Crs } from "./crs.ts";
import { mapPositions, type Position, type ZoneGeometry } from "./geometry.ts";

proj4.defs(
  "EPSG:25832",
  "+proj=utm +zone=32 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs +type=crs",
);
proj4.defs(
  "EPSG:25833",
  "+proj=utm +zone=33 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs +type=crs",
);

const converters = new Map<Crs, (p: Position) => Position>();

/** Decimal places kept in WGS84 output: 1e-8° is about 1 mm, well below the precision of the source data. */
const DIGITS = 1e8;

function converter(crs: Crs): (p: Position) => Position {
  let f = converters.get(crs);
  if (!f) {
    const c = crs === "EPSG:4326" ? undefined : proj4(crs, "EPSG:4326");
    f = (p) => {
      const [x, y] = c ? c.forward(p) : p;
      return [Math.round(x * DIGITS) / DIGITS, Math.round(y * DIGITS) / DIGITS];
    };
    converters.set(crs, f);
  }
  return f;
}

/** Converts `g` from `crs` to WGS84 `[lng, lat]`, rounded to 1e-8 degrees (about 1 mm). */
export function toWgs84(g: ZoneGeometry, crs: Crs): ZoneGeometry {
  return mapPositions(g, converter(crs));
}

/** Converts one position from `crs` to WGS84 `[lng, lat]` (rounded like {@linkcode toWgs84}). */
export function positionToWgs84(p: Position, crs: Crs): Position {
  return converter(crs)(p);
}
