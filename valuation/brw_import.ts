/**
 * Parsing of official land-value files (Bodenrichtwerte) into zones ready for `db/brw_zones.ts`. Pure: no
 * database, no file system.
 *
 * Two formats, recognised by content (a file starting with `{` is GeoJSON):
 *
 * 1. Brandenburg's pipe-delimited CSV (the LGB "Bodenrichtwertdatensätze", EPSG:25833). Assumed layout, taken
 *    from the VBORIS exchange short names (the LGB download is not reachable from here): a header row of column
 *    names, matched case-insensitively, e.g.
 *    `GESL|GENA|GASL|GABE|GENU|GEMA|ORTST|WNUM|BRW|WAE|STAG|BRKE|…|BEZUG|EPSG|ENTW|BEIT|NUTA|ERGNUTA|BAUW|GEZ|…|WGFZ|…|GEOM|BEM|FREI|BRZNAME|…`;
 *    `|` separates fields, a field may be wrapped in double quotes (`""` inside quotes is a quote), a record is
 *    one line. The geometry column is `GEOM` (also accepted: `WKT`, `GEOMETRIE`, `GEOMETRY`, `THE_GEOM`) and holds
 *    WKT or EWKT `POLYGON` / `MULTIPOLYGON`. Decimals may use a comma (`1,5`), `STAG` may be `YYYY-MM-DD` or
 *    `DD.MM.YYYY`. An `EPSG` column, when present and filled, names the CRS of its row. Columns we do not use
 *    are ignored. The text is UTF-8, or Windows-1252 when it is not valid UTF-8.
 * 2. GeoJSON FeatureCollection whose feature properties use the VBORIS names (any case). The CRS comes from the
 *    legacy `crs` member (`urn:ogc:def:crs:EPSG::25832`, …) or the caller; without either it is WGS84 (RFC 7946).
 *
 * Fields read: BRW (required, > 0), STAG (required), GFZ, WGFZ, NUTA (or ART), ENTW, BRZNAME, WNUM, GENA, GASL.
 * A row that fails a check is skipped and reported as a {@linkcode BadRow} (CSV: the physical line number, the
 * header being line 1; GeoJSON: the index in `features`). Rows with BRW 0 (e.g. restructuring areas shown
 * without a value) are reported as bad rows too: they carry no land value.
 *
 * One import is one state and ONE Stichtag: the caller's Stichtag, else the most frequent STAG among the rows
 * (the latest on a tie). Rows with another Stichtag are reported as bad rows and not imported; import them with a
 * second run naming their Stichtag.
 */
import { AppError } from "../errors.ts";
import {
  bboxOf,
  type Crs,
  parseCrs,
  parseWkt,
  SUPPORTED_CRS,
  toWgs84,
  toZoneGeometry,
  type ZoneGeometry,
} from "./geometry.ts";
import type { BrwZoneInput } from "../db/brw_zones.ts";
import { NON_RELEASING_STATES, STATE_BY_KEY_PREFIX, STATE_CODES, type StateCode } from "./states.ts";

export { type StateCode } from "./states.ts";
/** States whose land values we have no licence to reuse (docs/contract.md §3.3); imports for them are refused. */
export const REFUSED_STATES = NON_RELEASING_STATES;

/** The state `code` (any case) accepted for import; throws AppError for unknown codes and the four refused states. */
export function importState(code: string): StateCode {
  const upper = code.trim().toUpperCase();
  const state = STATE_CODES.find((s) => s === upper);
  if (!state) {
    throw new AppError(
      "invalid_request",
      `unknown state ${JSON.stringify(code)}: use one of ${STATE_CODES.join(", ")}`,
    );
  }
  if (REFUSED_STATES.has(state)) {
    throw new AppError(
      "invalid_request",
      `${state}: refused, no licence to reuse its Bodenrichtwerte (BW, SL and SH release them for viewing only, ` +
        "BY only to registered expert committees); the location baseline answers `none` there",
    );
  }
  return state;
}

/** One zone of an import, geometry already in WGS84. */
export interface ZoneRecord extends BrwZoneInput {
  /** Reference date, `YYYY-MM-DD`. */
  stichtag: string;
}

/** A skipped row: where it is and why. */
export interface BadRow {
  /** CSV: the physical line number (header = 1). */
  line?: number;
  /** GeoJSON: the index in `features` (0-based). */
  feature?: number;
  reason: string;
}

/** `line 7: reason` or `features[3]: reason`. */
export function formatBadRow(b: BadRow): string {
  return `${b.line !== undefined ? `line ${b.line}` : `features[${b.feature}]`}: ${b.reason}`;
}

/** What to import and how to read it. */
export interface ParseOptions {
  /** The state the file belongs to (from {@linkcode importState}). */
  state: StateCode;
  /** CRS of the coordinates when the file does not name one; default EPSG:25833 for CSV, WGS84 for GeoJSON. */
  crs?: Crs | undefined;
  /** The Stichtag to import; default: the most frequent one in the file. */
  stichtag?: string | undefined;
  /** Called after each row with the number of rows read and the total. */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** The result of parsing one file. */
export interface ParsedFile {
  format: "csv" | "geojson";
  /** The one Stichtag of this import. */
  stichtag: string;
  /** Valid rows of that Stichtag. */
  zones: ZoneRecord[];
  bad: BadRow[];
  /** Data rows (CSV lines after the header, or features) in the file. */
  rows: number;
  /** Whether the file marks itself as invented test data ("ERFUNDENE TESTDATEN"). */
  invented: boolean;
}

/** A row before validation: upper-cased field names → raw values, plus the geometry source. */
interface RawRow {
  at: { line: number } | { feature: number };
  props: Record<string, unknown>;
  geometry: () => ZoneGeometry;
  crs: () => Crs;
}

/** The marker of our synthetic fixtures. */
export const INVENTED_MARKER = "ERFUNDENE TESTDATEN";

function bad(reason: string): AppError {
  return new AppError("invalid_request", reason);
}

/**
 * Parses a CSV or GeoJSON land-value file. Throws AppError when the file as a whole is unusable (unknown
 * format, broken JSON, missing columns, no valid zone); bad rows are returned, not thrown.
 */
export function parseBrwFile(data: Uint8Array | string, opts: ParseOptions): ParsedFile {
  const text = typeof data === "string" ? data.replace(/^\uFEFF/, "") : decode(data);
  const geojson = text.trimStart().startsWith("{");
  const raw = geojson ? geojsonRows(text, opts.crs) : csvRows(text, opts.crs ?? "EPSG:25833");
  const zones: Array<{ at: RawRow["at"]; zone: ZoneRecord }> = [];
  const badRows: BadRow[] = [...raw.bad];
  raw.rows.forEach((row, i) => {
    try {
      zones.push({ at: row.at, zone: toZone(row, opts.state) });
    } catch (e) {
      badRows.push({ ...row.at, reason: reasonOf(e) });
    }
    opts.onProgress?.(i + 1, raw.rows.length);
  });
  const stichtag = opts.stichtag ?? mostFrequentStichtag(zones.map((z) => z.zone.stichtag));
  if (!stichtag) throw bad(`no valid zone in the file (${badRows.length} bad rows)`);
  const kept = zones.filter((z) => z.zone.stichtag === stichtag);
  for (const z of zones) {
    if (z.zone.stichtag !== stichtag) {
      badRows.push({
        ...z.at,
        reason: `Stichtag ${z.zone.stichtag} is not this import's Stichtag ${stichtag}`,
      });
    }
  }
  if (kept.length === 0) throw bad(`no valid zone with Stichtag ${stichtag} in the file`);
  badRows.sort((a, b) => (a.line ?? a.feature ?? 0) - (b.line ?? b.feature ?? 0));
  return {
    format: geojson ? "geojson" : "csv",
    stichtag,
    zones: kept.map((z) => z.zone),
    bad: badRows,
    rows: raw.rows.length + raw.bad.length,
    invented: raw.invented,
  };
}

function reasonOf(e: unknown): string {
  return e instanceof AppError ? e.detail ?? e.code : String((e as Error)?.message ?? e);
}

function decode(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

function mostFrequentStichtag(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: [string, number] | undefined;
  for (const [v, n] of counts) if (!best || n > best[1] || (n === best[1] && v > best[0])) best = [v, n];
  return best?.[0];
}

// ---------------------------------------------------------------------------------------------------------------
// CSV

const GEOMETRY_COLUMNS = ["GEOM", "WKT", "GEOMETRIE", "GEOMETRY", "THE_GEOM"];

interface RawRows {
  rows: RawRow[];
  bad: BadRow[];
  invented: boolean;
}

function csvRows(text: string, crs: Crs): RawRows {
  const lines = text.split(/\r?\n/);
  const headerIndex = lines.findIndex((l) => l.trim() !== "");
  if (headerIndex < 0) throw bad("the file is empty");
  const header = splitCsvLine(lines[headerIndex]!)?.map((h) => h.trim().toUpperCase());
  if (!header || header.length < 3) throw bad("not a pipe-delimited file with a header row");
  const geomColumn = GEOMETRY_COLUMNS.find((c) => header.includes(c));
  const missing = ["BRW", "STAG"].filter((c) => !header.includes(c));
  if (!geomColumn) missing.push(`a geometry column (${GEOMETRY_COLUMNS.join(" or ")})`);
  if (missing.length) throw bad(`the header lacks ${missing.join(", ")}`);
  const out: RawRows = { rows: [], bad: [], invented: false };
  for (let i = headerIndex + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    if (line.includes(INVENTED_MARKER)) out.invented = true;
    const at = { line: i + 1 };
    const fields = splitCsvLine(line);
    if (!fields) out.bad.push({ ...at, reason: "unterminated quote" });
    else if (fields.length !== header.length) {
      out.bad.push({ ...at, reason: `${fields.length} fields where the header has ${header.length}` });
    } else {
      const props = Object.fromEntries(header.map((h, j) => [h, fields[j]!]));
      const wkt = String(props[geomColumn!] ?? "");
      out.rows.push({ at, props, geometry: () => parseWkt(wkt), crs: () => rowCrs(props, crs) });
    }
  }
  return out;
}

/** The row's own `EPSG` column when filled (checked later), else the file's CRS. */
function rowCrs(props: Record<string, unknown>, crs: Crs): Crs {
  const v = String(props.EPSG ?? "").trim();
  if (v === "") return crs;
  const parsed = parseCrs(v);
  if (!parsed) throw bad(`EPSG ${JSON.stringify(v)} is not one of ${SUPPORTED_CRS.join(", ")}`);
  return parsed;
}

/** Splits one `|`-delimited record; double quotes wrap a field. Undefined when a quote is not closed. */
function splitCsvLine(line: string): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return undefined;
        value += line.slice(i, q);
        if (line[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      const end = line.indexOf("|", i);
      fields.push(value + line.slice(i, end < 0 ? line.length : end));
      if (end < 0) return fields;
      i = end + 1;
    } else {
      const end = line.indexOf("|", i);
      fields.push(line.slice(i, end < 0 ? line.length : end));
      if (end < 0) return fields;
      i = end + 1;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// GeoJSON

function geojsonRows(text: string, crsOption: Crs | undefined): RawRows {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw bad(`not valid JSON: ${(e as Error).message}`);
  }
  const fc = doc as { type?: unknown; features?: unknown; crs?: unknown; name?: unknown };
  if (fc?.type !== "FeatureCollection" || !Array.isArray(fc.features)) {
    throw bad("GeoJSON is not a FeatureCollection with a features array");
  }
  const crs = geojsonCrs(fc.crs, crsOption);
  const out: RawRows = { rows: [], bad: [], invented: String(fc.name ?? "").includes(INVENTED_MARKER) };
  fc.features.forEach((f: unknown, feature) => {
    const { properties, geometry } = (f ?? {}) as { properties?: unknown; geometry?: unknown };
    if (typeof properties !== "object" || properties === null) {
      out.bad.push({ feature, reason: "feature has no properties" });
      return;
    }
    const props = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k.toUpperCase(), v]));
    if (Object.values(props).some((v) => typeof v === "string" && v.includes(INVENTED_MARKER))) {
      out.invented = true;
    }
    out.rows.push({ at: { feature }, props, geometry: () => toZoneGeometry(geometry), crs: () => crs });
  });
  return out;
}

/** The file's `crs` member, the caller's CRS, or WGS84; a conflict between the first two is an error. */
function geojsonCrs(member: unknown, option: Crs | undefined): Crs {
  const name = (member as { properties?: { name?: unknown } } | undefined)?.properties?.name;
  if (name === undefined) return option ?? "EPSG:4326";
  const crs = parseCrs(String(name));
  if (!crs) throw bad(`GeoJSON crs ${JSON.stringify(name)} is not one of ${SUPPORTED_CRS.join(", ")}`);
  if (option && option !== crs) throw bad(`the file declares ${crs} but ${option} was given`);
  return crs;
}

// ---------------------------------------------------------------------------------------------------------------
// One row → one zone

/** Germany with a margin: converted coordinates outside it mean a wrong CRS or broken data. */
const GERMANY = { minLat: 47.0, maxLat: 55.3, minLng: 5.5, maxLng: 15.3 };

function toZone(row: RawRow, state: StateCode): ZoneRecord {
  const p = row.props;
  const brw = number(p.BRW, "BRW");
  if (brw === null) throw bad("BRW is missing");
  if (brw <= 0) throw bad("BRW is 0: a zone without a land value");
  const stichtag = date(p.STAG);
  const key = digits(p.GASL, "GASL");
  if (key && STATE_BY_KEY_PREFIX[key.slice(0, 2)] !== state) {
    throw bad(`GASL ${key} belongs to ${STATE_BY_KEY_PREFIX[key.slice(0, 2)] ?? "no state"}, not ${state}`);
  }
  const crs = row.crs();
  const geometry = toWgs84(row.geometry(), crs);
  const box = bboxOf(geometry);
  if (
    box.minY < GERMANY.minLat || box.maxY > GERMANY.maxLat || box.minX < GERMANY.minLng ||
    box.maxX > GERMANY.maxLng
  ) {
    throw bad(`geometry lies outside Germany after conversion from ${crs} (wrong CRS?)`);
  }
  return {
    stichtag,
    brw,
    gfz: ratio(p.GFZ, "GFZ"),
    wgfz: ratio(p.WGFZ, "WGFZ"),
    nutzung: code(blank(p.NUTA) ? p.ART : p.NUTA, "NUTA", 20),
    entwicklung: code(p.ENTW, "ENTW", 10),
    zone_name: text(p.BRZNAME, "BRZNAME", 300),
    zone_number: text(p.WNUM, "WNUM", 50),
    municipality_name: text(p.GENA, "GENA", 200),
    municipality_key: key,
    geometry,
    min_lat: box.minY,
    max_lat: box.maxY,
    min_lng: box.minX,
    max_lng: box.maxX,
  };
}

function blank(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "string" && v.trim() === "");
}

function number(v: unknown, name: string): number | null {
  if (blank(v)) return null;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  const s = String(v).trim();
  const normalised = /^\d+,\d+$/.test(s) ? s.replace(",", ".") : s;
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(normalised) ? Number(normalised) : NaN;
  if (!Number.isFinite(n) || n < 0) throw bad(`${name} is not a number ≥ 0: ${JSON.stringify(v)}`);
  return n;
}

function ratio(v: unknown, name: string): number | null {
  const n = number(v, name);
  if (n !== null && (n <= 0 || n > 50)) throw bad(`${name} ${n} is outside 0 < ${name} ≤ 50`);
  return n;
}

function date(v: unknown): string {
  if (blank(v)) throw bad("STAG is missing");
  const s = String(v).trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*|Z)?$/.exec(s);
  const german = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
  const [y, m, d] = iso ? [iso[1], iso[2], iso[3]] : german ? [german[3], german[2], german[1]] : [];
  const out = y && m && d ? `${y}-${m.padStart(2, "0")}-${d.padStart(2, "0")}` : "";
  const t = new Date(`${out}T00:00:00Z`);
  if (!out || Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== out) {
    throw bad(`STAG is not a date (YYYY-MM-DD or DD.MM.YYYY): ${JSON.stringify(v)}`);
  }
  if (out < "1960-01-01" || out > "2100-12-31") throw bad(`STAG ${out} is out of range`);
  return out;
}

function text(v: unknown, name: string, max: number): string | null {
  if (blank(v)) return null;
  const s = String(v).trim();
  if (s.length > max) throw bad(`${name} is longer than ${max} characters`);
  return s;
}

function code(v: unknown, name: string, max: number): string | null {
  return text(v, name, max)?.toUpperCase() ?? null;
}

function digits(v: unknown, name: string): string | null {
  // A key given as a JSON number has lost its leading zero (05111000 → 5111000): AGS have eight digits.
  const s = typeof v === "number" ? String(v).padStart(8, "0") : text(v, name, 12);
  if (s !== null && !/^\d{2,12}$/.test(s)) {
    throw bad(`${name} is not a numeric municipality key: ${JSON.stringify(s)}`);
  }
  return s;
}
