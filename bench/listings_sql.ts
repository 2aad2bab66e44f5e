/**
 * Plain SQL copies of the public catalogue reads of `db/listings.ts`, for the direct-driver floor: the same text
 * and the same parameters that Kysely compiles (checked by `kysely_capture.ts` before every run), without Kysely.
 */
import type { ListingFilter } from "../catalogue/listing.ts";

/** One statement with its positional parameters, as handed to postgres.js `sql.unsafe(text, params)`. */
export interface SqlQuery {
  /** Statement text with `$n` placeholders. */
  text: string;
  /** Parameter values in placeholder order. */
  params: Array<string | number>;
}

const COLUMNS = [
  `"id"`,
  `"title"`,
  `"city"`,
  `"postal_code"`,
  `"property_type"`,
  `"transaction_type"`,
  `asked_price::float8 as "asked_price"`,
  `total_rooms::float8 as "total_rooms"`,
  `square_meters::float8 as "square_meters"`,
  `"latitude"`,
  `"longitude"`,
  `"beispiel"`,
].join(", ");

function whereClause(f: ListingFilter, params: Array<string | number>): string {
  const p = (v: string | number) => `$${params.push(v)}`;
  const and = [`"status" = 'published'`];
  if (f.city !== undefined) and.push(`"city_key" = city_key(${p(f.city)})`);
  if (f.transaction_type !== undefined) and.push(`"transaction_type" = ${p(f.transaction_type)}`);
  if (f.property_type !== undefined) and.push(`"property_type" = ${p(f.property_type)}`);
  if (f.min_price !== undefined) and.push(`"asked_price" >= ${p(f.min_price)}`);
  if (f.max_price !== undefined) and.push(`"asked_price" <= ${p(f.max_price)}`);
  if (f.min_rooms !== undefined) and.push(`"total_rooms" >= ${p(f.min_rooms)}`);
  if (f.min_sqm !== undefined) and.push(`"square_meters" >= ${p(f.min_sqm)}`);
  return and.length === 1 ? and[0]! : `(${and.join(" and ")})`;
}

/** The page query and the count query of `searchPublishedListings(db, f, limit, offset)`. */
export function pageQueries(
  f: ListingFilter,
  limit: number,
  offset: number,
): { items: SqlQuery; count: SqlQuery } {
  const itemParams: Array<string | number> = [];
  const itemWhere = whereClause(f, itemParams);
  const items =
    `select ${COLUMNS} from "listings" where ${itemWhere} order by "published_at" desc, "id" desc ` +
    `limit $${itemParams.push(limit)} offset $${itemParams.push(offset)}`;
  const countParams: Array<string | number> = [];
  const filtered = [
    f.city,
    f.transaction_type,
    f.property_type,
    f.min_price,
    f.max_price,
    f.min_rooms,
    f.min_sqm,
  ]
    .some((v) => v !== undefined);
  // Without filters the service reads the trigger-kept total (migration 0004) instead of counting.
  const count = filtered
    ? `select count(*)::int as "total" from "listings" where ${whereClause(f, countParams)}`
    : `select "published" from "listing_stats"`;
  return { items: { text: items, params: itemParams }, count: { text: count, params: countParams } };
}

/** The page query and count query of the service for a parsed list request (page and page_size applied). */
export function searchQueries(f: ListingFilter): { items: SqlQuery; count: SqlQuery } {
  return pageQueries(f, f.page_size, (f.page - 1) * f.page_size);
}

/** The query of `findPublishedListing(db, id)`. */
export function listingQuery(id: string): SqlQuery {
  return {
    text: `select ${COLUMNS} from "listings" where "id" = $1 and "status" = 'published'`,
    params: [id],
  };
}
