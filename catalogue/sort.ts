/**
 * The sort orders of the catalogue search, defined once for the search page, the seeker's MCP tool
 * `search_properties` and the REST extension `sort` of GET /api/public/properties (docs/contract.md §2.3).
 *
 * Every order ends in the listing id, so that equal keys keep one fixed order and paging never repeats or skips a
 * listing. Listings without the key (no price, no area) come last in either direction. The default `newest` is the
 * order before sorting existed: publication time, then id, both descending.
 */
import { z } from "zod";
import type { ListingOrder } from "../db/listing_filter.ts";
import { AppError } from "../errors.ts";

/** The sort orders, the default first. */
export const SORT_ORDERS = [
  "newest",
  "price_asc",
  "price_desc",
  "area_desc",
  "area_asc",
  "price_per_sqm_asc",
] as const;

/** A sort order of the catalogue search. */
export type SortOrder = (typeof SORT_ORDERS)[number];

/** The order when none is given: newest first, as before sorting existed. */
export const SORT_DEFAULT: SortOrder = "newest";

/** What each order means, in English (REST, MCP descriptions). */
export const SORT_MEANING: Record<SortOrder, string> = {
  newest: "newest first (publication time, then id, both descending; the default)",
  price_asc: "asked price, lowest first",
  price_desc: "asked price, highest first",
  area_desc: "area in m², largest first",
  area_asc: "area in m², smallest first",
  price_per_sqm_asc: "asked price per m² of area, lowest first (purchase and rent are not separated)",
};

/** One description of the `sort` argument for REST and MCP. */
export const SORT_DESCRIPTION = "Sort order (default newest). " +
  SORT_ORDERS.map((s) => `${s}: ${SORT_MEANING[s]}`).join("; ") +
  ". Ties are broken by the listing id; listings without the sorted value come last.";

/** The `sort` argument as a JSON value. */
export const sortSchema = z.enum(SORT_ORDERS).describe(SORT_DESCRIPTION);

/** Whether `s` names a sort order. */
export function isSortOrder(s: string): s is SortOrder {
  return (SORT_ORDERS as readonly string[]).includes(s);
}

/** The sort order named `s` (undefined: the default); anything else is `invalid_request` naming `sort`. */
export function sortOrderOf(s: string | undefined): SortOrder {
  if (s === undefined) return SORT_DEFAULT;
  if (!isSortOrder(s)) {
    throw new AppError("invalid_request", {
      field: "sort",
      reason: "invalid",
      hint: `one of ${SORT_ORDERS.join(", ")}`,
    });
  }
  return s;
}

/** The database ordering of each sort order: which value and which direction (the id follows in the same direction). */
const ORDER: Record<SortOrder, ListingOrder> = {
  newest: { by: "published_at", dir: "desc" },
  price_asc: { by: "asked_price", dir: "asc" },
  price_desc: { by: "asked_price", dir: "desc" },
  area_desc: { by: "square_meters", dir: "desc" },
  area_asc: { by: "square_meters", dir: "asc" },
  price_per_sqm_asc: { by: "price_per_sqm", dir: "asc" },
};

/** The database ordering of `s`. */
export function listingOrderOf(s: SortOrder): ListingOrder {
  return ORDER[s];
}
