/**
 * The public listing (docs/contract.md §2.1), the page of results (2.2) and paging, as zod schemas shared by REST, MCP tools,
 * saved searches and pages. The search filters (4.1) are in `filters.ts`.
 */
import { z } from "zod";
import { PROPERTY_TYPES, TRANSACTION_TYPES } from "../db/schema.ts";

export { PROPERTY_TYPES, TRANSACTION_TYPES } from "../db/schema.ts";
export type { ListingFilter } from "../db/listing_filter.ts";
import { PUBLIC_FIELDS } from "../db/listings.ts";

import { PAGE_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../paging.ts";

export { PAGE_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../paging.ts";

/** A listing exactly as the public sees it: the fields of docs/contract.md §2.1, null where unknown, nothing else. */
export const listingSchema = z.object({
  id: z.string().describe("Listing id (UUID)."),
  title: z.string().nullable(),
  city: z.string().nullable(),
  postal_code: z.string().nullable(),
  property_type: z.enum(PROPERTY_TYPES).nullable(),
  transaction_type: z.enum(TRANSACTION_TYPES).nullable(),
  asked_price: z.number().nullable().describe(
    "Purchase price; for rent the monthly net rent (cold rent); in euro.",
  ),
  total_rooms: z.number().nullable(),
  square_meters: z.number().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  beispiel: z.boolean().describe(
    "true marks an invented sample object shown for illustration, not a real offer.",
  ),
});

/** A public listing. */
export type Listing = z.infer<typeof listingSchema>;

/** The listing fields in the order of docs/contract.md §2.1 (the one list, `db/listings.ts`). */
export const LISTING_FIELDS: ReadonlyArray<keyof Listing> = PUBLIC_FIELDS;

// The schema describes exactly the public fields: a field added to one and not the other fails the type check.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _schemaHasThePublicFields: Same<keyof typeof listingSchema.shape, (typeof PUBLIC_FIELDS)[number]> =
  true;

/** The paging fields of every list (page ≥ 1, default 1; page_size 1–60, default 24). */
export const pagingFields = {
  page: z.number().int().min(1).max(PAGE_MAX).default(1).describe("Page number, from 1 (default 1)."),
  page_size: z.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT)
    .describe(`Results per page, 1 to ${PAGE_SIZE_MAX} (default ${PAGE_SIZE_DEFAULT}).`),
};

/** The paging fields of a page of results (docs/contract.md §2.2) besides `items`, for output schemas. */
export const pageMetaFields = {
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
};

/** A page of results (docs/contract.md §2.2). */
export const pageSchema = pageOf(listingSchema, "Exact number of published listings matching the filters.");

/** A page of public listings. */
export type Page = z.infer<typeof pageSchema>;

/** The schema of a page of `item`s (docs/contract.md §2.2); `total` is described as `totalMeans` when given. */
export function pageOf<T extends z.ZodType>(item: T, totalMeans?: string) {
  const total = totalMeans === undefined ? pageMetaFields.total : pageMetaFields.total.describe(totalMeans);
  return z.object({ items: z.array(item), ...pageMetaFields, total });
}
