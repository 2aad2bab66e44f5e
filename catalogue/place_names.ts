/**
 * The German municipality names of the shipped place data (`valuation/data/plz_places.json`, see its
 * SOURCES.md) as the place search of the catalogue reads them: the names a typed place could mean ("Frankfurt"
 * → "Frankfurt am Main", "Frankfurt (Oder)"), names close to a misspelt one, and the municipality of a postcode.
 * Pure; the index is built on first use (about 12,000 names).
 */
import plzPlaces from "../valuation/data/plz_places.json" with { type: "json" };
import { cityKey, looseCityKey } from "../valuation/places.ts";

/** One municipality name with its keys. */
interface Name {
  name: string;
  key: string;
  loose: string;
}

interface Index {
  names: Name[];
  byLoose: Map<string, Name[]>;
  byPlz: Map<string, string>;
}

let index: Index | undefined;

function load(): Index {
  if (index) return index;
  const seen = new Set<string>();
  const names: Name[] = [];
  const byLoose = new Map<string, Name[]>();
  const byPlz = new Map<string, string>();
  for (const line of plzPlaces.rows) {
    const plz = line.slice(0, 5), name = line.slice(9);
    if (!byPlz.has(plz)) byPlz.set(plz, name);
    if (seen.has(name)) continue;
    seen.add(name);
    const n = { name, key: cityKey(name), loose: looseCityKey(name) };
    names.push(n);
    byLoose.set(n.loose, [...byLoose.get(n.loose) ?? [], n]);
  }
  index = { names, byLoose, byPlz };
  return index;
}

/**
 * The spellings a typed place may stand for besides itself: "Str." and "Straße" (also "Strasse") alike, so that
 * "Neustadt an der Weinstr." finds "Neustadt an der Weinstraße" and the other way round.
 */
export function placeSpellings(typed: string): string[] {
  const t = typed.trim();
  const long = spelledOut(t).replace(/str\.(?=\s|$|-|,)/gi, "straße").replace(/str$/i, "straße");
  const short = t.replace(/stra(ß|ss)e(?=\s|$|-|,)/gi, "str.");
  return [...new Set([t, long, short])];
}

/** The usual abbreviations of place-name qualifiers spelt out: "a.d." → "an der", "i." → "im", "b." → "bei". */
function spelledOut(s: string): string {
  return s.replace(
    /(^|\s)([aio])\.\s*d\.\s*/gi,
    (_, pre, x: string) => `${pre}${QUALIFIER[x.toLowerCase()]} der `,
  )
    .replace(/(^|\s)a\.\s*/gi, "$1am ").replace(/(^|\s)i\.\s*/gi, "$1im ").replace(/(^|\s)b\.\s*/gi, "$1bei ")
    .trim();
}

const QUALIFIER: Record<string, string> = { a: "an", i: "in", o: "ob" };

/**
 * The municipalities a typed name may mean, without its qualifier: "Frankfurt" → "Frankfurt am Main",
 * "Frankfurt (Oder)"; "Halle" → "Halle (Saale)", "Halle (Westf.)". An exact name gives itself first.
 */
export function placeNamesLike(typed: string): string[] {
  const out = new Set<string>();
  for (const s of placeSpellings(typed)) {
    const key = cityKey(s);
    if (!key) continue;
    const loose = looseCityKey(s);
    for (const n of load().byLoose.get(loose) ?? []) if (n.key === key) out.add(n.name);
    for (const n of load().byLoose.get(loose) ?? []) out.add(n.name);
    for (const n of load().byLoose.get(key) ?? []) out.add(n.name);
  }
  return [...out];
}

/** The municipality a postcode belongs to (the main one when it has several), or undefined for an unknown one. */
export function postcodePlace(plz: string): string | undefined {
  return load().byPlz.get(plz);
}

/**
 * Up to `n` municipality names close to a misspelt one ("Muenchn" → "München"), closest first: those whose key
 * (or key without qualifier) lies within {@linkcode closeEnough} edits of the typed one.
 */
export function similarPlaceNames(typed: string, n: number): string[] {
  const key = cityKey(typed);
  if (key.length < 3) return [];
  const scored: Array<{ name: string; d: number }> = [];
  for (const x of load().names) {
    if (Math.abs(x.loose.length - key.length) > 2 && Math.abs(x.key.length - key.length) > 2) continue;
    const d = Math.min(editDistance(key, x.key), editDistance(key, x.loose));
    if (d <= closeEnough(key)) scored.push({ name: x.name, d });
  }
  scored.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name, "de"));
  return scored.slice(0, n).map((x) => x.name);
}

/** How many edits a key of this length may be away from a suggestion: 1 up to 5 letters, then 2. */
export function closeEnough(key: string): number {
  return key.length <= 5 ? 1 : 2;
}

/** The Levenshtein distance of two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
