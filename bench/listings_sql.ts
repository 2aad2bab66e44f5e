/**
 * Plain SQL copies of the public catalogue reads of `db/listings.ts`, for the direct-driver floor: the same text
 * and the same parameters that Kysely compiles (checked by `kysely_capture.ts` before every run), without Kysely.
 * The count statement is plain text in `db/listing_filter.ts` already (`totalQuery`), so the floor sends it as it is.
 */
import type { ListingFilter } from "../catalogue/listing.ts";
import { matchColumns, pageShape } from "../db/listings.ts";
import { orderSql, pieceText, priceCells, roomsValues, totalQuery } from "../db/listing_filter.ts";

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
  `"asked_price"::float8 as "asked_price"`,
  `"total_rooms"::float8 as "total_rooms"`,
  `"square_meters"::float8 as "square_meters"`,
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

/**
 * The page query and the count query of `searchPublishedListings(db, f, limit, offset)` when the count answers
 * `total` (the page query's shape depends on it: `pageShape` of db/listings.ts).
 */
export function pageQueries(
  f: ListingFilter,
  limit: number,
  offset: number,
  total: number,
): { items: SqlQuery; count: SqlQuery } {
  const itemParams: Array<string | number> = [];
  const itemWhere = whereClause(f, itemParams);
  const order = `order by ${orderSql(f.order)}`;
  const shape = pageShape(f, total);
  const matches = shape === "matches_first"
    ? `(select ${
      matchColumns(f.order!).map((c) => `"${c}"`).join(", ")
    } from "listings" where ${itemWhere} ` +
      `offset $${itemParams.push(0)}) as "m"`
    : `"listings" where ${itemWhere}`;
  if (shape === "per_rooms" || shape === "per_price") {
    return { items: cellsQuery(f, shape, limit, offset), count: totalQuery(f) };
  }
  const page = `limit $${itemParams.push(limit)} offset $${itemParams.push(offset)}`;
  const items = shape === "plain"
    ? `select ${COLUMNS} from "listings" where ${itemWhere} ${order} ${page}`
    : `select ${COLUMNS} from "listings" where "id" in (select "id" from ${matches} ${order} ${page}) ${order}`;
  return { items: { text: items, params: itemParams }, count: totalQuery(f) };
}

/**
 * The page query of an area order merged per cell (`per_rooms`, `per_price` of db/listing_cells.ts): the first
 * `offset + limit` matches of each cell in area order (largest first: those with an area, and those without one
 * apart unless an area filter drops them), then the page of those.
 */
function cellsQuery(
  f: ListingFilter,
  shape: "per_rooms" | "per_price",
  limit: number,
  offset: number,
): SqlQuery {
  const params: Array<string | number> = [];
  const p = (v: string | number) => `$${params.push(v)}`;
  const order = `order by ${orderSql(f.order)}`;
  const desc = f.order!.dir === "desc";
  const cells = shape === "per_rooms"
    ? pieceText(roomsValues(f.min_rooms!), p)
    : pieceText(priceCells(f.min_price!, f.max_price!), p);
  const member = shape === "per_rooms"
    ? `"total_rooms" = "c"."cell"`
    : `listing_grid_floor('price', "asked_price", false) = "c"."cell"`;
  const known = desc
    ? ` and "square_meters" is not null order by "square_meters" desc, "id" desc`
    : ` ${order}`;
  const each = `(select "id", "square_meters" from "listings" where ${whereClause(f, params)} and ${member}` +
    `${known} limit ${p(offset + limit)}) as "s" on true`;
  let all = `select "s"."id", "s"."square_meters" from ${cells} as "c" inner join lateral ${each}`;
  if (desc && f.min_sqm === undefined) {
    all +=
      ` union all select "n"."id", "n"."square_meters" from (select "id", "square_meters" from "listings" ` +
      `where ${whereClause(f, params)} and "square_meters" is null order by "id" desc limit ${
        p(offset + limit)
      }) as "n"`;
  }
  const ids = `select "m"."id" from (${all}) as "m" ${order} limit ${p(limit)} offset ${p(offset)}`;
  return { text: `select ${COLUMNS} from "listings" where "id" in (${ids}) ${order}`, params };
}

/**
 * The count of the code before migration 0021, for comparison and as the benchmark's oracle: a plain `count(*)`
 * over the listings (index-only where the covering indexes of migration 0005 allow).
 */
export function countStarQuery(f: ListingFilter): SqlQuery {
  const params: Array<string | number> = [];
  return { text: `select count(*)::int as "total" from "listings" where ${whereClause(f, params)}`, params };
}

/** The orders of `catalogue/sort.ts` written out by hand, for the oracle (not built by `db/listings.ts`). */
const ORACLE_ORDER: Record<string, string> = {
  "published_at desc": `"published_at" desc, "id" desc`,
  "asked_price asc": `"asked_price" asc nulls last, "id" asc`,
  "asked_price desc": `"asked_price" desc nulls last, "id" desc`,
  "square_meters asc": `"square_meters" asc nulls last, "id" asc`,
  "square_meters desc": `"square_meters" desc nulls last, "id" desc`,
  "price_per_sqm asc":
    `case when "square_meters" > 0 then "asked_price" / "square_meters" end asc nulls last, "id" asc`,
};

function oracleKey(f: ListingFilter): string {
  return f.order ? `${f.order.by} ${f.order.dir}` : "published_at desc";
}

/** The oracle of the correctness check: the page in one plain statement (the form before issue 23). */
export function plainPageQuery(f: ListingFilter, limit: number, offset: number): SqlQuery {
  const params: Array<string | number> = [];
  const where = whereClause(f, params);
  return {
    text: `select "id" from "listings" where ${where} order by ${ORACLE_ORDER[oracleKey(f)]} ` +
      `limit $${params.push(limit)} offset $${params.push(offset)}`,
    params,
  };
}

/**
 * The page query and count query of the service for a parsed list request (page and page_size applied) whose
 * count answers `total`.
 */
export function searchQueries(f: ListingFilter, total: number): { items: SqlQuery; count: SqlQuery } {
  return pageQueries(f, f.page_size, (f.page - 1) * f.page_size, total);
}

/** The query of `findPublishedListing(db, id)`. */
export function listingQuery(id: string): SqlQuery {
  return {
    text: `select ${COLUMNS} from "listings" where "id" = $1 and "status" = 'published'`,
    params: [id],
  };
}
