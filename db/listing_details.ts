/**
 * SQL of a listing's details (table `listing_details`, migration 0028): public description, energy certificate,
 * rental costs, floor and availability. Provider reads are scoped to one office; the public read answers only for
 * a published listing. Numbers are cast to `float8` and dates read as `YYYY-MM-DD` text, so both drivers answer
 * the same types.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";
import { COLUMNS_SQL, type Listing } from "./listings.ts";

type Q = Kysely<Database>;

/** The kinds of energy certificate (Energieausweis). */
export const ENERGY_CERTIFICATE_TYPES = ["bedarf", "verbrauch"] as const;
/** The efficiency classes of a residential building's certificate, best first. */
export const ENERGY_CLASSES = ["A+", "A", "B", "C", "D", "E", "F", "G", "H"] as const;

/** The stored details of a listing; null where not given. */
export interface ListingDetailColumns {
  public_description: string | null;
  energy_certificate_type: (typeof ENERGY_CERTIFICATE_TYPES)[number] | null;
  energy_value: number | null;
  energy_carrier: string | null;
  construction_year: number | null;
  energy_class: (typeof ENERGY_CLASSES)[number] | null;
  /** `YYYY-MM-DD`. */
  energy_certificate_valid_until: string | null;
  service_charges: number | null;
  warm_rent: number | null;
  deposit: number | null;
  floor: number | null;
  available_from: string | null;
}

/** The detail columns, in the order of the table. */
export const DETAIL_COLUMNS = [
  "public_description",
  "energy_certificate_type",
  "energy_value",
  "energy_carrier",
  "construction_year",
  "energy_class",
  "energy_certificate_valid_until",
  "service_charges",
  "warm_rent",
  "deposit",
  "floor",
  "available_from",
] as const satisfies ReadonlyArray<keyof ListingDetailColumns>;

const SELECT = sql`d.public_description, d.energy_certificate_type, d.energy_value::float8 as energy_value,
  d.energy_carrier, d.construction_year, d.energy_class,
  to_char(d.energy_certificate_valid_until, 'YYYY-MM-DD') as energy_certificate_valid_until,
  d.service_charges::float8 as service_charges, d.warm_rent::float8 as warm_rent, d.deposit::float8 as deposit,
  d.floor, d.available_from`;

/** The details of the office's listing `listingId`, or undefined when it has none (or is not the office's). */
export async function officeListingDetails(
  q: Q,
  officeId: string,
  listingId: string,
): Promise<ListingDetailColumns | undefined> {
  const r = await sql<ListingDetailColumns>`select ${SELECT} from listing_details d
    join listings l on l.id = d.listing_id
    where d.listing_id = ${listingId} and l.office_id = ${officeId}`.execute(q);
  return r.rows[0];
}

/**
 * The published listing `id` (lower-case UUID) with its details in one statement (every detail null when it has
 * none), or undefined: what `get_property` answers, without a second round trip.
 */
export async function findPublishedListingWithDetails(
  q: Q,
  id: string,
): Promise<(Listing & ListingDetailColumns) | undefined> {
  const r = await sql<Listing & ListingDetailColumns>`select ${COLUMNS_SQL}, ${SELECT} from "listings"
    left join listing_details d on d.listing_id = "listings"."id"
    where "listings"."id" = ${id} and "listings"."status" = 'published'`.execute(q);
  return r.rows[0];
}

/** The details of listing `listingId` when it is published and has any, else undefined. */
export async function publishedListingDetails(
  q: Q,
  listingId: string,
): Promise<ListingDetailColumns | undefined> {
  const r = await sql<ListingDetailColumns>`select ${SELECT} from listing_details d
    join listings l on l.id = d.listing_id and l.status = 'published'
    where d.listing_id = ${listingId}`.execute(q);
  return r.rows[0];
}

/**
 * Sets the given detail columns of listing `listingId` (others stay; a row is made when missing) and removes the
 * row when every column is then empty. The caller holds the listing.
 */
export async function writeListingDetails(
  q: Q,
  listingId: string,
  change: Partial<ListingDetailColumns>,
): Promise<void> {
  const cols = DETAIL_COLUMNS.filter((k) => change[k] !== undefined);
  if (cols.length === 0) return;
  const names = sql.join(cols.map((k) => sql.ref(k)));
  const values = sql.join(cols.map((k) => valueOf(k, change[k] ?? null)));
  const sets = sql.join(cols.map((k) => sql`${sql.ref(k)} = excluded.${sql.ref(k)}`));
  await sql`insert into listing_details (listing_id, ${names}) values (${listingId}, ${values})
    on conflict (listing_id) do update set ${sets}`.execute(q);
  const empty = sql.join(DETAIL_COLUMNS.map((k) => sql`${sql.ref(k)} is null`), sql` and `);
  await sql`delete from listing_details where listing_id = ${listingId} and ${empty}`.execute(q);
}

/** A column's value as an SQL parameter with the column's type (a date travels as text). */
function valueOf(k: keyof ListingDetailColumns, v: string | number | null) {
  return k === "energy_certificate_valid_until" ? sql`${v}::date` : sql`${v}`;
}
