/**
 * Builds small zipped polygon shapefiles for the import tests, in the layout of NRW's open-data download
 * `BRW_<year>_EPSG25832_Shape.zip`: `BRW_<year>_Polygon.shp/.shx/.dbf/.prj/.cpg`, a dBase III table with the
 * VBORIS short names (BRW and GFZ as text with a decimal comma, STAG a dBase date). Rings follow the shapefile
 * rule: outer rings clockwise, holes counter-clockwise.
 */
import { zipSync } from "fflate";

/** A dBase field: name (≤ 10 characters), type C (text), D (date) or N (number), length. */
export type DbfField = readonly [name: string, type: "C" | "D" | "N", length: number];

/** One record: its polygons (outer ring first, then holes; closed rings; none: a null shape) and its values. */
export interface ShapeRecord {
  polygons: Array<Array<Array<[number, number]>>>;
  values: Record<string, string | number | null>;
}

/** The ESRI WKT of ETRS89 / UTM zone 32N as GIS programs write it into a `.prj`. */
export const PRJ_25832 =
  'PROJCS["ETRS_1989_UTM_Zone_32N",GEOGCS["GCS_ETRS_1989",DATUM["D_ETRS_1989",SPHEROID["GRS_1980",6378137.0,298.257222101]],' +
  'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],' +
  'PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",9.0],' +
  'PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]';

function signedArea(ring: Array<[number, number]>): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    a += (ring[i]![0] - ring[j]![0]) * (ring[i]![1] + ring[j]![1]);
  }
  return a / 2;
}

/** The ring turned clockwise (outer) or counter-clockwise (hole); positive `signedArea` is clockwise. */
function oriented(ring: Array<[number, number]>, clockwise: boolean): Array<[number, number]> {
  return (signedArea(ring) > 0) === clockwise ? ring : [...ring].reverse();
}

/** The `.shp` and `.shx` of polygon records. */
export function shpFiles(records: ShapeRecord[]): { shp: Uint8Array; shx: Uint8Array } {
  const contents = records.map((r) => {
    if (r.polygons.length === 0) return new Uint8Array(4); // a null shape (type 0): a record without geometry
    const rings = r.polygons.flatMap((p) => p.map((ring, i) => oriented(ring, i === 0)));
    const points = rings.flat();
    const buf = new DataView(new ArrayBuffer(44 + 4 * rings.length + 16 * points.length));
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    buf.setInt32(0, 5, true);
    [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)].forEach((v, i) =>
      buf.setFloat64(4 + 8 * i, v, true)
    );
    buf.setInt32(36, rings.length, true);
    buf.setInt32(40, points.length, true);
    let start = 0;
    rings.forEach((ring, i) => {
      buf.setInt32(44 + 4 * i, start, true);
      start += ring.length;
    });
    points.forEach(([x, y], i) => {
      buf.setFloat64(44 + 4 * rings.length + 16 * i, x, true);
      buf.setFloat64(52 + 4 * rings.length + 16 * i, y, true);
    });
    return new Uint8Array(buf.buffer);
  });
  const shpLength = 100 + contents.reduce((n, c) => n + 8 + c.length, 0);
  const shp = new Uint8Array(shpLength);
  const shx = new Uint8Array(100 + 8 * records.length);
  for (const [file, length] of [[shp, shpLength], [shx, shx.length]] as const) {
    const v = new DataView(file.buffer);
    v.setInt32(0, 9994, false);
    v.setInt32(24, length / 2, false);
    v.setInt32(28, 1000, true);
    v.setInt32(32, 5, true);
  }
  let offset = 100;
  contents.forEach((c, i) => {
    const v = new DataView(shp.buffer);
    v.setInt32(offset, i + 1, false);
    v.setInt32(offset + 4, c.length / 2, false);
    shp.set(c, offset + 8);
    const x = new DataView(shx.buffer);
    x.setInt32(100 + 8 * i, offset / 2, false);
    x.setInt32(104 + 8 * i, c.length / 2, false);
    offset += 8 + c.length;
  });
  return { shp, shx };
}

/** A dBase III table of `fields` and the records' values (text encoded as UTF-8). */
export function dbfFile(fields: readonly DbfField[], records: ShapeRecord[]): Uint8Array {
  const enc = new TextEncoder();
  const headerLength = 32 + 32 * fields.length + 1;
  const recordLength = 1 + fields.reduce((n, [, , len]) => n + len, 0);
  const out = new Uint8Array(headerLength + recordLength * records.length + 1);
  const v = new DataView(out.buffer);
  out[0] = 0x03;
  out.set([125, 1, 1], 1);
  v.setUint32(4, records.length, true);
  v.setUint16(8, headerLength, true);
  v.setUint16(10, recordLength, true);
  fields.forEach(([name, type, length], i) => {
    out.set(enc.encode(name), 32 + 32 * i);
    out[32 + 32 * i + 11] = type.charCodeAt(0);
    out[32 + 32 * i + 16] = length;
  });
  out[headerLength - 1] = 0x0d;
  records.forEach((r, n) => {
    let at = headerLength + n * recordLength;
    out[at++] = 0x20;
    for (const [name, type, length] of fields) {
      const value = r.values[name];
      const text = value === null || value === undefined ? "" : String(value);
      const bytes = enc.encode(type === "N" ? text.padStart(length) : text).subarray(0, length);
      out.fill(0x20, at, at + length);
      out.set(bytes, at);
      at += length;
    }
  });
  out[out.length - 1] = 0x1a;
  return out;
}

/** The zipped shapefile `BRW_<year>_Polygon.*` as NRW publishes it (`parts` overrides or drops parts). */
export function nrwShapeZip(
  year: number,
  fields: readonly DbfField[],
  records: ShapeRecord[],
  parts: Record<string, Uint8Array | null> = {},
): Uint8Array {
  const { shp, shx } = shpFiles(records);
  const base = `BRW_${year}_Polygon`;
  const files: Record<string, Uint8Array | null> = {
    [`${base}.shp`]: shp,
    [`${base}.shx`]: shx,
    [`${base}.dbf`]: dbfFile(fields, records),
    [`${base}.prj`]: new TextEncoder().encode(PRJ_25832),
    [`${base}.cpg`]: new TextEncoder().encode("UTF-8"),
    "Hinweise_BRW.txt": new TextEncoder().encode("ERFUNDENE TESTDATEN: keine amtlichen Bodenrichtwerte\n"),
    ...parts,
  };
  const present = Object.fromEntries(Object.entries(files).filter(([, v]) => v !== null)) as Record<
    string,
    Uint8Array
  >;
  return zipSync(present, { level: 6 });
}
