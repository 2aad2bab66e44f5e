/**
 * The catalogue filters of spec 4.1 as JSON values (numbers, not query strings), with the same bounds as the REST
 * query schema of `routes/catalogue.ts`. Used by the MCP catalogue tool and by saved searches.
 */
import { z } from "zod";
import { euro, num, PROPERTY_TYPE_DE } from "../catalogue/german.ts";
import {
  FILTER_KEYS,
  FILTER_NUMBER_MAX,
  hasControlChars,
  type ListingFilter,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
} from "../catalogue/listing.ts";

function amount(description: string) {
  return z.number().min(0).max(FILTER_NUMBER_MAX).optional().describe(description);
}

/** The filter fields of spec 4.1 (paging excluded); every one optional, all given ones combine with AND. */
export const filterFields = {
  city: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters")
    .refine((s) => !hasControlChars(s), "must not contain control characters").optional()
    .describe("Ort/City. Ignores case, umlaut spelling (München = Muenchen), spaces and punctuation."),
  transaction_type: z.enum(TRANSACTION_TYPES).optional().describe("buy (Kauf) or rent (Miete)."),
  property_type: z.enum(PROPERTY_TYPES).optional().describe("apartment, house, land or commercial."),
  min_price: amount("Lowest asked price in euro; listings without a price are excluded."),
  max_price: amount("Highest asked price in euro; listings without a price are excluded."),
  min_rooms: amount("Fewest rooms; listings without a room count are excluded."),
  min_sqm: amount("Smallest area in m²; listings without an area are excluded."),
};

/** The filters of a saved search: the catalogue filters without paging; unknown keys are refused. */
export const searchFiltersSchema = z.strictObject(filterFields);

/** Catalogue filters without paging. */
export type SearchFilters = z.infer<typeof searchFiltersSchema>;

/** Only the filters that are set, in the order of spec 4.1. */
export function definedFilters(f: Partial<ListingFilter>): SearchFilters {
  const out: Record<string, unknown> = {};
  for (const k of FILTER_KEYS) if (f[k] !== undefined) out[k] = f[k];
  return out as SearchFilters;
}

/** A short German rendering of filters, e.g. "Köln, Kauf, Wohnung, bis 500.000 €"; "keine Filter" when empty. */
export function filtersText(f: SearchFilters): string {
  const parts = [
    f.city,
    f.transaction_type === "buy" ? "Kauf" : f.transaction_type === "rent" ? "Miete" : undefined,
    f.property_type ? PROPERTY_TYPE_DE[f.property_type] : undefined,
    f.min_price !== undefined ? `ab ${euro.format(f.min_price)}` : undefined,
    f.max_price !== undefined ? `bis ${euro.format(f.max_price)}` : undefined,
    f.min_rooms !== undefined ? `ab ${num.format(f.min_rooms)} Zimmer` : undefined,
    f.min_sqm !== undefined ? `ab ${num.format(f.min_sqm)} m²` : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length ? parts.join(", ") : "keine Filter";
}
