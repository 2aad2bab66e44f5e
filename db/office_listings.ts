/**
 * SQL of a provider office's stock: its listings in every status with the internal fields and the provider contact
 * (the one place besides seeding that reads or writes `listing_contacts`). Every query is scoped to one office.
 */
import { type Kysely, sql } from "kysely";
import { AppError } from "../errors.ts";
import type { Db } from "./connection.ts";
import type { ListingColumns } from "./listings.ts";
import type { Database } from "./schema.ts";

/**
 * A listing's status. `reserved` (migration 0011) is not in `schema.ts`'s column type yet, so the status is
 * written and compared through raw SQL here.
 */
export type ListingStatus = "draft" | "published" | "withdrawn" | "reserved";

/** The columns of `listing_contacts` a provider writes. */
export interface ContactColumns {
  provider_name: string | null;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
}

/** One listing of an office as stored, with its contact columns (null without a contact row). */
export interface OfficeListingRow extends ListingColumns, ContactColumns {
  id: string;
  status: ListingStatus;
  beispiel: boolean;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
}

/** One line of an office's stock list. */
export interface OfficeListingLine {
  id: string;
  status: ListingStatus;
  reference: string | null;
  title: string | null;
  city: string | null;
  postal_code: string | null;
  property_type: ListingColumns["property_type"];
  transaction_type: ListingColumns["transaction_type"];
  asked_price: number | null;
  published_at: Date | null;
  updated_at: Date;
}

const ROW_COLUMNS = [
  "listings.id",
  "listings.status",
  "listings.reference",
  "listings.title",
  "listings.description",
  "listings.city",
  "listings.postal_code",
  "listings.property_type",
  "listings.transaction_type",
  sql<number | null>`listings.asked_price::float8`.as("asked_price"),
  sql<number | null>`listings.total_rooms::float8`.as("total_rooms"),
  sql<number | null>`listings.square_meters::float8`.as("square_meters"),
  "listings.latitude",
  "listings.longitude",
  "listings.beispiel",
  "listings.created_at",
  "listings.updated_at",
  "listings.published_at",
  "listing_contacts.provider_name",
  "listing_contacts.contact_name",
  "listing_contacts.contact_email",
  "listing_contacts.contact_phone",
] as const;

const LIST_COLUMNS = [
  "id",
  "status",
  "reference",
  "title",
  "city",
  "postal_code",
  "property_type",
  "transaction_type",
  sql<number | null>`asked_price::float8`.as("asked_price"),
  "published_at",
  "updated_at",
] as const;

/**
 * The listing `id` (a lower-case UUID) of office `officeId`, or undefined; `lock` takes a row lock (`for update`)
 * for the rest of the transaction `q`.
 */
export async function findOfficeListingRow(
  q: Kysely<Database>,
  officeId: string,
  id: string,
  lock = false,
): Promise<OfficeListingRow | undefined> {
  let query = q.selectFrom("listings")
    .leftJoin("listing_contacts", "listing_contacts.listing_id", "listings.id")
    .select(ROW_COLUMNS)
    .where("listings.id", "=", id).where("listings.office_id", "=", officeId);
  if (lock) query = query.forUpdate("listings");
  return await query.executeTakeFirst() as OfficeListingRow | undefined;
}

/** What the office's stock list is filtered by: one status, and a text in title, reference, city or postal code. */
interface OfficeListingsFilter {
  status?: ListingStatus | undefined;
  /** Matched case-insensitively as a substring (`%` and `_` are taken literally). */
  search?: string | undefined;
}

/** The office's listings matching `f`: `limit` rows from `offset`, last updated first, and the total. */
export async function listOfficeListingRows(
  db: Db,
  officeId: string,
  f: OfficeListingsFilter,
  limit: number,
  offset: number,
): Promise<{ items: OfficeListingLine[]; total: number }> {
  let base = db.kysely.selectFrom("listings").where("office_id", "=", officeId);
  if (f.status !== undefined) base = base.where(sql<ListingStatus>`status`, "=", f.status);
  if (f.search !== undefined) {
    const like = `%${f.search.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    base = base.where(
      sql<boolean>`(lower(coalesce(title, '')) like ${like}
      or lower(coalesce(reference, '')) like ${like} or lower(coalesce(city, '')) like ${like}
      or coalesce(postal_code, '') like ${like})`,
      "=",
      true,
    );
  }
  const [items, count] = await Promise.all([
    base.select(LIST_COLUMNS).orderBy("updated_at", "desc").orderBy("id", "desc").limit(limit).offset(offset)
      .execute(),
    base.select(sql<number>`count(*)::int`.as("total")).executeTakeFirstOrThrow(),
  ]);
  return { items: items as OfficeListingLine[], total: count.total };
}

/** The number of the office's listings in each status (a status without listings is absent). */
export async function countListingsByStatus(
  db: Db,
  officeId: string,
): Promise<Partial<Record<ListingStatus, number>>> {
  const rows = await db.kysely.selectFrom("listings").where("office_id", "=", officeId)
    .select([sql<ListingStatus>`status::text`.as("status"), sql<number>`count(*)::int`.as("n")])
    .groupBy("status").execute();
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** The titles of the office's listings among `ids` (lower-case UUIDs; other offices' ids are left out), by id. */
export async function findOfficeListingTitles(
  db: Db,
  officeId: string,
  ids: string[],
): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db.kysely.selectFrom("listings").select(["id", "title"])
    .where("office_id", "=", officeId).where("id", "in", [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r.title]));
}

/** Inserts a draft listing of `officeId` (not a sample) with its contact when one is given; returns its id. */
export async function insertListingRow(
  q: Kysely<Database>,
  officeId: string,
  columns: ListingColumns,
  contact: ContactColumns | null,
  now: Date,
): Promise<string> {
  const made = await uniqueReference(() =>
    q.insertInto("listings").values({
      ...columns,
      office_id: officeId,
      status: "draft",
      beispiel: false,
      created_at: now,
      updated_at: now,
      published_at: null,
    }).returning("id").executeTakeFirstOrThrow()
  );
  if (contact) await q.insertInto("listing_contacts").values({ listing_id: made.id, ...contact }).execute();
  return made.id;
}

/**
 * Changes the given listing columns of `id` and sets `updated_at`; `contact` changes the given contact columns
 * (creating the contact row when missing), `null` removes the contact.
 */
export async function updateListingRow(
  q: Kysely<Database>,
  id: string,
  columns: Partial<ListingColumns>,
  contact: Partial<ContactColumns> | null | undefined,
  now: Date,
): Promise<void> {
  await uniqueReference(() =>
    q.updateTable("listings").set({ ...columns, updated_at: now }).where("id", "=", id).execute()
  );
  if (contact === null) {
    await q.deleteFrom("listing_contacts").where("listing_id", "=", id).execute();
  } else if (contact !== undefined && Object.keys(contact).length > 0) {
    await q.insertInto("listing_contacts").values({ listing_id: id, ...contact })
      .onConflict((oc) => oc.column("listing_id").doUpdateSet(contact)).execute();
  }
}

/** Runs `write`; a clash with another listing's reference of the same office becomes `conflict`. */
async function uniqueReference<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    if (e.code === "23505" && String(e.message).includes("listings_office_reference")) {
      throw new AppError("conflict", { field: "reference", reason: "reference_taken" });
    }
    throw err;
  }
}
