/**
 * Place resolution for the location baseline: which federal state a PLZ, a place name or a coordinate pair lies
 * in. Pure (no database): it reads the reference data shipped in `./data/` (see `./data/SOURCES.md`).
 *
 * Rules, in order:
 * 1. Coordinates inside Germany decide the state by the state borders and win over a disagreeing PLZ or city
 *    (`by: "coordinates"`). Exception: the borders are generalised (1:250 000), so when the PLZ/city names exactly
 *    one state and the point lies within {@link BORDER_TOLERANCE_M} of that state, the PLZ/city is kept. Coordinates
 *    outside Germany (and not that close to the named state) give `outside`.
 * 2. A known PLZ decides next. When it spans several states, the city (matched with {@link cityKey} against the
 *    PLZ's municipalities) picks one (`by: "city"`); without a match the answer is `ambiguous`. A city that is not
 *    among the PLZ's municipalities does not override the PLZ: the PLZ decides (`by: "plz"`).
 * 3. A city alone (or with an unknown PLZ) is looked up among all municipalities, then among other GeoNames place
 *    names; all matches in one state → `resolved`, in several → `ambiguous`.
 * 4. Nothing matched → `unknown`; nothing given → `none`. Never throws.
 *
 * @module
 */
import plzPlaces from "./data/plz_places.json" with { type: "json" };
import extraPlaces from "./data/extra_places.json" with { type: "json" };
import stateBorders from "./data/state_borders.json" with { type: "json" };
import { isStateCode, STATE_CODES, STATE_NAMES, type StateCode } from "./states.ts";
import { clip } from "../text.ts";

/** The place part of a location-baseline request; every field is optional. */
export interface PlaceQuery {
  plz?: string | undefined;
  city?: string | undefined;
  lat?: number | undefined;
  lng?: number | undefined;
}

/** Where a query lies: one state, several possible states, outside Germany, unknown, or nothing asked. */
export type PlaceResolution =
  | { kind: "resolved"; state: StateCode; by: "coordinates" | "plz" | "city"; plz?: string; place?: string }
  | { kind: "ambiguous"; states: StateCode[]; label: string }
  | { kind: "outside"; label: string }
  | { kind: "unknown"; label: string }
  | { kind: "none" };

/** Distance (metres) within which a point near the state named by its PLZ/city counts as inside that state. */
export const BORDER_TOLERANCE_M = 100;

/**
 * Normalises a place name for comparison: lower case, NFC, ä→ae ö→oe ü→ue ß→ss, then only [a-z0-9] are kept
 * ("München" = "Muenchen" = "MÜNCHEN"; "Neu-Ulm" = "Neu Ulm").
 */
export function cityKey(s: string): string {
  return s.normalize("NFC").toLowerCase().normalize("NFC")
    .replaceAll("ä", "ae").replaceAll("ö", "oe").replaceAll("ü", "ue").replaceAll("ß", "ss")
    .replace(/[^a-z0-9]/g, "");
}

const HONORIFIC =
  /^(?:lutherstadt|hansestadt|goethestadt|kurort|ostseebad|ostseeheilbad|seebad|nordseebad)\s+/;
const QUALIFIER = new RegExp(
  [
    String.raw`\s*\(.*$`, // "Lindau (Bodensee)", "Frankfurt (Oder)"
    String.raw`\s*[/,].*$`, // "Adorf/Vogtland", "Boxberg/O.L."
    String
      .raw`\s+(?:an der|an dem|am|an|auf der|auf dem|bei|im|in der|in|ob der|ob|vor der|unter der|zu)\s.*$`,
    String.raw`\s+[abiov]\.\s?.*$`, // "Weiden i.d.OPf.", "Garching b.München", "Altenmarkt a.d.Alz"
  ].join("|"),
);

/**
 * The {@link cityKey} of a place name without its qualifier: "Frankfurt am Main", "Frankfurt (Oder)" and
 * "Frankfurt/M." all give "frankfurt"; "Lutherstadt Eisleben" gives "eisleben"; "St. Ingbert" gives "sanktingbert".
 */
export function looseCityKey(s: string): string {
  const base = s.normalize("NFC").toLowerCase().trim()
    .replace(/^st\.?\s+/, "sankt ")
    .replace(HONORIFIC, "")
    .replace(QUALIFIER, "");
  return cityKey(base) || cityKey(s);
}

/** Resolves a query to a state following the module's rules; never throws. */
export function resolvePlace(q: PlaceQuery): PlaceResolution {
  const plz = clean(q.plz);
  const city = clean(q.city);
  const point = typeof q.lat === "number" && typeof q.lng === "number" && Number.isFinite(q.lat) &&
      Number.isFinite(q.lng) && Math.abs(q.lat) <= 90 && Math.abs(q.lng) <= 180
    ? { lat: q.lat, lng: q.lng }
    : undefined;
  if (plz === undefined && city === undefined && point === undefined) return { kind: "none" };

  const data = load();
  const text = plz !== undefined || city !== undefined ? resolveText(data, plz, city) : undefined;
  if (point) {
    const at = stateAt(data, point.lat, point.lng);
    if (text && text.states.length && (at === undefined || !text.states.includes(at))) {
      const near = text.states.filter((s) => nearState(data, s, point.lat, point.lng, BORDER_TOLERANCE_M));
      if (near.length === 1) return resolved(text, near[0]!, text.by);
    }
    if (at) return resolved(text, at, "coordinates");
    return {
      kind: "outside",
      label: `Koordinaten ${fmt(point.lat)}, ${fmt(point.lng)} liegen außerhalb Deutschlands`,
    };
  }
  if (!text || text.states.length === 0) {
    const parts = [
      plz !== undefined ? `PLZ ${shorten(plz)}` : "",
      city !== undefined ? `Ort „${shorten(city)}“` : "",
    ];
    return { kind: "unknown", label: `${parts.filter(Boolean).join(" und ")} unbekannt` };
  }
  if (text.states.length === 1) return resolved(text, text.states[0]!, text.by);
  const names = joinGerman(text.states.map((s) => STATE_NAMES[s]));
  return { kind: "ambiguous", states: text.states, label: ambiguousLabel(text.plz, city, names) };
}

// ---------------------------------------------------------------------------------------------------------------
// Text (PLZ / city) resolution

interface Row {
  state: StateCode;
  name: string;
  key: string;
  loose: string;
}

/** What PLZ and city say: the candidate states (in order of preference) and the rows behind them. */
interface TextResult {
  states: StateCode[];
  by: "plz" | "city";
  /** Rows that matched best, preferred first. */
  rows: Row[];
  /** All rows of the known PLZ (empty when the PLZ is unknown or not given). */
  plzRows: Row[];
  plz: string | undefined;
}

function resolveText(data: Data, plz: string | undefined, city: string | undefined): TextResult | undefined {
  const plzRows = plz !== undefined ? data.byPlz.get(plz) : undefined;
  if (plz !== undefined && plzRows) {
    const matched = city !== undefined ? matchWithin(plzRows, city) : [];
    const all = statesOf(plzRows);
    if (matched.length) {
      return { states: statesOf(matched), by: all.length > 1 ? "city" : "plz", rows: matched, plzRows, plz };
    }
    return { states: all, by: "plz", rows: plzRows, plzRows, plz };
  }
  if (city !== undefined) {
    const rows = cityCandidates(data, city);
    if (rows.length) return { states: statesOf(rows), by: "city", rows, plzRows: [], plz: undefined };
  }
  return undefined;
}

/** Rows of one PLZ that match a city input: exact key, then without qualifiers, then by the first word. */
function matchWithin(rows: Row[], city: string): Row[] {
  const k = cityKey(city), l = looseCityKey(city);
  if (!k) return [];
  const exact = rows.filter((r) => r.key === k);
  if (exact.length) return exact;
  const loose = rows.filter((r) => r.loose === k || r.key === l || r.loose === l);
  if (loose.length) return loose;
  const first = cityKey(city.split(/[\s\-/,(]+/)[0] ?? "");
  if (first.length < 3) return [];
  return rows.filter((r) =>
    r.key === first || r.loose === first || cityKey(r.name.split(/[\s\-/,(]+/)[0] ?? "") === k
  );
}

/** Candidate rows for a city on its own, best first (exact names before names without qualifiers). */
function cityCandidates(data: Data, city: string): Row[] {
  const k = cityKey(city), l = looseCityKey(city);
  if (!k) return [];
  for (const key of new Set([k, cityKey(expandAbbreviations(city))])) {
    const exact = data.byKey.get(key) ?? [];
    const tier1 = [...exact, ...(data.byLoose.get(key) ?? []).filter((r) => r.key !== key)];
    if (tier1.length) return tier1;
  }
  const extra = data.extraByKey.get(k);
  if (extra?.length) return extra;
  if (l !== k) {
    // "Frankfurt/Main", "Rothenburg o.d.T.": of the names without qualifier, those whose qualifier contains the
    // input's one (letters in order: "obdert" in "obdertauber") win.
    const tier3 = uniqueRows([...(data.byKey.get(l) ?? []), ...(data.byLoose.get(l) ?? [])]);
    const full = cityKey(expandAbbreviations(city));
    const qualifier = full.startsWith(l) ? full.slice(l.length) : "";
    const withQualifier = qualifier.length >= 2
      ? tier3.filter((r) => r.key.startsWith(l) && isSubsequence(qualifier, r.key.slice(l.length)))
      : [];
    if (withQualifier.length) return withQualifier;
    if (tier3.length) return tier3;
  }
  // "Berlin-Mitte", "Hamburg-Altona", "Bremen-Nord": a city-state's name with a district
  const cityState = /^(berlin|hamburg|bremen)[\s\-/,(]/.exec(city.trim().toLowerCase())?.[1];
  return cityState ? data.byKey.get(cityState) ?? [] : [];
}

/** Spells out the usual abbreviations of place-name qualifiers: "a.d." → "an der", "b." → "bei", … */
function expandAbbreviations(s: string): string {
  return s.normalize("NFC")
    .replace(/(^|\s)a\.\s*d\.\s*/gi, "$1an der ")
    .replace(/(^|\s)i\.\s*d\.\s*/gi, "$1in der ")
    .replace(/(^|\s)o\.\s*d\.\s*/gi, "$1ob der ")
    .replace(/(^|\s)a\.\s*/gi, "$1am ")
    .replace(/(^|\s)i\.\s*/gi, "$1im ")
    .replace(/(^|\s)b\.\s*/gi, "$1bei ");
}

function isSubsequence(needle: string, haystack: string): boolean {
  let i = 0;
  for (const ch of haystack) if (ch === needle[i]) i++;
  return i === needle.length;
}

function resolved(
  text: TextResult | undefined,
  state: StateCode,
  by: "coordinates" | "plz" | "city",
): PlaceResolution {
  const result: Extract<PlaceResolution, { kind: "resolved" }> = { kind: "resolved", state, by };
  if (!text) return result;
  const inState = text.rows.filter((r) => r.state === state);
  const plzInState = text.plzRows.filter((r) => r.state === state);
  if (text.plz !== undefined && plzInState.length) result.plz = text.plz;
  const place = text.plz !== undefined
    ? (inState[0] ?? plzInState[0])?.name
    : singleName(inState.filter((r) => r.key === inState[0]?.key)) ?? singleName(inState);
  if (place !== undefined) result.place = place;
  return result;
}

function ambiguousLabel(plz: string | undefined, city: string | undefined, states: string): string {
  if (plz === undefined) {
    return `Ort „${shorten(city ?? "")}“ gibt es in ${states}; PLZ oder Koordinaten angeben`;
  }
  if (city === undefined) return `PLZ ${plz} liegt in ${states}; Ort oder Koordinaten angeben`;
  return `PLZ ${plz} liegt in ${states}, Ort „${shorten(city)}“ gehört nicht dazu; Koordinaten angeben`;
}

function singleName(rows: Row[]): string | undefined {
  const names = new Set(rows.map((r) => r.name));
  return names.size === 1 ? rows[0]!.name : undefined;
}

function statesOf(rows: Row[]): StateCode[] {
  return [...new Set(rows.map((r) => r.state))];
}

function uniqueRows(rows: Row[]): Row[] {
  return [...new Set(rows)];
}

// ---------------------------------------------------------------------------------------------------------------
// Point in state

interface RingShape {
  /** x = lng, y = lat, interleaved; the ring is implicitly closed. */
  xy: Float64Array;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  /** Horizontal bands over [minY, maxY]: the edges of band b are bandEdges[bandStart[b] .. bandStart[b + 1]). */
  bandHeight: number;
  bandStart: Uint32Array;
  /** Index (into xy, even) of each edge's end point; the edge runs from the previous point to it. */
  bandEdges: Uint32Array;
}

interface StateShape {
  state: StateCode;
  rings: RingShape[];
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

function stateAt(data: Data, lat: number, lng: number): StateCode | undefined {
  for (const s of data.shapes) {
    if (lng < s.minX || lng > s.maxX || lat < s.minY || lat > s.maxY) continue;
    if (insideShape(s, lng, lat)) return s.state;
  }
  return undefined;
}

/** Even-odd rule over all rings of a state: handles multipolygons, holes and enclaves. */
function insideShape(s: StateShape, x: number, y: number): boolean {
  let inside = false;
  for (const r of s.rings) {
    if (x < r.minX || x > r.maxX || y < r.minY || y > r.maxY) continue;
    const xy = r.xy, n = xy.length, edges = r.bandEdges;
    const band = Math.min(r.bandStart.length - 2, Math.floor((y - r.minY) / r.bandHeight));
    for (let e = r.bandStart[band]!, end = r.bandStart[band + 1]!; e < end; e++) {
      const i = edges[e]!, j = i === 0 ? n - 2 : i - 2;
      const yi = xy[i + 1]!, yj = xy[j + 1]!;
      if ((yi > y) !== (yj > y)) {
        const xi = xy[i]!, xj = xy[j]!;
        if (x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
      }
    }
  }
  return inside;
}

const M_PER_DEG_LAT = 111_195;

/** True when the point lies in `state` or within `metres` of its border. */
function nearState(data: Data, state: StateCode, lat: number, lng: number, metres: number): boolean {
  const s = data.shapes.find((x) => x.state === state);
  if (!s) return false;
  if (insideShape(s, lng, lat)) return true;
  const kx = Math.cos(lat * Math.PI / 180) * M_PER_DEG_LAT, ky = M_PER_DEG_LAT;
  const dLat = metres / ky, dLng = metres / kx;
  const limit2 = metres * metres;
  for (const r of s.rings) {
    if (lng < r.minX - dLng || lng > r.maxX + dLng || lat < r.minY - dLat || lat > r.maxY + dLat) continue;
    const xy = r.xy, n = xy.length;
    for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
      const ax = (xy[j]! - lng) * kx, ay = (xy[j + 1]! - lat) * ky;
      const bx = (xy[i]! - lng) * kx, by = (xy[i + 1]! - lat) * ky;
      const dx = bx - ax, dy = by - ay;
      const len2 = dx * dx + dy * dy;
      const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
      const px = ax + t * dx, py = ay + t * dy;
      if (px * px + py * py <= limit2) return true;
    }
  }
  return false;
}

/** Decodes a Google encoded polyline (lat, lng pairs) into interleaved [lng, lat]. */
function decodePolyline(s: string, precision: number): Float64Array {
  const factor = 10 ** precision;
  const out: number[] = [];
  let i = 0, lat = 0, lng = 0;
  const next = () => {
    let result = 0, shift = 0, b: number;
    do {
      b = s.charCodeAt(i++) - 63;
      result |= (b & 0x1f) << shift;
      shift += 5;
    } while (b >= 0x20);
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (i < s.length) {
    lat += next();
    lng += next();
    out.push(lng / factor, lat / factor);
  }
  return Float64Array.from(out);
}

// ---------------------------------------------------------------------------------------------------------------
// Data, loaded once on first use

interface Data {
  byPlz: Map<string, Row[]>;
  byKey: Map<string, Row[]>;
  byLoose: Map<string, Row[]>;
  extraByKey: Map<string, Row[]>;
  shapes: StateShape[];
}

let cache: Data | undefined;

function load(): Data {
  if (cache) return cache;
  const byPlz = new Map<string, Row[]>();
  const byKey = new Map<string, Row[]>();
  const byLoose = new Map<string, Row[]>();
  const extraByKey = new Map<string, Row[]>();
  const push = (m: Map<string, Row[]>, k: string, r: Row) => {
    const a = m.get(k);
    if (a) a.push(r);
    else m.set(k, [r]);
  };
  // A name that several PLZ share is indexed once per state for city look-ups.
  const seen = new Set<string>();
  for (const line of plzPlaces.rows) {
    const plz = line.slice(0, 5), state = line.slice(6, 8), name = line.slice(9);
    if (!isStateCode(state)) continue;
    const row: Row = { state, name, key: cityKey(name), loose: looseCityKey(name) };
    push(byPlz, plz, row);
    if (seen.has(`${state} ${name}`)) continue;
    seen.add(`${state} ${name}`);
    push(byKey, row.key, row);
    if (row.loose !== row.key) push(byLoose, row.loose, row);
  }
  for (const line of extraPlaces.rows) {
    const state = line.slice(0, 2), name = line.slice(3);
    if (!isStateCode(state)) continue;
    const row: Row = { state, name, key: cityKey(name), loose: looseCityKey(name) };
    push(extraByKey, row.key, row);
  }
  const borders: Record<string, string[]> = stateBorders.states;
  const shapes: StateShape[] = [];
  for (const state of STATE_CODES) {
    const rings = (borders[state] ?? []).map((enc) => ringShape(decodePolyline(enc, stateBorders.precision)));
    shapes.push({
      state,
      rings,
      minX: Math.min(...rings.map((r) => r.minX)),
      minY: Math.min(...rings.map((r) => r.minY)),
      maxX: Math.max(...rings.map((r) => r.maxX)),
      maxY: Math.max(...rings.map((r) => r.maxY)),
    });
  }
  // Neighbours share their borders exactly, so at most one state contains a point: the order only affects speed.
  // Small states first, as their bounding boxes are tight.
  shapes.sort((a, b) => (a.maxX - a.minX) * (a.maxY - a.minY) - (b.maxX - b.minX) * (b.maxY - b.minY));
  cache = { byPlz, byKey, byLoose, extraByKey, shapes };
  return cache;
}

function ringShape(xy: Float64Array): RingShape {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < xy.length; i += 2) {
    const x = xy[i]!, y = xy[i + 1]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  // About 8 edges per band keeps a point-in-ring test to a few dozen edges even for Bavaria's ~15 000.
  const n = xy.length / 2;
  const bands = Math.max(1, Math.min(4096, Math.ceil(n / 8)));
  const bandHeight = (maxY - minY) / bands || 1;
  const bandOf = (y: number) => Math.min(bands - 1, Math.floor((y - minY) / bandHeight));
  const counts = new Uint32Array(bands + 1);
  const span = (i: number): [number, number] => {
    const j = i === 0 ? xy.length - 2 : i - 2;
    const a = bandOf(xy[i + 1]!), b = bandOf(xy[j + 1]!);
    return a < b ? [a, b] : [b, a];
  };
  for (let i = 0; i < xy.length; i += 2) {
    const [lo, hi] = span(i);
    for (let b = lo; b <= hi; b++) counts[b + 1]!++;
  }
  const bandStart = new Uint32Array(bands + 1);
  for (let b = 0; b < bands; b++) bandStart[b + 1] = bandStart[b]! + counts[b + 1]!;
  const fill = bandStart.slice(0, bands);
  const bandEdges = new Uint32Array(bandStart[bands]!);
  for (let i = 0; i < xy.length; i += 2) {
    const [lo, hi] = span(i);
    for (let b = lo; b <= hi; b++) bandEdges[fill[b]!++] = i;
  }
  return { xy, minX, minY, maxX, maxY, bandHeight, bandStart, bandEdges };
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

function clean(s: unknown): string | undefined {
  const t = typeof s === "string" ? s.trim() : undefined;
  return t ? t : undefined;
}

function shorten(s: string): string {
  return clip(s, 60);
}

function fmt(n: number): string {
  return String(Math.round(n * 1e5) / 1e5);
}

function joinGerman(items: string[]): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} und ${items[items.length - 1]}`;
}
