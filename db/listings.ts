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

/** The catalogue filters after parsing: every field optional except paging. */
export interface ListingFilter {
  page: number;
  page_size: number;
  city?: string | undefined;
  transaction_type?: (typeof TRANSACTION_TYPES)[number] | undefined;
  property_type?: (typeof PROPERTY_TYPES)[number] | undefined;
  min_price?: number | undefined;
  max_price?: number | undefined;
  min_rooms?: number | undefined;
  min_sqm?: number | undefined;
  /** Only listings with this postcode (5 digits); pages and MCP only, not REST. */
  postal_code?: string | undefined;
  /** Only listings with coordinates within `km` of the point (great-circle distance); pages and MCP only. */
  near?: { lat: number; lng: number; km: number } | undefined;
  /** The order of the page (default: newest first). */
  order?: ListingOrder | undefined;
}

/**
 * The order of a page of listings: the value and the direction; the id follows in the same direction, so the
 * order is total. Listings without the value (no price, no area, area 0) come last in either direction.
 */
export interface ListingOrder {
  /** `price_per_sqm` is asked price / area (null when either is unknown or the area is 0). */
  by: "published_at" | "asked_price" | "square_meters" | "price_per_sqm";
  /** Ascending or descending. */
  dir: "asc" | "desc";
}

/** The newest-first order of the catalogue before sorting existed (and its default). */
export const NEWEST_FIRST: ListingOrder = { by: "published_at", dir: "desc" };

/** The SQL of each ordered value; `price_per_sqm` is the expression of the index of migration 0031. */
const ORDER_VALUE: Record<ListingOrder["by"], string> = {
  published_at: `"published_at"`,
  asked_price: `"asked_price"`,
  square_meters: `"square_meters"`,
  price_per_sqm: `("asked_price" / nullif("square_meters", 0))`,
};

/**
 * The ORDER BY list of `o` as SQL text: the value, then the id, in the same direction; nulls last except for the
 * publication time (never null on a published listing), which keeps the text of the order before sorting.
 */
export function orderSql(o: ListingOrder = NEWEST_FIRST): string {
  const nulls = o.by === "published_at" ? "" : " nulls last";
  return `${ORDER_VALUE[o.by]} ${o.dir}${nulls}, "id" ${o.dir}`;
}

/** Mean Earth radius in km (IUGG), for the great-circle distance of the radius filter. */
const EARTH_KM = 6371.0088;

/** Degrees of latitude per km (the bounding box of a radius filter). */
const DEG_PER_KM = 180 / (Math.PI * EARTH_KM);

/**
 * The bounding box of a radius filter (degrees), a little larger than the circle so that the index range never
 * cuts a listing the distance keeps; longitude widened by 1/cos(latitude) at the box's edge nearest the pole.
 */
export function radiusBox(n: { lat: number; lng: number; km: number }) {
  const dLat = n.km * DEG_PER_KM * 1.001;
  const poleward = Math.min(89.9, Math.abs(n.lat) + dLat);
  const dLng = Math.min(180, dLat / Math.cos(poleward * Math.PI / 180));
  return { minLat: n.lat - dLat, maxLat: n.lat + dLat, minLng: n.lng - dLng, maxLng: n.lng + dLng };
}

/** A piece of SQL with its values, written once and sent either through Kysely or as text with `$n` placeholders. */
export interface SqlPiece {
  /** The text around the values (one more than `values`). */
  strings: readonly string[];
  /** The values, in order. */
  values: ReadonlyArray<string | number>;
}

function piece(strings: TemplateStringsArray, ...values: Array<string | number>): SqlPiece {
  return { strings: [...strings], values };
}

/** `x` as a Kysely expression. */
function kyselyPiece(x: SqlPiece) {
  const strings = Object.assign([...x.strings], { raw: [...x.strings] }) as unknown as TemplateStringsArray;
  return sql<boolean>(strings, ...x.values);
}

/** `x` as text, its values added to the parameters through `p` (which returns the placeholder). */
export function pieceText(x: SqlPiece, p: (v: string | number) => string): string {
  return x.strings.map((s, i) => i < x.values.length ? s + p(x.values[i]!) : s).join("");
}

/**
 * The conditions of the place filters (postcode, radius); none when neither is given. The radius reads the
 * coordinates index of migration 0031 by its bounding box, then keeps the listings whose great-circle distance
 * (haversine) is at most the radius.
 */
export function placeConditions(f: ListingFilter): SqlPiece[] {
  const out: SqlPiece[] = [];
  if (f.postal_code !== undefined) out.push(piece`"postal_code" = ${f.postal_code}`);
  if (f.near !== undefined) {
    const { lat, lng, km } = f.near;
    const b = radiusBox(f.near);
    out.push(
      piece`"latitude" between ${b.minLat}::float8 and ${b.maxLat}::float8`,
      piece`"longitude" between ${b.minLng}::float8 and ${b.maxLng}::float8`,
      piece`${EARTH_KM}::float8 * 2 * asin(least(1, sqrt(power(sin(radians("latitude" - ${lat}::float8) / 2), 2) + cos(radians(${lat}::float8)) * cos(radians("latitude")) * power(sin(radians("longitude" - ${lng}::float8) / 2), 2)))) <= ${km}::float8`,
    );
  }
  return out;
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
 * How the page query of `f` reads its rows, given the exact total of its matches (`never`: not matches first,
 * for the tests of the other shapes): `matches_first` for another order than newest first with a small total
 * (at most {@linkcode MATCHES_FIRST_MAX}), else `ids_first` (the page's ids from an index-only scan, then their
 * rows) with a place or another order than newest first, else `plain` (one statement). Newest first keeps its
 * walk: the city and kind indexes are in its order, and its matches first would read the publication time from
 * the table (p99 28 → 195 ms at 1,000,000 listings, docs/benchmarks.md §3.2). Taking a large city's matches first
 * in the other orders was measured and dropped: its covering index bounds them (42,000 for the largest city of
 * 1,000,000 listings), but reading and sorting them takes 20–40 ms where the walk mostly takes 1 ms.
 */
export function pageShape(
  f: ListingFilter,
  total: number,
  matchesFirst: "auto" | "never" = "auto",
): "plain" | "ids_first" | "matches_first" {
  const sorted = f.order !== undefined && f.order.by !== "published_at";
  if (sorted && matchesFirst === "auto" && total <= MATCHES_FIRST_MAX) return "matches_first";
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
  const where = filterWhere(f);
  const order = sql.raw(orderSql(f.order));
  const shape = pageShape(f, total, matchesFirst);
  // the page's ids: from the order's or the place's index (ids first), or sorted from all matches (matches first)
  const pageIds = (eb: ExpressionBuilder<Database, "listings">) => {
    const from = shape === "ids_first"
      ? eb.selectFrom("listings").select("id").where(where)
      : eb.selectFrom((m) =>
        m.selectFrom("listings").select(matchColumns(f.order ?? NEWEST_FIRST)).where(where).offset(0).as("m")
      )
        .select("id");
    return from.orderBy(order).limit(limit).offset(offset);
  };
  const items = shape === "plain"
    ? await q.where(where).orderBy(order).limit(limit).offset(offset).execute()
    : await q.where("id", "in", pageIds).orderBy(order).execute();
  return { items: items as Listing[], total };
}

/** One statement as text with `$n` placeholders and its parameters. */
interface SqlText {
  /** Statement text. */
  text: string;
  /** Parameter values in placeholder order. */
  params: Array<string | number>;
}

/** A range filter of the search: its dimension, listing column and bounds. */
interface RangeFilter {
  dim: "price" | "rooms" | "sqm";
  column: string;
  min: string | undefined;
  max: string | undefined;
}

/** The count shape of a single range filter (migration 0021); two or more range filters use shape 4. */
const SHAPE_OF = { price: 1, rooms: 2, sqm: 3 } as const;

/**
 * The statement of the exact `total` of published listings matching `f` (docs/architecture.md §11.15): the
 * trigger-kept counts of migration 0021 for the buckets wholly inside the range filters, plus an exact count
 * of the matching rows in the boundary buckets, each boundary a narrow range of one indexed column.
 * Plain text, so the benchmark's direct-driver floor sends the very same statement.
 */
export function totalQuery(f: ListingFilter): SqlText {
  const params: Array<string | number> = [];
  const p = (v: string | number) => `$${params.push(v)}`;
  if (f.postal_code !== undefined || f.near !== undefined) return plainCount(f, params, p);
  const city = f.city === undefined ? undefined : `city_key(${p(f.city)})`;
  const tx = f.transaction_type === undefined ? undefined : p(f.transaction_type);
  const ptype = f.property_type === undefined ? undefined : p(f.property_type);
  const num = (v: number | undefined) => v === undefined ? undefined : `${p(v)}::numeric`;
  const ranges: RangeFilter[] = [
    { dim: "price" as const, column: `"asked_price"`, min: num(f.min_price), max: num(f.max_price) },
    { dim: "rooms" as const, column: `"total_rooms"`, min: num(f.min_rooms), max: undefined },
    { dim: "sqm" as const, column: `"square_meters"`, min: num(f.min_sqm), max: undefined },
  ].filter((r) => r.min !== undefined || r.max !== undefined);
  const shape = ranges.length === 0 ? 0 : ranges.length > 1 ? 4 : SHAPE_OF[ranges[0]!.dim];
  const coarse = shape === 4 ? "true" : "false";
  const floor = (r: RangeFilter, v: string) => `listing_grid_floor('${r.dim}', ${v}, ${coarse})`;
  const ceil = (r: RangeFilter, v: string) => `listing_grid_ceil('${r.dim}', ${v}, ${coarse})`;

  const cube = [
    `"shape" = ${shape}`,
    `"city_key" = ${city ?? `'*'`}`,
    `"transaction_type" = ${tx ?? `'*'`}`,
    `"property_type" = ${ptype ?? `'*'`}`,
  ];
  for (const dim of ["price", "rooms", "sqm"] as const) {
    const r = ranges.find((x) => x.dim === dim);
    const bucket = `"${dim}_bucket"`;
    if (r) {
      cube.push(`${bucket} >= ${r.min ?? "0"}`);
      if (r.max !== undefined) cube.push(`${bucket} < ${floor(r, r.max)}`);
    } else if (shape !== 4) cube.push(`${bucket} = -2`);
  }

  const where = [`"status" = 'published'`];
  if (city) where.push(`"city_key" = ${city}`);
  if (tx) where.push(`"transaction_type" = ${tx}`);
  if (ptype) where.push(`"property_type" = ${ptype}`);
  for (const r of ranges) {
    if (r.min !== undefined) where.push(`${r.column} >= ${r.min}`);
    if (r.max !== undefined) where.push(`${r.column} <= ${r.max}`);
  }
  // The matching rows outside the wholly covered buckets, in disjoint parts: the rows below the first grid point of
  // a lower bound, then those at or above the last grid point of the upper bound, each with the earlier
  // dimensions inside their covered region.
  const parts: string[] = [];
  const inside: string[] = [];
  for (const r of ranges) {
    const lowCut = r.min === undefined ? undefined : ceil(r, r.min);
    if (lowCut) parts.push([...where, ...inside, `${r.column} < ${lowCut}`].join(" and "));
    if (r.max !== undefined) {
      const high = [`${r.column} >= ${floor(r, r.max)}`, ...(lowCut ? [`${r.column} >= ${lowCut}`] : [])];
      parts.push([...where, ...inside, ...high].join(" and "));
      inside.push(`${r.column} < ${floor(r, r.max)}`);
    }
    if (lowCut) inside.push(`${r.column} >= ${lowCut}`);
  }
  const terms = [`coalesce((select sum("n") from "listing_counts" where ${cube.join(" and ")}), 0)`]
    .concat(parts.map((w) => `(select count(*) from "listings" where ${w})`));
  return { text: `select (${terms.join(" + ")})::int as "total"`, params };
}

/**
 * The exact total of a search with a place filter (postcode, radius), which the counts of migration 0021 do not
 * know: a plain count over the postcode or coordinates index of migration 0031.
 */
function plainCount(
  f: ListingFilter,
  params: Array<string | number>,
  p: (v: string | number) => string,
): SqlText {
  const where = [`"status" = 'published'`];
  if (f.city !== undefined) where.push(`"city_key" = city_key(${p(f.city)})`);
  if (f.transaction_type !== undefined) where.push(`"transaction_type" = ${p(f.transaction_type)}`);
  if (f.property_type !== undefined) where.push(`"property_type" = ${p(f.property_type)}`);
  if (f.min_price !== undefined) where.push(`"asked_price" >= ${p(f.min_price)}::numeric`);
  if (f.max_price !== undefined) where.push(`"asked_price" <= ${p(f.max_price)}::numeric`);
  if (f.min_rooms !== undefined) where.push(`"total_rooms" >= ${p(f.min_rooms)}::numeric`);
  if (f.min_sqm !== undefined) where.push(`"square_meters" >= ${p(f.min_sqm)}::numeric`);
  for (const c of placeConditions(f)) where.push(pieceText(c, p));
  return { text: `select count(*)::int as "total" from "listings" where ${where.join(" and ")}`, params };
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
