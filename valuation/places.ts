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
import { isStateCode, STATE_NAMES, type StateCode } from "./states.ts";
import { clip } from "../text.ts";
import { nearState, stateAt, type StateShape, stateShapes } from "./state_shapes.ts";

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
    const at = stateAt(data.shapes, point.lat, point.lng);
    if (text && text.states.length && (at === undefined || !text.states.includes(at))) {
      const near = text.states.filter((s) =>
        nearState(data.shapes, s, point.lat, point.lng, BORDER_TOLERANCE_M)
      );
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
  const shapes = stateShapes(stateBorders.states, stateBorders.precision);
  cache = { byPlz, byKey, byLoose, extraByKey, shapes };
  return cache;
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
