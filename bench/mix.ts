/**
 * The request mix of the catalogue benchmark: list requests with a realistic spread of filters and pages, as the
 * parsed filter (for the direct-driver floor) and as the URL path (for wrk), plus listing ids for single reads.
 */
import {
  type ListingFilter,
  PAGE_SIZE_DEFAULT,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
} from "../catalogue/listing.ts";
import { prng, SAMPLE_CITIES } from "../catalogue/sample.ts";
import { listingOrderOf, SORT_DEFAULT, SORT_ORDERS, type SortOrder } from "../catalogue/sort.ts";

/** One list request of the mix. */
export interface ListRequest {
  /** What kind of search it is (for reporting). */
  kind: string;
  /** The filter exactly as the service parses it from `path`. */
  filter: ListingFilter;
  /** Path and query string, percent-encoded. */
  path: string;
  /** The sort order asked for (`sort=` in the path unless the default). */
  sort: SortOrder;
}

/** Path of the list endpoint. */
export const LIST_PATH = "/api/public/properties";

/** Spellings of a city name that the service must treat alike (case, umlauts as ae/oe/ue, hyphens). */
export function citySpellings(name: string): string[] {
  const ascii = name.replaceAll("ä", "ae").replaceAll("ö", "oe").replaceAll("ü", "ue").replaceAll("ß", "ss")
    .replaceAll("Ä", "Ae").replaceAll("Ö", "Oe").replaceAll("Ü", "Ue");
  const out = new Set([name, name.toLowerCase(), name.toUpperCase(), ascii, ascii.toLowerCase()]);
  if (name.includes(" ")) out.add(name.replaceAll(" ", "-"));
  return [...out];
}

/** The query string of a filter (page 1 and the default page size are sometimes left out, as browsers do). */
function pathOf(f: ListingFilter, explicitDefaults: boolean, sort: SortOrder = SORT_DEFAULT): string {
  const parts: string[] = [];
  const add = (k: string, v: string | number | undefined) => {
    if (v !== undefined) parts.push(`${k}=${encodeURIComponent(String(v))}`);
  };
  add("city", f.city);
  add("transaction_type", f.transaction_type);
  add("property_type", f.property_type);
  add("min_price", f.min_price);
  add("max_price", f.max_price);
  add("min_rooms", f.min_rooms);
  add("min_sqm", f.min_sqm);
  if (explicitDefaults || f.page !== 1) add("page", f.page);
  if (explicitDefaults || f.page_size !== PAGE_SIZE_DEFAULT) add("page_size", f.page_size);
  if (sort !== SORT_DEFAULT) add("sort", sort);
  return parts.length ? `${LIST_PATH}?${parts.join("&")}` : LIST_PATH;
}

/** A real small town that the benchmark gives only a handful of listings: a city that matches almost nothing. */
export const RARE_CITY = "Wiesenttal";

/** Share of each kind added to today's mix: every range filter combined, and {@linkcode RARE_CITY}. */
export const ADDED_SHARE = 0.05;

/**
 * `n` list requests of the mix before issue 23 (the same requests for the same seed), followed by
 * `n` × {@linkcode ADDED_SHARE} requests of each added kind: all range filters combined, and a rare city.
 */
export function listMix(n: number, seed = 4711): ListRequest[] {
  return withSorts([...baseMix(n, seed), ...addedMix(Math.round(n * ADDED_SHARE), seed + 1)], seed + 2);
}

/** Share of the list requests (issue 31) that ask for another order than newest first, spread over the others. */
export const SORTED_SHARE = 0.5;

/** The requests with a sort order each: the default for 1 − {@linkcode SORTED_SHARE}, the others evenly. */
function withSorts(list: ListRequest[], seed: number): ListRequest[] {
  const rand = prng(seed);
  const others = SORT_ORDERS.filter((x) => x !== SORT_DEFAULT);
  return list.map((r) => {
    const sort = rand() < SORTED_SHARE ? others[Math.floor(rand() * others.length)]! : SORT_DEFAULT;
    return sorted(r, sort, rand() < 0.3);
  });
}

/** The request `r` in the order `sort`. */
function sorted(r: ListRequest, sort: SortOrder, explicitDefaults: boolean): ListRequest {
  const filter: ListingFilter = { ...r.filter, order: listingOrderOf(sort) };
  return { ...r, sort, filter, path: pathOf(filter, explicitDefaults, sort) };
}

/** Every request of `list` in the order `sort` (the per-order runs of the benchmark). */
export function inOrder(list: ListRequest[], sort: SortOrder): ListRequest[] {
  return list.map((r) => sorted(r, sort, false));
}

/** Requests with every range filter combined (bounds mostly round, some not), and requests for a rare city. */
function addedMix(n: number, seed: number): ListRequest[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const chance = (p: number) => rand() < p;
  const spellings = SAMPLE_CITIES.map((c) => citySpellings(c.name));
  const out: ListRequest[] = [];
  for (let i = 0; i < n; i++) {
    const buy = chance(0.6);
    const f: ListingFilter = { page: chance(0.7) ? 1 : 2, page_size: chance(0.75) ? 24 : 60 };
    f.transaction_type = buy ? "buy" : "rent";
    f.min_price = buy ? pick([100_000, 150_000, 200_000, 250_000, 300_000]) : pick([500, 600, 800, 1000]);
    f.max_price = f.min_price + (buy ? pick([100_000, 200_000, 350_000]) : pick([400, 700, 1200]));
    if (chance(0.1)) f.min_price += buy ? 4_321 : 21; // off the grids: a boundary bucket to count
    f.min_rooms = pick([1, 2, 2.5, 3, 4]);
    f.min_sqm = pick([40, 50, 60, 70, 80, 100, 120]);
    if (chance(0.3)) f.city = pick(pick(spellings));
    if (chance(0.2)) f.property_type = chance(0.7) ? "apartment" : "house";
    out.push({ kind: "all ranges", filter: f, path: pathOf(f, chance(0.3)), sort: SORT_DEFAULT });
  }
  for (let i = 0; i < n; i++) {
    const f: ListingFilter = { page: 1, page_size: chance(0.75) ? 24 : 60 };
    f.city = pick(citySpellings(RARE_CITY));
    if (chance(0.4)) f.transaction_type = pick(TRANSACTION_TYPES);
    if (chance(0.3)) f.min_rooms = pick([2, 3]);
    out.push({ kind: "rare city", filter: f, path: pathOf(f, chance(0.3)), sort: SORT_DEFAULT });
  }
  return out;
}

/** `n` list requests with the kinds and shares of the mix before issue 23, deterministic for a seed. */
function baseMix(n: number, seed: number): ListRequest[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const chance = (p: number) => rand() < p;
  const page = (max: number) => {
    // page 1 is the most common, then fewer and fewer visitors page on
    const r = rand();
    const p = r < 0.45 ? 1 : Math.min(max, 2 + Math.floor(((r - 0.45) / 0.55) * (max - 1)));
    return p;
  };
  const pageSize = () => (chance(0.75) ? 24 : 60);
  const spellings = SAMPLE_CITIES.map((c) => citySpellings(c.name));
  const out: ListRequest[] = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    let kind: string;
    const f: ListingFilter = { page: 1, page_size: pageSize() };
    if (r < 0.25) {
      kind = "no filter";
      f.page = page(5);
    } else if (r < 0.55) {
      kind = "city";
      f.city = pick(pick(spellings));
      f.page = page(3);
      if (chance(0.5)) {
        kind = "city+transaction";
        f.transaction_type = pick(TRANSACTION_TYPES);
        if (chance(0.4)) {
          kind = "city+transaction+property";
          f.property_type = chance(0.7) ? "apartment" : "house";
        }
      }
    } else if (r < 0.7) {
      kind = "transaction/property";
      const c = rand();
      if (c < 0.6) {
        f.transaction_type = pick(TRANSACTION_TYPES);
        f.property_type = pick(PROPERTY_TYPES);
      } else if (c < 0.8) {
        f.transaction_type = pick(TRANSACTION_TYPES);
      } else {
        f.property_type = pick(PROPERTY_TYPES);
      }
      f.page = page(4);
    } else if (r < 0.82) {
      kind = "price range";
      const buy = chance(0.6);
      f.transaction_type = buy ? "buy" : "rent";
      const lo = buy
        ? pick([100_000, 150_000, 200_000, 250_000, 300_000, 400_000])
        : pick([400, 600, 800, 1000]);
      if (chance(0.8)) f.min_price = lo;
      f.max_price = buy ? lo + pick([100_000, 200_000, 350_000]) : lo + pick([400, 700, 1200]);
      if (chance(0.3)) {
        kind = "price range+city";
        f.city = pick(pick(spellings));
      }
      f.page = page(3);
    } else if (r < 0.91) {
      kind = "min_rooms";
      f.min_rooms = pick([2, 2.5, 3, 4, 5]);
      if (chance(0.6)) f.transaction_type = pick(TRANSACTION_TYPES);
      if (chance(0.3)) f.city = pick(pick(spellings));
      f.page = page(3);
    } else {
      kind = "min_sqm";
      f.min_sqm = pick([50, 70, 80, 100, 120, 150]);
      if (chance(0.5)) f.property_type = chance(0.7) ? "apartment" : "house";
      if (chance(0.3)) f.city = pick(pick(spellings));
      f.page = page(3);
    }
    out.push({ kind, filter: f, path: pathOf(f, chance(0.3)), sort: SORT_DEFAULT });
  }
  return out;
}

/** The filters a list request uses, e.g. `city+transaction_type` or `no filter` (paging left out). */
export function filterSignature(f: ListingFilter): string {
  const keys =
    (["city", "transaction_type", "property_type", "min_price", "max_price", "min_rooms", "min_sqm"] as const)
      .filter((k) => f[k] !== undefined);
  return keys.length ? keys.join("+") : "no filter";
}

/** Path of the single-listing endpoint for `id`. */
export function listingPath(id: string): string {
  return `${LIST_PATH}/${id}`;
}
