/**
 * Coordinate reference systems of land-value files and the axis order their names imply.
 *
 * Supported: ETRS89 / UTM zone 32N (EPSG:25832), zone 33N (EPSG:25833) and WGS84 (EPSG:4326, also as OGC CRS84).
 * The projected ones are always easting, northing. WGS84 depends on how it is named:
 *
 * | name                                                                 | axis order |
 * | -------------------------------------------------------------------- | ---------- |
 * | `urn:ogc:def:crs:EPSG::4326`, `http(s)://www.opengis.net/def/crs/EPSG/0/4326` | lat, lon (EPSG's order) |
 * | `EPSG:4326`, `4326`, `http://www.opengis.net/gml/srs/epsg.xml#4326`   | lon, lat (the GIS convention) |
 * | `CRS84`, `urn:ogc:def:crs:OGC:1.3:CRS84`, `…/def/crs/OGC/1.3/CRS84`  | lon, lat   |
 *
 * GeoJSON is lon, lat whatever its legacy `crs` member says (RFC 7946, and how GDAL writes it); an OGC API
 * Features answer follows its `Content-Crs` header, so `--crs http://www.opengis.net/def/crs/EPSG/0/4326` reads
 * a saved page in lat, lon.
 */

/** Coordinate reference systems an import may use. */
export type Crs = "EPSG:25832" | "EPSG:25833" | "EPSG:4326";

/** The supported CRS codes, for messages and validation. */
export const SUPPORTED_CRS: readonly Crs[] = ["EPSG:25832", "EPSG:25833", "EPSG:4326"];

/** A CRS with the axis order of the name it was given by. */
export interface CrsRef {
  crs: Crs;
  /** True when the first coordinate is the latitude (northing first never happens for UTM here). */
  latFirst: boolean;
  /** The name as written in the file or on the command line. */
  name: string;
}

/** The CRS named by `name` with the axis order that name implies (see the module comment), or undefined. */
export function crsRef(name: string): CrsRef | undefined {
  const s = name.trim();
  if (/(^|[:/])CRS:?84$/i.test(s)) return { crs: "EPSG:4326", latFirst: false, name: s };
  const urn = /^urn:(?:x-)?ogc:def:crs:EPSG:[\d.]*:(\d+)$/i.exec(s);
  const uri = /^https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/[\d.]+\/(\d+)$/i.exec(s);
  const short = /^(?:EPSG:+|https?:\/\/www\.opengis\.net\/gml\/srs\/epsg\.xml#)?(\d+)$/i.exec(s);
  const code = (urn ?? uri ?? short)?.[1];
  const crs = SUPPORTED_CRS.find((c) => c === `EPSG:${code}`);
  if (!crs) return undefined;
  return { crs, latFirst: crs === "EPSG:4326" && (urn !== null || uri !== null), name: s };
}

/** The CRS code named by `name` ("EPSG:25832", "urn:ogc:def:crs:EPSG::25833", ".../EPSG/0/4326", "CRS84"), or undefined. */
export function parseCrs(name: string): Crs | undefined {
  return crsRef(name)?.crs;
}

/** The same CRS read lon, lat: how GeoJSON reads any WGS84 name. */
export function lonLat(ref: CrsRef): CrsRef {
  return { ...ref, latFirst: false };
}

/**
 * The CRS of an ESRI `.prj` (WKT1) text: `ETRS89 / UTM zone 32N`, `ETRS_1989_UTM_Zone_33N`, `GCS_WGS_1984`, or an
 * `AUTHORITY["EPSG","…"]` of the whole definition; undefined for anything else. Shapefiles are lon, lat.
 */
export function crsOfPrj(wkt: string): CrsRef | undefined {
  const name = wkt.trim();
  const authority = /AUTHORITY\s*\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]\s*\]\s*$/i.exec(name)?.[1];
  const zone = /UTM[_ ]zone[_ ](3[23])N/i.exec(name)?.[1];
  const etrs = /ETRS[_ ]?(?:19)?89/i.test(name);
  const code = authority ??
    (zone && etrs
      ? `258${zone}`
      : /^GEOGCS\s*\[\s*"(?:GCS_)?WGS[_ ]?(?:19)?84"/i.test(name)
      ? "4326"
      : undefined);
  const ref = code ? crsRef(`EPSG:${code}`) : undefined;
  return ref && { ...ref, name: ref.crs };
}
