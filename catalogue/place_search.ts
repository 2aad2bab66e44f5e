/**
 * The place search of the catalogue (search page and the seeker's MCP tool): a place typed the way people type
 * it, a postcode, and a radius around a place or coordinates, turned into the filters of `db/listings.ts`.
 *
 * Rules, in order:
 * 1. Five digits (alone or before a name: "60311", "60311 Frankfurt") are a postcode.
 * 2. A city matches the stock's cities ignoring case, umlaut spelling, spaces and punctuation (the `city` rule),
 *    "Str." and "Straße" alike. When the stock has listings under one of these spellings, that is the city.
 * 3. Otherwise the names it may mean without a qualifier, in the stock and in the municipalities of the place data
 *    ("Frankfurt" → "Frankfurt am Main", "Frankfurt (Oder)"): one such name is taken, several are offered as a
 *    choice with their numbers of listings. A name the place data knows exactly is taken as it is (0 results).
 * 4. Nothing found: suggestions ("Meinten Sie …?"), cities of the stock and municipalities a few letters away.
 * 5. A radius (km, 1 to {@linkcode RADIUS_KM_MAX}) is measured from the coordinates given, else from the centre of
 *    the place's listings with coordinates; it replaces the place filter (a radius around Frankfurt includes
 *    Offenbach) and keeps only listings with coordinates.
 */
import type { Db } from "../db/connection.ts";
import {
  catalogueCities,
  catalogueCityKeys,
  cityCounts,
  placeCentre,
  withNames,
} from "../db/place_search.ts";
import { AppError } from "../errors.ts";
import { checkFilter } from "./filters.ts";
import type { Page } from "./listing.ts";
import { searchListings, type SearchQuery } from "./search.ts";
import { cityKey, looseCityKey } from "../valuation/places.ts";
import {
  closeEnough,
  editDistance,
  placeNamesLike,
  placeSpellings,
  similarPlaceNames,
} from "./place_names.ts";

/** Largest radius in km. */
export const RADIUS_KM_MAX = 200;

/** The radii the search page offers, in km. */
export const RADIUS_CHOICES = [2, 5, 10, 25, 50, 100] as const;

/** What a seeker gave to say where. */
export interface PlaceInput {
  /** A city or a postcode as typed (the page's "Ort oder PLZ"). */
  place?: string | undefined;
  /** A postcode of five digits. */
  postal_code?: string | undefined;
  /** A radius in km around the place or the coordinates. */
  radius_km?: number | undefined;
  /** Latitude of the centre of a radius. */
  lat?: number | undefined;
  /** Longitude of the centre of a radius. */
  lng?: number | undefined;
}

/** The place filters of `db/listings.ts` that a place input stands for. */
export interface PlaceFilter {
  city?: string | undefined;
  postal_code?: string | undefined;
  near?: { lat: number; lng: number; km: number } | undefined;
}

/** A city offered to choose or suggested, with its published listings. */
export interface PlaceOption {
  /** The name as the stock or the place data spells it. */
  city: string;
  /** Published listings under this name. */
  count: number;
}

/** What a place input means: filters (and the place taken, when it differs from the input), a choice, or nothing. */
export type PlaceOutcome =
  | { kind: "found"; filter: PlaceFilter; taken?: string | undefined }
  | { kind: "choose"; typed: string; options: PlaceOption[] }
  | { kind: "unknown"; typed: string; suggestions: PlaceOption[] }
  | { kind: "no_centre"; typed: string };

/** How many suggestions at most. */
const SUGGESTIONS = 5;

/**
 * The filters of a place input by the rules of this module; `invalid_request` naming the field for a radius
 * without a centre, half a coordinate pair, or coordinates without a radius.
 */
export async function resolvePlaceSearch(db: Db, input: PlaceInput): Promise<PlaceOutcome> {
  checkRadiusInput(input);
  const typed = input.place?.trim() ?? "";
  const code = /^([0-9]{5})(?:[\s,]+.*)?$/.exec(typed)?.[1];
  const place: PlaceFilter = { postal_code: input.postal_code ?? code };
  let taken: string | undefined;
  if (typed !== "" && code === undefined) {
    const city = await resolveCity(db, typed);
    if (city.kind !== "found") return city;
    place.city = city.city;
    if (city.city !== typed) taken = city.city;
  }
  if (input.radius_km === undefined) return { kind: "found", filter: place, taken };
  const centre = input.lat !== undefined && input.lng !== undefined
    ? { lat: input.lat, lng: input.lng }
    : await placeCentre(db, place);
  if (!centre) return { kind: "no_centre", typed: typed || (input.postal_code ?? "") };
  return { kind: "found", filter: { near: { ...centre, km: input.radius_km } }, taken };
}

/** The rules between the radius fields that no single field can say; throws `invalid_request`. */
export function checkRadiusInput(input: PlaceInput): void {
  if ((input.lat === undefined) !== (input.lng === undefined)) {
    throw new AppError("invalid_request", {
      field: input.lat === undefined ? "lat" : "lng",
      reason: "missing",
    });
  }
  if (input.lat !== undefined && input.radius_km === undefined) {
    throw new AppError("invalid_request", { field: "radius_km", reason: "missing" });
  }
  const somewhere = input.lat !== undefined || (input.place?.trim() ?? "") !== "" ||
    input.postal_code !== undefined;
  if (input.radius_km !== undefined && !somewhere) {
    throw new AppError("invalid_request", {
      field: "radius_km",
      reason: "missing",
      hint: "a radius needs a place, a postcode or lat and lng",
    });
  }
}

/** A typed city: found (as the stock or the place data spells it), a choice, or suggestions. */
async function resolveCity(
  db: Db,
  typed: string,
): Promise<{ kind: "found"; city: string } | Exclude<PlaceOutcome, { kind: "found" }>> {
  const spellings = placeSpellings(typed);
  const keys = [...new Set(spellings.map(cityKey).filter(Boolean))];
  const counts = await cityCounts(db, keys);
  const inCatalogue = spellings.filter((s) => counts.has(cityKey(s)))
    .sort((a, b) => counts.get(cityKey(b))! - counts.get(cityKey(a))!);
  if (inCatalogue.length > 0) return { kind: "found", city: inCatalogue[0]! };
  const options = await optionsFor(db, typed, keys);
  // A name the place data knows exactly is taken when it says which one ("Frankfurt (Oder)") or when no other
  // name it may mean has listings ("Halle" with no listings, but "Halle (Saale)" with some, is a choice).
  const exact = options.find((o) => keys.includes(cityKey(o.city)));
  const qualified = looseCityKey(typed) !== cityKey(typed);
  if (exact && (qualified || options.every((o) => o === exact || o.count === 0))) {
    return { kind: "found", city: exact.city };
  }
  if (options.length === 1) return { kind: "found", city: options[0]!.city };
  if (options.length > 1) return { kind: "choose", typed, options };
  return { kind: "unknown", typed, suggestions: await suggestionsFor(db, typed) };
}

/** The cities of the stock and the municipalities a typed name may mean without its qualifier, most listings first. */
async function optionsFor(db: Db, typed: string, keys: string[]): Promise<PlaceOption[]> {
  const loose = new Set(placeSpellings(typed).map(looseCityKey));
  const stock = (await Promise.all(keys.map((k) => catalogueCities(db, k, 20)))).flat()
    .filter((c) => loose.has(looseCityKey(c.name)));
  const names = placeNamesLike(typed);
  const counts = await cityCounts(db, names.map(cityKey));
  return merge([
    ...stock.map((c) => ({ city: c.name, count: c.count })),
    ...names.map((n) => ({ city: n, count: counts.get(cityKey(n)) ?? 0 })),
  ]);
}

/** Cities of the stock and municipalities a few letters away from a typed name that matched nothing. */
async function suggestionsFor(db: Db, typed: string): Promise<PlaceOption[]> {
  const key = cityKey(typed);
  if (key.length < 3) return [];
  // Cities a few letters away (also from the start of a longer name: "Frankfrut" → "Frankfurt am Main"), and
  // cities whose name starts with the input's first word ("Berlin-Mitte" → "Berlin"); keys first, from the counts
  // alone, names only for the few that match.
  const close = closeEnough(key);
  const first = cityKey(typed.split(/[\s\-/,(]+/)[0] ?? "");
  const keys = (await catalogueCityKeys(db, "", 5000)).filter((c) =>
    editDistance(key, c.key) <= close ||
    (c.key.length > key.length && editDistance(key, c.key.slice(0, key.length)) <= close) ||
    (first.length >= 4 && first !== key && c.key.startsWith(first))
  );
  const stock = await withNames(db, keys.slice(0, 2 * SUGGESTIONS));
  const names = similarPlaceNames(typed, SUGGESTIONS);
  const counts = await cityCounts(db, names.map(cityKey));
  return merge([
    ...stock.map((c) => ({ city: c.name, count: c.count })),
    ...names.map((n) => ({ city: n, count: counts.get(cityKey(n)) ?? 0 })),
  ]).slice(0, SUGGESTIONS);
}

/** Options without two of the same key (the first kept), most listings first, then by name. */
function merge(options: PlaceOption[]): PlaceOption[] {
  const byKey = new Map<string, PlaceOption>();
  for (const o of options) if (!byKey.has(cityKey(o.city))) byKey.set(cityKey(o.city), o);
  return [...byKey.values()].sort((a, b) => b.count - a.count || a.city.localeCompare(b.city, "de"));
}

/**
 * The place filters of exact input (the MCP tool, whose `city` keeps the REST rule): the city and postcode as
 * given, or a radius around the coordinates or around the centre of that city's or postcode's listings;
 * `invalid_request` naming `radius_km` when no listing there has coordinates.
 */
export async function exactPlaceFilter(
  db: Db,
  input: { city?: string | undefined } & Omit<PlaceInput, "place">,
): Promise<PlaceFilter> {
  checkRadiusInput({ ...input, place: input.city });
  const place = { city: input.city, postal_code: input.postal_code };
  if (input.radius_km === undefined) return place;
  const centre = input.lat !== undefined && input.lng !== undefined
    ? { lat: input.lat, lng: input.lng }
    : await placeCentre(db, place);
  if (!centre) {
    throw new AppError("invalid_request", {
      field: "radius_km",
      reason: "invalid",
      hint: "no listing of this place has coordinates; give lat and lng",
    });
  }
  return { near: { ...centre, km: input.radius_km } };
}

/**
 * What a city that found nothing may have meant: the names it may stand for (a choice), else suggestions a few
 * letters away; empty when it matches a city exactly.
 */
export async function placeHints(db: Db, city: string): Promise<PlaceOption[]> {
  const r = await resolvePlaceSearch(db, { place: city });
  if (r.kind === "choose") return r.options;
  if (r.kind === "unknown") return r.suggestions;
  if (r.kind !== "found" || r.taken === undefined) return [];
  const key = cityKey(r.taken);
  return [{ city: r.taken, count: (await cityCounts(db, [key])).get(key) ?? 0 }];
}

/** A search by a typed place (the search page): what the place means and, when it was found, the page. */
export interface PlaceSearchResult {
  /** What the place input means. */
  outcome: PlaceOutcome;
  /** The page of results when the place was found. */
  page?: Page | undefined;
}

/**
 * Resolves the place input by the rules of this module and, when it is found, searches with its filters and the
 * other filters, paging and order of `q`; throws like {@linkcode resolvePlaceSearch} and `searchListings`.
 */
export async function searchByPlace(
  db: Db,
  q: Omit<SearchQuery, "city" | "postal_code" | "near">,
  place: PlaceInput,
): Promise<PlaceSearchResult> {
  checkFilter(q);
  const outcome = await resolvePlaceSearch(db, place);
  if (outcome.kind !== "found") return { outcome };
  return { outcome, page: await searchListings(db, { ...q, ...outcome.filter }) };
}
