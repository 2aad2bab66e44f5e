/**
 * Features of Brandenburg's pipe-delimited land-value CSV (the LGB "Bodenrichtwertdatensätze"): a header row of
 * VBORIS column names, then one record per line, `|` between fields, a field optionally in double quotes (`""`
 * inside quotes is a quote). The geometry column is `GEOM` (also `WKT`, `GEOMETRIE`, `GEOMETRY`, `THE_GEOM`) with
 * WKT or EWKT `POLYGON` / `MULTIPOLYGON`; an `EPSG` column, when filled, names the CRS of its row. Read line by
 * line: memory holds one record.
 */
import { crsRef } from "../crs.ts";
import { fail } from "../brw_errors.ts";
import { parseWkt } from "../geometry.ts";
import { AppError } from "../../errors.ts";
import { type Attributes, setAttribute, type SourceFeature, type SourceGeometry } from "./feature.ts";

const GEOMETRY_COLUMNS = ["GEOM", "WKT", "GEOMETRIE", "GEOMETRY", "THE_GEOM"];

/** Lines of text chunks with their 1-based numbers (`\n` or `\r\n`). */
async function* lines(chunks: AsyncIterable<string>): AsyncGenerator<[string, number]> {
  let rest = "";
  let n = 0;
  for await (const chunk of chunks) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop()!;
    for (const p of parts) yield [p.replace(/\r$/, ""), ++n];
  }
  if (rest !== "") yield [rest.replace(/\r$/, ""), ++n];
}

/** Streams the records of a pipe-delimited CSV as features. */
export async function* readCsvFeatures(chunks: AsyncIterable<string>): AsyncGenerator<SourceFeature> {
  let header: string[] | undefined;
  let geometryColumn = "";
  let index = 0;
  for await (const [line, n] of lines(chunks)) {
    if (line.trim() === "") continue;
    if (!header) {
      header = splitLine(line)?.map((h) => h.trim().toUpperCase());
      if (!header || header.length < 3) {
        fail({ code: "unknown_layout", start: line.slice(0, 80) }, { line: n });
      }
      geometryColumn = GEOMETRY_COLUMNS.find((c) => header!.includes(c)) ?? "";
      for (const required of ["BRW", "STAG"]) {
        if (!header.includes(required)) fail({ code: "missing_field", field: required }, { line: n });
      }
      if (!geometryColumn) fail({ code: "missing_field", field: GEOMETRY_COLUMNS.join(" or ") }, { line: n });
      continue;
    }
    const at = { line: n, feature: index };
    const fields = splitLine(line);
    if (!fields) fail({ code: "malformed", detail: "a quote is not closed" }, at);
    if (fields.length !== header.length) {
      fail(
        { code: "malformed", detail: `${fields.length} fields where the header has ${header.length}` },
        at,
      );
    }
    const attributes: Attributes = new Map();
    header.forEach((h, i) => h !== geometryColumn && setAttribute(attributes, h, fields[i]!));
    const wkt = fields[header.indexOf(geometryColumn)]!;
    yield { index: index++, line: n, attributes, geometry: geometryOf(wkt, attributes, at) };
  }
  if (!header) fail({ code: "unknown_layout", start: "an empty file" });
}

function geometryOf(wkt: string, attributes: Attributes, at: { line: number }): SourceGeometry | undefined {
  if (wkt.trim() === "") return undefined;
  let polygons: SourceGeometry["polygons"];
  try {
    const g = parseWkt(wkt);
    polygons = g.type === "Polygon" ? [g.coordinates] : g.coordinates;
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    fail({ code: "bad_geometry", detail: e.facts.hint ?? e.detail ?? e.code }, at);
  }
  const epsg = attributes.get("epsg");
  const name = epsg && typeof epsg.value === "string" ? epsg.value.trim() : "";
  if (name === "") return { polygons };
  const crs = crsRef(/^\d+$/.test(name) ? `EPSG:${name}` : name);
  if (!crs) fail({ code: "unsupported_crs", crs: name }, at);
  return { polygons, crs: { ...crs, latFirst: false } };
}

/** Splits one `|`-delimited record; double quotes wrap a field. Undefined when a quote is not closed. */
function splitLine(line: string): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let value = "";
    if (line[i] === '"') {
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return undefined;
        value += line.slice(i, q);
        if (line[q + 1] !== '"') {
          i = q + 1;
          break;
        }
        value += '"';
        i = q + 2;
      }
    }
    const end = line.indexOf("|", i);
    fields.push(value + line.slice(i, end < 0 ? line.length : end));
    if (end < 0) return fields;
    i = end + 1;
  }
}
