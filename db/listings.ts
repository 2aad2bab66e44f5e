/** SQL of the listings aggregate. Public reads select only the columns of docs/contract.md §2.1 and never join contacts. */
import {
  CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  sql,
  type SqlBool,
} from "kysely";
import type { Db } from "./connection.ts";
import type { Database, ListingsTable, PROPERTY_TYPES, TRANSACTION_TYPES } from "./schema.ts";
import {
  kyselyPiece,
  type ListingFilter,
  type ListingOrder,
  NEWEST_FIRST,
  orderSql,
  placeConditions,
  totalQuery,
} from "./listing_filter.ts";
import { cellPageIds, type CellShape, cellShape } from "./listing_cells.ts";

/** A listing as the public sees it: the fields of docs/contract.md §2.1 (the zod schema of catalogue/listing.ts describes it). */
export interface Listing {
  id: string;
  title: string | null;
  city: string | null;
  postal_code: string | null;
  property_type: (typeof PROPERTY_TYPES)[number] | null;
  transaction_type: (typeof TRANSACTION_TYPES)[number] | null;
  asked_price: number | null;
  total_rooms: number | null;
  square_meters: number | null;
  latitude: number | null;
  longitude: number | null;
  beispiel: boolean;
}

/** A listing's place and facts (docs/contract.md §2.1), in the contract's order: the provider writes them all. */
export const LISTING_FACTS = [
  "city",
  "postal_code",
  "property_type",
  "transaction_type",
  "asked_price",
  "total_rooms",
  "square_meters",
  "latitude",
  "longitude",
] as const satisfies ReadonlyArray<keyof Listing>;

/** The public fields of docs/contract.md §2.1, in the contract's order: the one list of them. */
export const PUBLIC_FIELDS = ["id", "title", ...LISTING_FACTS, "beispiel"] as const satisfies ReadonlyArray<
  keyof Listing
>;

/** The numeric columns, cast to float8 so both drivers answer numbers. */
const FLOAT_FIELDS: ReadonlySet<string> = new Set(["asked_price", "total_rooms", "square_meters"]);

/** {@linkcode PUBLIC_FIELDS} as selections of the query builder. */
export const PUBLIC_COLUMNS = PUBLIC_FIELDS.map((f) =>
  FLOAT_FIELDS.has(f) ? sql<number | null>`${sql.ref(f)}::float8`.as(f) : f
) as unknown as readonly (keyof Listing)[];

/** The WHERE clause of the catalogue search: published rows matching every given filter of `f` (paging ignored). */
export function filterWhere(f: ListingFilter) {
  return (eb: ExpressionBuilder<Database, "listings">) => {
    // A literal, not a parameter: a reused (generic) plan can then use the partial indexes on published rows.
    const and: Array<Expression<SqlBool>> = [eb("status", "=", sql.lit("published"))];
    if (f.city !== undefined) and.push(eb("city_key", "=", sql<string>`city_key(${f.city})`));
    if (f.transaction_type !== undefined) and.push(eb("transaction_type", "=", f.transaction_type));
    if (f.property_type !== undefined) and.push(eb("property_type", "=", f.property_type));
    if (f.min_price !== undefined) and.push(eb("asked_price", ">=", f.min_price));
    if (f.max_price !== undefined) and.push(eb("asked_price", "<=", f.max_price));
    if (f.min_rooms !== undefined) and.push(eb("total_rooms", ">=", f.min_rooms));
    if (f.min_sqm !== undefined) and.push(eb("square_meters", ">=", f.min_sqm));
    for (const c of placeConditions(f)) and.push(kyselyPiece(c));
    return eb.and(and);
  };
}

/**
 * At most this many matches, a sorted page takes them all from the filters' best index and sorts them itself:
 * reading 10,000 entries of a covering index and sorting them costs a few ms, while walking an order's index to
 * the first page can skip hundreds of thousands of entries when the filters pick rows at its far end
 * (docs/benchmarks.md §3.2).
 */
export const MATCHES_FIRST_MAX = 10_000;

/**
 * In one town of one transaction type sorted by area (a city and a transaction type), or in a postcode, up to this
 * many matches are read first: the town's indexes (migrations 0032, 0033, and the postcode index) bound that read
 * by the town's listings of that kind, while a walk of an area index passes every other town first when the
 * town's listings differ from the country's. The price orders walk the town's own indexes in their order instead
 * (city, transaction type and price; city and price per m²: 0.2–11 ms where reading 25,000 matches took 20–40 ms).
 */
export const TOWN_MATCHES_FIRST_MAX = 25_000;

/**
 * How the page query of `f` reads its rows, given the exact total of its matches (`never`: not matches first,
 * for the tests of the other shapes): `matches_first` for another order than newest first with a small total
 * (at most {@linkcode MATCHES_FIRST_MAX}, or {@linkcode TOWN_MATCHES_FIRST_MAX} in one town); else the cells of
 * `cellShape` (db/listing_cells.ts) for an area order whose filters go with it; else `ids_first` (the page's ids
 * from an index-only scan, then their rows) with a place or another order than newest first; else `plain` (one
 * statement). Newest first keeps its walk: the city and kind indexes are in its order, and its matches first
 * would read the publication time from the table (p99 28 → 195 ms at 1,000,000 listings, docs/benchmarks.md
 * §3.2). Taking a large city's matches first in the other orders was measured and dropped: its covering index
 * bounds them (42,000 for the largest city of 1,000,000 listings), but reading and sorting them takes 20–40 ms
 * where the walk mostly takes 1 ms.
 */
export function pageShape(
  f: ListingFilter,
  total: number,
  matchesFirst: "auto" | "never" = "auto",
): "plain" | "ids_first" | "matches_first" | CellShape {
  const sorted = f.order !== undefined && f.order.by !== "published_at";
  const byArea = f.order?.by === "square_meters";
  const town = (f.city !== undefined && f.transaction_type !== undefined && byArea) ||
    f.postal_code !== undefined;
  const most = town ? TOWN_MATCHES_FIRST_MAX : MATCHES_FIRST_MAX;
  if (sorted && matchesFirst === "auto" && total <= most) return "matches_first";
  const cells = cellShape(f);
  if (cells !== undefined) return cells;
  const place = f.city !== undefined || f.postal_code !== undefined || f.near !== undefined;
  return place || sorted ? "ids_first" : "plain";
}

/**
 * The columns the matches of a sorted page are read with: the id and what the order's value is made of, all of
 * them carried by the covering indexes of migrations 0005 and 0031, so the matches come from an index-only scan.
 */
export function matchColumns(o: ListingOrder): ReadonlyArray<"id" | "asked_price" | "square_meters"> {
  if (o.by === "asked_price") return ["id", "asked_price"];
  if (o.by === "square_meters") return ["id", "square_meters"];
  return ["id", "asked_price", "square_meters"];
}

/**
 * Published listings matching `f`: `limit` rows from `offset` in the order of `f.order` (default newest first), and
 * the total. The total comes first (it is cheap, {@linkcode totalQuery}); a page past it is empty without a page
 * query, which would otherwise walk every row of an index that could match (a city's listings filtered to none).
 * The page query has the shape of {@linkcode pageShape}. With few matches, the matches are read first (their
 * subquery has `offset 0`, so the planner takes it as it is: the filters' best index) and sorted. Otherwise,
 * with a place filter or another order than newest first, the page's ids come first, from an index-only scan of
 * an index that carries every filter column (the city index, or the order's index of migration 0031), and then
 * their rows: a plain page query filters the rows in the table, 148 ms against 10 ms for a large city whose
 * listings match rarely (docs/benchmarks.md §3.1). Without them that detour costs more than it saves.
 * Both statements run on the search sessions, which plan them for their values (`Db.search`).
 */
export async function searchPublishedListings(
  db: Db,
  f: ListingFilter,
  limit: number,
  offset: number,
  matchesFirst: "auto" | "never" = "auto",
): Promise<{ items: Listing[]; total: number }> {
  const count = totalQuery(f);
  const total = (await db.search.executeQuery<{ total: number }>(CompiledQuery.raw(count.text, count.params)))
    .rows[0]!.total;
  if (offset >= total) return { items: [], total };
  const q = db.search.selectFrom("listings").select(PUBLIC_COLUMNS);
  const order = sql.raw(orderSql(f.order));
  const shape = pageShape(f, total, matchesFirst);
  const items = shape === "plain"
    ? await q.where(filterWhere(f)).orderBy(order).limit(limit).offset(offset).execute()
    : await q.where("id", "in", (eb) => pageIds(eb, f, shape, limit, offset)).orderBy(order).execute();
  return { items: items as Listing[], total };
}

/**
 * The ids of a page of `f` for a page query of the shape `shape` (not `plain`): from the order's or the place's
 * index (`ids_first`), sorted from all matches (`matches_first`), or merged per cell (db/listing_cells.ts).
 */
function pageIds(
  eb: ExpressionBuilder<Database, "listings">,
  f: ListingFilter,
  shape: "ids_first" | "matches_first" | CellShape,
  limit: number,
  offset: number,
) {
  const where = filterWhere(f);
  if (shape === "per_rooms" || shape === "per_price") return cellPageIds(eb, f, where, shape, limit, offset);
  const from = shape === "ids_first"
    ? eb.selectFrom("listings").select("id").where(where)
    : eb.selectFrom((m) =>
      m.selectFrom("listings").select(matchColumns(f.order ?? NEWEST_FIRST)).where(where).offset(0).as("m")
    ).select("id");
  return from.orderBy(sql.raw(orderSql(f.order))).limit(limit).offset(offset);
}

/**
 * {@linkcode PUBLIC_COLUMNS} as SQL text, for the by-id query. The hottest query is a plain template compiled on
 * every call: a few µs, about a fifth of what the query builder takes, and no cache to keep per database.
 */
export const COLUMNS_SQL = sql.raw(
  PUBLIC_FIELDS.map((f) => FLOAT_FIELDS.has(f) ? `"${f}"::float8 as "${f}"` : `"${f}"`).join(", "),
);

/** The published listing with this id (lower-case UUID), or undefined. */
export async function findPublishedListing(db: Db, id: string): Promise<Listing | undefined> {
  const where = sql`where "id" = ${id} and "status" = 'published'`;
  return (await sql<Listing>`select ${COLUMNS_SQL} from "listings" ${where}`.execute(db.kysely)).rows[0];
}

/** Number of listings in any status (used to decide whether to seed the sample catalogue). */
export async function countListings(db: Db): Promise<number> {
  const r = await db.kysely.selectFrom("listings").select(sql<number>`count(*)::int`.as("n"))
    .executeTakeFirstOrThrow();
  return r.n;
}

/** The listing columns a provider writes (everything but status, timestamps and `beispiel`). */
export interface ListingColumns {
  reference: string | null;
  title: string | null;
  description: string | null;
  city: string | null;
  postal_code: string | null;
  property_type: "apartment" | "house" | "land" | "commercial" | null;
  transaction_type: "buy" | "rent" | null;
  asked_price: number | null;
  total_rooms: number | null;
  square_meters: number | null;
  latitude: number | null;
  longitude: number | null;
}

/** A listing to insert, with its optional provider contact. */
export interface NewListing extends ListingColumns {
  status: "draft" | "published" | "withdrawn";
  beispiel: boolean;
  published_at: Date | null;
  contact?: {
    provider_name: string | null;
    contact_name: string | null;
    contact_email: string | null;
    contact_phone: string | null;
  };
}

/** Inserts listings of one office with their contacts in one transaction; returns their ids in order. */
export async function insertListings(db: Db, officeId: string, rows: NewListing[]): Promise<string[]> {
  if (rows.length === 0) return [];
  return await db.kysely.transaction().execute(async (tx) => {
    const ids = await tx.insertInto("listings")
      .values(rows.map(({ contact: _c, ...r }) => ({ ...r, office_id: officeId })))
      .returning("id").execute();
    const contacts = rows.flatMap((r, i) => r.contact ? [{ listing_id: ids[i]!.id, ...r.contact }] : []);
    if (contacts.length > 0) await tx.insertInto("listing_contacts").values(contacts).execute();
    return ids.map((r) => r.id);
  });
}

/**
 * Sets a listing's status at `now` (and its publication time when it is published for the first time); whether
 * such a listing exists. The one status write: the office's listing rules and the OpenImmo import call it.
 */
export async function setListingStatus(
  q: Kysely<Database>,
  id: string,
  status: ListingsTable["status"],
  now: Date,
): Promise<boolean> {
  const res = await q.updateTable("listings")
    .set({
      status: sql<ListingsTable["status"]>`${status}`,
      updated_at: now,
      ...(status === "published" ? { published_at: sql<Date>`coalesce(published_at, ${now})` } : {}),
    })
    .where("id", "=", id).executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** Of the listing ids `ids`, those that belong to `officeId` (any status), lower-case. */
export async function officeListingIds(
  q: Kysely<Database>,
  officeId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const r = await sql<{ id: string }>`
    select id::text as id from listings
    where office_id = ${officeId} and id in (${sql.join(ids.map((id) => sql`${id}::uuid`))})`.execute(q);
  return new Set(r.rows.map((row) => row.id.toLowerCase()));
}

/**
 * The ids of the office's listings (any status) whose reference equals one of `refs` ignoring case; two
 * listings whose references differ only in case are both returned (the caller treats that as ambiguous).
 */
export async function officeListingsByReference(
  q: Kysely<Database>,
  officeId: string,
  refs: string[],
): Promise<string[]> {
  if (refs.length === 0) return [];
  const r = await sql<{ id: string }>`
    select distinct id::text as id from listings
    where office_id = ${officeId} and reference is not null
      and lower(reference) in (${sql.join(refs.map((x) => x.toLowerCase()))})`.execute(q);
  return r.rows.map((row) => row.id);
}
