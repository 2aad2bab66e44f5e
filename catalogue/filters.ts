/**
 * The catalogue filters of docs/contract.md §2.3 (paging excluded) and the rule between them, in one place for REST, the MCP
 * tools, saved searches and the search page. Every filter is optional; the given ones combine with AND.
 *
 * - {@linkcode filterFields}: the filters as JSON values (MCP arguments, stored saved searches).
 * - {@linkcode filterTextFields}: the same filters written as text (a query string): numbers are plain decimals
 *   ("250000", "2.5"), then the same bounds. The search page first turns its German input into that text.
 * - {@linkcode checkFilter}: min_price ≤ max_price, which no single field can say (`invalid_request`).
 */
import { z } from "zod";
import { AppError } from "../errors.ts";
import { citySchema } from "./city.ts";
import { type ListingFilter, PROPERTY_TYPES, TRANSACTION_TYPES } from "./listing.ts";

/** Largest value accepted for the numeric filters (price, rooms, area). */
export const FILTER_NUMBER_MAX = 1_000_000_000_000;

/** The filter fields in the order of docs/contract.md §2.3. */
export const FILTER_KEYS = [
  "city",
  "transaction_type",
  "property_type",
  "min_price",
  "max_price",
  "min_rooms",
  "min_sqm",
] as const;

/** What each filter means, as REST and the MCP tools describe it. */
export const FILTER_DESCRIPTIONS = {
  city: "City name. Matches ignoring case, umlaut spelling (München = Muenchen), spaces and punctuation.",
  min_price: "Lowest asked price in euro; listings without a price are excluded.",
  max_price: "Highest asked price in euro; listings without a price are excluded.",
  min_rooms: "Fewest rooms; listings without a room count are excluded.",
  min_sqm: "Smallest area in m²; listings without an area are excluded.",
} as const;

/** A numeric filter's bounds: 0 to {@linkcode FILTER_NUMBER_MAX}. */
const amount = z.number()
  .min(0, "must be at least 0")
  .max(FILTER_NUMBER_MAX, `must be at most ${FILTER_NUMBER_MAX}`);

/** A numeric filter written as text: a plain decimal (no sign, exponent or spaces, ≤ 6 decimals), then bounds. */
export const amountText = z.string()
  .regex(/^[0-9]{1,13}(\.[0-9]{1,6})?$/, "must be a non-negative decimal number such as 250000 or 2.5")
  .transform(Number)
  .pipe(amount);

/** The filters as JSON values; every one optional. */
export const filterFields = {
  city: citySchema.optional().describe(FILTER_DESCRIPTIONS.city),
  transaction_type: z.enum(TRANSACTION_TYPES).optional(),
  property_type: z.enum(PROPERTY_TYPES).optional(),
  min_price: amount.optional().describe(FILTER_DESCRIPTIONS.min_price),
  max_price: amount.optional().describe(FILTER_DESCRIPTIONS.max_price),
  min_rooms: amount.optional().describe(FILTER_DESCRIPTIONS.min_rooms),
  min_sqm: amount.optional().describe(FILTER_DESCRIPTIONS.min_sqm),
};

/** The filters written as text (a query string): the same fields and bounds, numbers as plain decimals. */
export const filterTextFields = {
  ...filterFields,
  min_price: amountText.optional().describe(FILTER_DESCRIPTIONS.min_price),
  max_price: amountText.optional().describe(FILTER_DESCRIPTIONS.max_price),
  min_rooms: amountText.optional().describe(FILTER_DESCRIPTIONS.min_rooms),
  min_sqm: amountText.optional().describe(FILTER_DESCRIPTIONS.min_sqm),
};

/** The filters of a saved search: the catalogue filters without paging; unknown keys are refused. */
export const searchFiltersSchema = z.strictObject(filterFields);

/** Catalogue filters without paging. */
export type SearchFilters = z.infer<typeof searchFiltersSchema>;

/** Only the filters that are set, in the order of docs/contract.md §2.3. */
export function definedFilters(f: Partial<ListingFilter>): SearchFilters {
  const out: Record<string, unknown> = {};
  for (const k of FILTER_KEYS) if (f[k] !== undefined) out[k] = f[k];
  return out as SearchFilters;
}

/** Whether the filters keep min_price ≤ max_price (true when either is not given). */
export function pricesInOrder(f: Pick<SearchFilters, "min_price" | "max_price">): boolean {
  return f.min_price === undefined || f.max_price === undefined || f.min_price <= f.max_price;
}

/** Checks the rule between filters that a single field cannot express; throws `invalid_request`. */
export function checkFilter(f: Pick<SearchFilters, "min_price" | "max_price">): void {
  if (!pricesInOrder(f)) {
    throw new AppError("invalid_request", { field: "min_price", reason: "min_above_max" });
  }
}
