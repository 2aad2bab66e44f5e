/**
 * The catalogue search's filters and the SQL made of them as text: the filter and order types, the ORDER BY of
 * each order, the place conditions (postcode, radius; `kyselyPiece` hands one to the query builder) and the
 * statement of the exact total (docs/architecture.md §11.15, §11.15a). `db/listings.ts` runs them.
 */
import { sql } from "kysely";
import type { PROPERTY_TYPES, TRANSACTION_TYPES } from "./schema.ts";

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

/** `x` as a Kysely expression (of type `T`: a condition unless said otherwise). */
export function kyselyPiece<T = boolean>(x: SqlPiece) {
  const strings = Object.assign([...x.strings], { raw: [...x.strings] }) as unknown as TemplateStringsArray;
  return sql<T>(strings, ...x.values);
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

/**
 * The distinct rooms values of published listings from `min` on, as a derived table of one column `cell` (to be
 * aliased): a recursive skip scan of the rooms index of migration 0033, one index descent per value.
 */
export function roomsValues(min: number): SqlPiece {
  const first = "(select total_rooms from listings where status = 'published' and total_rooms >= ";
  const next = [
    " order by total_rooms limit 1) union all",
    "select (select l.total_rooms from listings l where l.status = 'published' and l.total_rooms > c.cell",
    "order by l.total_rooms limit 1) from c where c.cell is not null)",
    "select cell from c where cell is not null)",
  ];
  return { strings: [`(with recursive c(cell) as (${first}`, next.join(" ")], values: [min] };
}

/**
 * The cells of the price grid of migration 0021 (fine: two significant digits) from the one holding `min` to the
 * one holding `max`, as a derived table of one column `cell` (each cell's lower bound; to be aliased).
 */
export function priceCells(min: number, max: number): SqlPiece {
  const next = "cell + listing_grid_step('price', cell, false)";
  return {
    strings: [
      "(with recursive c(cell) as (select listing_grid_floor('price', ",
      `::numeric, false) union all select ${next} from c where ${next} <= `,
      "::numeric) select cell from c)",
    ],
    values: [min, max],
  };
}

/** One statement as text with `$n` placeholders and its parameters. */
export interface SqlText {
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
