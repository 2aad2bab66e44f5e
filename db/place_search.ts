/**
 * SQL of the forgiving place search (catalogue/place_search.ts): how many published listings each city of the
 * stock has (from the counts of migration 0021, never a scan of the listings), a city's name as the stock spells
 * it, and the centre of a place's listings for a radius around it.
 */
import { sql } from "kysely";
import type { Db } from "./connection.ts";

/** A city of the stock: its key (`city_key`), a spelling of its name, and its published listings. */
export interface CatalogueCity {
  /** The normalised key (`city_key` of migration 0001). */
  key: string;
  /** The name as one of its listings spells it. */
  name: string;
  /** Published listings with this key. */
  count: number;
}

/** Published listings per city key among `keys` (keys without listings are left out). */
export async function cityCounts(db: Db, keys: string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const r = await sql<{ key: string; n: number }>`
    select city_key as key, n::int as n from listing_counts
    where shape = 0 and transaction_type = '*' and property_type = '*' and price_bucket = -2
      and rooms_bucket = -2 and sqm_bucket = -2 and n > 0
      and city_key in (${sql.join(keys)})`.execute(db.search);
  return new Map(r.rows.map((x) => [x.key, x.n]));
}

/**
 * The cities of the stock whose key starts with `prefix` (at most `limit`, most listings first), or every city
 * of the stock when `prefix` is empty: for the choices between "Frankfurt am Main" and "Frankfurt (Oder)" and
 * the suggestions when nothing matches.
 */
export async function catalogueCities(db: Db, prefix: string, limit: number): Promise<CatalogueCity[]> {
  return await withNames(db, await catalogueCityKeys(db, prefix, limit));
}

/** {@linkcode catalogueCities} without the names: keys and numbers only, from the counts alone. */
export async function catalogueCityKeys(
  db: Db,
  prefix: string,
  limit: number,
): Promise<Array<{ key: string; count: number }>> {
  const like = prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + "%";
  const r = await sql<{ key: string; n: number }>`
    select city_key as key, n::int as n from listing_counts
    where shape = 0 and transaction_type = '*' and property_type = '*' and price_bucket = -2
      and rooms_bucket = -2 and sqm_bucket = -2 and n > 0 and city_key not in ('*', '-')
      and city_key like ${like}
    order by n desc, city_key limit ${limit}`.execute(db.search);
  return r.rows.map((x) => ({ key: x.key, count: x.n }));
}

/** Each city key with one published listing's spelling of its name (the most frequent is not worth a scan). */
export async function withNames(
  db: Db,
  rows: Array<{ key: string; count: number }>,
): Promise<CatalogueCity[]> {
  if (rows.length === 0) return [];
  const r = await sql<{ key: string; name: string }>`
    select k.key, (select l.city from listings l where l.status = 'published' and l.city_key = k.key limit 1) as name
    from unnest(${rows.map((x) => x.key)}::text[]) as k(key)`.execute(db.search);
  const names = new Map(r.rows.map((x) => [x.key, x.name]));
  return rows.flatMap((x) => {
    const name = names.get(x.key);
    return name ? [{ key: x.key, name, count: x.count }] : [];
  });
}

/**
 * The centre (mean coordinates) of the published listings with coordinates in a city (by `city_key`) or a
 * postcode, or undefined when none has coordinates: the point a radius around a place is measured from.
 */
export async function placeCentre(
  db: Db,
  place: { city?: string | undefined; postal_code?: string | undefined },
): Promise<{ lat: number; lng: number } | undefined> {
  const where = [sql`status = 'published'`, sql`latitude is not null`, sql`longitude is not null`];
  if (place.city !== undefined) where.push(sql`city_key = city_key(${place.city})`);
  if (place.postal_code !== undefined) where.push(sql`postal_code = ${place.postal_code}`);
  const r = await sql<{ lat: number | null; lng: number | null }>`
    select avg(latitude)::float8 as lat, avg(longitude)::float8 as lng from listings
    where ${sql.join(where, sql` and `)}`.execute(db.search);
  const row = r.rows[0];
  return row && row.lat !== null && row.lng !== null ? { lat: row.lat, lng: row.lng } : undefined;
}
