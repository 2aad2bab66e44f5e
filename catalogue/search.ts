/** Searching and reading the public catalogue: the rules shared by REST, MCP and pages. */
import { isUuid } from "../ids.ts";
import type { Db } from "../db/connection.ts";
import { findPublishedListing, searchPublishedListings } from "../db/listings.ts";
import { findPublishedListingWithDetails } from "../db/listing_details.ts";
import type { ListingDetails } from "./listing_details.ts";
import { AppError } from "../errors.ts";
import { checkFilter } from "./filters.ts";
import type { Listing, ListingFilter, Page } from "./listing.ts";
import { listingOrderOf, SORT_DEFAULT, type SortOrder } from "./sort.ts";

/** A catalogue search: the filters, paging, and the sort order by its name (default newest first). */
export type SearchQuery = Omit<ListingFilter, "order"> & { sort?: SortOrder | undefined };

/**
 * One page of published listings matching `f` in the order `f.sort` (`sort.ts`; default newest first: publication
 * time, then id, both descending), with the exact total; `invalid_request` when min_price > max_price. A price
 * filter excludes listings without a price; `city` ignores case, umlaut spelling, spaces and punctuation.
 */
export async function searchListings(db: Db, f: SearchQuery): Promise<Page> {
  checkFilter(f);
  const { sort, ...filter } = f;
  const query: ListingFilter = { ...filter, order: listingOrderOf(sort ?? SORT_DEFAULT) };
  const { items, total } = await searchPublishedListings(db, query, f.page_size, (f.page - 1) * f.page_size);
  return { items, total, page: f.page, page_size: f.page_size };
}

/**
 * The published listing `id` with its details (docs/contract.md §4.14; null where not given), read in one
 * statement; an unknown, unpublished or malformed id throws `not_found`.
 */
export async function getPublicListingWithDetails(db: Db, id: string): Promise<Listing & ListingDetails> {
  return await publishedOrNotFound(id, (lower) => findPublishedListingWithDetails(db.kysely, lower));
}

/** The published listing `id`; an unknown, unpublished or malformed id throws `not_found`. */
export async function getPublicListing(db: Db, id: string): Promise<Listing> {
  return await publishedOrNotFound(id, (lower) => findPublishedListing(db, lower));
}

/** What `find` answers for the lower-cased `id`; `not_found` for a malformed id or when it answers nothing. */
async function publishedOrNotFound<T>(id: string, find: (id: string) => Promise<T | undefined>): Promise<T> {
  if (!isUuid(id)) throw new AppError("not_found");
  const row = await find(id.toLowerCase());
  if (!row) throw new AppError("not_found");
  return row;
}
