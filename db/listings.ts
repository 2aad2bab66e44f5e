/** SQL of the listings aggregate. Public reads select only the columns of docs/contract.md §2.1 and never join contacts. */
import { CompiledQuery, type ExpressionBuilder, type Kysely, sql } from "kysely";
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
}

/** The public fields of docs/contract.md §2.1, in the contract's order: the one list of them. */
export const PUBLIC_FIELDS = [
  "id",
  "title",
  "city",
  "postal_code",
  "property_type",
  "transaction_type",
  "asked_price",
  "total_rooms",
  "square_meters",
  "latitude",
  "longitude",
  "beispiel",
] as const satisfies ReadonlyArray<keyof Listing>;

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
    const and = [eb("status", "=", sql.lit("published"))];
    if (f.city !== undefined) and.push(eb("city_key", "=", sql<string>`city_key(${f.city})`));
    if (f.transaction_type !== undefined) and.push(eb("transaction_type", "=", f.transaction_type));
    if (f.property_type !== undefined) and.push(eb("property_type", "=", f.property_type));
    if (f.min_price !== undefined) and.push(eb("asked_price", ">=", f.min_price));
    if (f.max_price !== undefined) and.push(eb("asked_price", "<=", f.max_price));
    if (f.min_rooms !== undefined) and.push(eb("total_rooms", ">=", f.min_rooms));
    if (f.min_sqm !== undefined) and.push(eb("square_meters", ">=", f.min_sqm));
    return eb.and(and);
  };
}

/**
 * Published listings matching `f`: `limit` rows from `offset`, newest first with the id as tiebreak, and the total.
 * The total comes first (it is cheap, {@linkcode totalQuery}); a page past it is empty without a page query, which
 * would otherwise walk every row of an index that could match (a city's listings filtered to none). Within a city
 * the page's ids come first, from an index-only scan of the city index (it carries every filter column), and
 * then their rows: a plain page query filters the city's rows in the table, 148 ms against 10 ms for a large
 * city whose listings match rarely (docs/benchmarks.md §3.1). Without a city that detour costs more than it saves.
 * Both statements run on the search sessions, which plan them for their values (`Db.search`).
 */
export async function searchPublishedListings(
  db: Db,
  f: ListingFilter,
  limit: number,
  offset: number,
): Promise<{ items: Listing[]; total: number }> {
  const count = totalQuery(f);
  const total = (await db.search.executeQuery<{ total: number }>(CompiledQuery.raw(count.text, count.params)))
    .rows[0]!.total;
  if (offset >= total) return { items: [], total };
  const q = db.search.selectFrom("listings");
  const where = filterWhere(f);
  const items = f.city === undefined
    ? await q.select(PUBLIC_COLUMNS).where(where)
      .orderBy("published_at", "desc").orderBy("id", "desc").limit(limit).offset(offset).execute()
    : await q.select(PUBLIC_COLUMNS).where(
      "id",
      "in",
      (eb) =>
        eb.selectFrom("listings").select("id").where(where)
          .orderBy("published_at", "desc").orderBy("id", "desc").limit(limit).offset(offset),
    )
      .orderBy("published_at", "desc").orderBy("id", "desc").execute();
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
 * {@linkcode PUBLIC_COLUMNS} as SQL text, for the by-id query. The hottest query is a plain template compiled on
 * every call: a few µs, about a fifth of what the query builder takes, and no cache to keep per database.
 */
const COLUMNS_SQL = sql.raw(
  PUBLIC_FIELDS.map((f) => FLOAT_FIELDS.has(f) ? `${f}::float8 as "${f}"` : `"${f}"`).join(", "),
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
