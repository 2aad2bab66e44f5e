/**
 * SQL of the OpenImmo stock import: an office's listings keyed by their external object number
 * (`listings.external_number`, migration 0014). Every statement is scoped to one office and runs in the caller's
 * transaction.
 */
import { type Kysely, sql } from "kysely";
import type { ListingColumns } from "./listings.ts";
import type { Database } from "./schema.ts";
import type { ListingStatus } from "./office_listings.ts";

/** An office's listing found by its external number: id, status and the columns the import writes. */
export interface ImportedRow extends ListingColumns {
  id: string;
  status: ListingStatus;
}

/** Serialises imports into one office for the rest of the transaction `q` (a transaction-level advisory lock). */
export async function lockOfficeImport(q: Kysely<Database>, officeId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`openimmo:${officeId}`}))`.execute(q);
}

/** The office's listing with external number `number`, locked for the rest of the transaction, or undefined. */
export async function findByExternalNumber(
  q: Kysely<Database>,
  officeId: string,
  number: string,
): Promise<ImportedRow | undefined> {
  const r = await sql<ImportedRow>`
    select id, status, reference, title, description, city, postal_code, property_type, transaction_type,
      asked_price::float8 as asked_price, total_rooms::float8 as total_rooms, square_meters::float8 as square_meters,
      latitude, longitude
    from listings where office_id = ${officeId} and external_number = ${number}
    for update`.execute(q);
  return r.rows[0];
}

/** Whether another listing of the office (not `exceptId`) already has internal reference `reference`. */
export async function referenceTaken(
  q: Kysely<Database>,
  officeId: string,
  reference: string,
  exceptId: string | null,
): Promise<boolean> {
  const r = await sql<{ n: number }>`
    select count(*)::int as n from listings
    where office_id = ${officeId} and reference = ${reference}
      and (${exceptId}::uuid is null or id <> ${exceptId}::uuid)`.execute(q);
  return (r.rows[0]?.n ?? 0) > 0;
}

/** Inserts a listing of the office (not a sample) with external number `number` and `status`; returns its id. */
export async function insertImported(
  q: Kysely<Database>,
  officeId: string,
  number: string,
  c: ListingColumns,
  status: "draft" | "published",
  now: Date,
): Promise<string> {
  const r = await sql<{ id: string }>`
    insert into listings (office_id, external_number, status, beispiel, reference, title, description, city,
      postal_code, property_type, transaction_type, asked_price, total_rooms, square_meters, latitude, longitude,
      created_at, updated_at, published_at)
    values (${officeId}, ${number}, ${status}, false, ${c.reference}, ${c.title}, ${c.description}, ${c.city},
      ${c.postal_code}, ${c.property_type}, ${c.transaction_type}, ${c.asked_price}, ${c.total_rooms},
      ${c.square_meters}, ${c.latitude}, ${c.longitude}, ${now}, ${now},
      ${status === "published" ? now : null}::timestamptz)
    returning id`.execute(q);
  return r.rows[0]!.id;
}

/** Replaces the import's columns of listing `id` and sets `updated_at`. */
export async function updateImported(
  q: Kysely<Database>,
  id: string,
  c: ListingColumns,
  now: Date,
): Promise<void> {
  await sql`
    update listings set reference = ${c.reference}, title = ${c.title}, description = ${c.description},
      city = ${c.city}, postal_code = ${c.postal_code}, property_type = ${c.property_type},
      transaction_type = ${c.transaction_type}, asked_price = ${c.asked_price}, total_rooms = ${c.total_rooms},
      square_meters = ${c.square_meters}, latitude = ${c.latitude}, longitude = ${c.longitude},
      updated_at = ${now}
    where id = ${id}`.execute(q);
}
