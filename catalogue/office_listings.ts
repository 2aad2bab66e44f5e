/**
 * A provider office's stock: its listings in every status (draft, published, withdrawn, reserved) with the public
 * fields of docs/contract.md §2.1, the internal reference and description, and the provider contact. Only published listings
 * reach the public catalogue; the contact is shown here and nowhere public. Shared by the MCP tools and pages.
 *
 * `reserved` marks a published listing that is under offer: like `withdrawn` it leaves the public catalogue at
 * once (and takes no new inquiries), but the office sees it as reserved and can publish it again. Withdrawing or
 * reserving a listing lets the service's agent prepare a rejection for each of its inquiries still in
 * conversation, in the same transaction (agent/hooks.ts).
 */
import { isUuid } from "../ids.ts";
import { singleLineText } from "../text.ts";
import { z } from "zod";
import type { Db } from "../db/connection.ts";
import {
  type ContactColumns,
  countListingsByStatus,
  findOfficeListingRow,
  findOfficeListingTitles,
  insertListingRow,
  type ListingStatus,
  listOfficeListingRows,
  type OfficeListingRow,
  updateListingRow,
} from "../db/office_listings.ts";
import { LISTING_FACTS, type ListingColumns, setListingStatus } from "../db/listings.ts";
import { AppError } from "../errors.ts";
import { actingOffice, type Action } from "../deps.ts";
import { listingSchema, pageOf, PROPERTY_TYPES, TRANSACTION_TYPES } from "./listing.ts";
import { citySchema } from "./city.ts";
import { pageWindow } from "../paging.ts";
import {
  detailChange,
  detailFieldsShape,
  type ListingDetails,
  listingDetailsSchema,
  NO_DETAILS,
  officeDetails,
  saveDetails,
} from "./listing_details.ts";

/** The statuses of a listing. */
export const LISTING_STATUSES = ["draft", "published", "withdrawn", "reserved"] as const;

/** Largest asked price accepted, in euro (the column holds 12 digits before the decimal point). */
export const PRICE_MAX = 100_000_000_000;
/** Largest number of rooms accepted. */
export const ROOMS_MAX = 10_000;
/** Largest area accepted, in m². */
export const SQM_MAX = 1_000_000_000;

/** The description's text: several lines, 1 to `max` characters trimmed, no NUL, valid Unicode (for Postgres). */
function multiLineText(max: number) {
  return z.string().trim().min(1).max(max).refine((s) => !s.includes("\u0000"), "must not contain NUL")
    .refine((s) => s.isWellFormed(), "must be valid Unicode text");
}

/** An optional one-line field of at most `max` characters (`singleLineText` of `text.ts`); `null` clears it. */
const oneLine = (max: number) => singleLineText(max).nullable().optional();

/** The provider contact as input: every field optional; `null` clears it. */
export const contactInputSchema = z.strictObject({
  provider_name: oneLine(200).describe("Provider (agency) name; never shown publicly."),
  contact_name: oneLine(200).describe("Contact person; never shown publicly."),
  contact_email: z.email().max(320).nullable().optional().describe("Contact e-mail; never shown publicly."),
  contact_phone: oneLine(50).describe("Contact phone; never shown publicly."),
});

/** The fields a provider writes, as input: every field optional; `null` clears it, an absent field stays. */
export const listingFieldsShape = {
  reference: oneLine(100).describe("Internal reference, unique within the office."),
  title: oneLine(300).describe("One line: no line breaks, tabs or other control characters."),
  description: multiLineText(20_000).nullable().optional().describe(
    "Internal description; not part of the public listing.",
  ),
  city: citySchema.nullable().optional(),
  postal_code: z.string().regex(/^[0-9]{5}$/, "five digits").nullable().optional(),
  property_type: z.enum(PROPERTY_TYPES).nullable().optional(),
  transaction_type: z.enum(TRANSACTION_TYPES).nullable().optional(),
  asked_price: z.number().min(0).max(PRICE_MAX).nullable().optional().describe(
    "Purchase price; for rent the monthly net rent (cold rent); in euro.",
  ),
  total_rooms: z.number().min(0).max(ROOMS_MAX).nullable().optional(),
  square_meters: z.number().min(0).max(SQM_MAX).nullable().optional(),
  latitude: z.number().min(-90).max(90).nullable().optional(),
  longitude: z.number().min(-180).max(180).nullable().optional(),
  contact: contactInputSchema.nullable().optional().describe(
    "Provider name and contact person; only visible to the office. null removes the contact.",
  ),
  ...detailFieldsShape,
};

/** The fields a provider writes (create and update). */
export const listingFieldsSchema = z.strictObject(listingFieldsShape);

/** Fields of a listing as given by a provider. */
export type ListingFields = z.infer<typeof listingFieldsSchema>;

const iso = z.string().describe("ISO 8601 timestamp (UTC).");

/** The provider contact as shown to the office: null where unknown. */
export const contactSchema = z.object({
  provider_name: z.string().nullable(),
  contact_name: z.string().nullable(),
  contact_email: z.string().nullable(),
  contact_phone: z.string().nullable(),
});

/** One listing as its office sees it: the public fields plus status, internal fields, contact and timestamps. */
export const officeListingSchema = listingSchema.extend({
  status: z.enum(LISTING_STATUSES),
  reference: z.string().nullable(),
  description: z.string().nullable(),
  contact: contactSchema,
  created_at: iso,
  updated_at: iso,
  published_at: iso.nullable().describe("Time of the first publication; null while never published."),
}).extend(listingDetailsSchema.shape);

/** A listing of the office's stock. */
export type OfficeListing = z.infer<typeof officeListingSchema>;

/** One line of the stock list. */
export const officeListingItemSchema = z.object({
  id: z.string(),
  status: z.enum(LISTING_STATUSES),
  reference: z.string().nullable(),
  title: z.string().nullable(),
  city: z.string().nullable(),
  postal_code: z.string().nullable(),
  property_type: z.enum(PROPERTY_TYPES).nullable(),
  transaction_type: z.enum(TRANSACTION_TYPES).nullable(),
  asked_price: z.number().nullable(),
  published_at: iso.nullable(),
  updated_at: iso,
});

/** A page of the office's stock. */
export const officeListingsPageSchema = pageOf(
  officeListingItemSchema,
  "Number of the office's listings matching the status filter.",
);

/** A page of the office's stock. */
export type OfficeListingsPage = z.infer<typeof officeListingsPageSchema>;

/** What the stock list is asked for. */
export interface OfficeListingsQuery {
  status?: (typeof LISTING_STATUSES)[number] | undefined;
  /** Only listings whose title, reference, city or postal code contain this text (case-insensitive). */
  search?: string | undefined;
  page?: number | undefined;
  page_size?: number | undefined;
}

/** One page of the office's listings in every status (or one), last updated first. */
export async function listOfficeListings(
  db: Db,
  officeId: string,
  q: OfficeListingsQuery,
): Promise<OfficeListingsPage> {
  const { page, page_size: pageSize, offset } = pageWindow(q);
  const search = q.search?.trim() || undefined;
  if (search !== undefined && (search.length > 100 || search.includes("\u0000"))) {
    throw new AppError("invalid_request", { field: "search" });
  }
  const f = { status: q.status, search };
  const { items, total } = await listOfficeListingRows(db, officeId, f, pageSize, offset);
  return {
    items: items.map((r) => ({
      ...r,
      published_at: r.published_at ? new Date(r.published_at).toISOString() : null,
      updated_at: new Date(r.updated_at).toISOString(),
    })),
    total,
    page,
    page_size: pageSize,
  };
}

/** How many listings of the office are in each status (every status named, 0 when none). */
export async function countOfficeListings(db: Db, officeId: string): Promise<Record<ListingStatus, number>> {
  const found = await countListingsByStatus(db, officeId);
  return Object.fromEntries(LISTING_STATUSES.map((s) => [s, found[s] ?? 0])) as Record<ListingStatus, number>;
}

/** The titles of the office's listings among `ids`, by id; malformed ids and other offices' ids are left out. */
export async function officeListingTitles(
  db: Db,
  officeId: string,
  ids: string[],
): Promise<Map<string, string | null>> {
  return await findOfficeListingTitles(db, officeId, ids.filter(isUuid).map((id) => id.toLowerCase()));
}

/** The office's listing `id`; a malformed id, an unknown one and another office's all throw `not_found`. */
export async function getOfficeListing(db: Db, officeId: string, id: string): Promise<OfficeListing> {
  const row = isUuid(id) ? await findOfficeListingRow(db.kysely, officeId, id.toLowerCase()) : undefined;
  if (!row) throw new AppError("not_found");
  return officeListingView(row, await officeDetails(db.kysely, officeId, row.id));
}

/** Creates a draft listing of the acting office from `fields`; returns the office's view. */
export async function createListing(a: Action, fields: ListingFields): Promise<OfficeListing> {
  const officeId = actingOffice(a);
  const { columns, contact } = splitFields(fields);
  const full = Object.fromEntries(
    COLUMN_KEYS.map((k) => [k, columns[k] ?? null]),
  ) as unknown as ListingColumns;
  const id = await insertListingRow(a.tx, officeId, full, contact ? fullContact(contact) : null, a.now);
  const details = await saveDetails(a.tx, id, detailChange(fields), NO_DETAILS, full);
  return officeListingView((await findOfficeListingRow(a.tx, officeId, id))!, details);
}

/**
 * Changes the given fields of the acting office's listing `id` (`null` clears a field, an absent one stays) and
 * sets `updated_at`. A published listing stays published, so its public view changes at once; an edit that would
 * leave it without a field needed for publication is refused with `conflict`.
 */
export async function updateListing(a: Action, id: string, fields: ListingFields): Promise<OfficeListing> {
  const { columns, contact } = splitFields(fields);
  const details = detailChange(fields);
  return await lockedListing(a, id, async (row) => {
    const changes = Object.keys(columns).length > 0 || Object.keys(details).length > 0;
    if (!changes && contact === undefined) return row;
    if (row.status === "published") requireComplete({ ...row, ...columns });
    const current = await officeDetails(a.tx, actingOffice(a), row.id);
    await saveDetails(a.tx, row.id, details, current, { ...row, ...columns });
    await updateListingRow(a.tx, row.id, columns, contact, a.now);
    return (await findOfficeListingRow(a.tx, actingOffice(a), row.id))!;
  });
}

/**
 * Publishes the office's draft, withdrawn or reserved listing `id` (keeping the time of its first publication); a
 * listing without title, property type, transaction type and city or postal code is refused with `conflict`.
 * Publishing a published listing changes nothing.
 */
export async function publishListing(a: Action, id: string): Promise<OfficeListing> {
  return await lockedListing(a, id, async (row) => {
    if (row.status === "published") return row;
    requireComplete(row);
    await setListingStatus(a.tx, row.id, "published", a.now);
    return (await findOfficeListingRow(a.tx, actingOffice(a), row.id))!;
  });
}

/** A status change that may have made the agent prepare rejections. */
export interface ListingStatusChange {
  listing: OfficeListing;
  /** Ids of the rejection proposals prepared in the same transaction. */
  rejections: string[];
}

/**
 * Withdraws the office's listing `id` from the public catalogue at once; a withdrawn listing stays as it is. In
 * the same transaction the agent prepares a rejection for each inquiry of it still in conversation.
 */
export async function withdrawListing(a: Action, id: string): Promise<ListingStatusChange> {
  return await changeAvailability(a, id, "withdrawn");
}

/**
 * Reserves the office's published listing `id`: it leaves the public catalogue at once and is marked reserved; a
 * reserved listing stays as it is; a draft or withdrawn one is refused with `conflict`. In the same transaction
 * the agent prepares a rejection for each inquiry of it still in conversation.
 */
export async function reserveListing(a: Action, id: string): Promise<ListingStatusChange> {
  return await changeAvailability(a, id, "reserved");
}

/** Sets `status` (withdrawn or reserved) and lets the agent prepare rejections, in the same action. */
async function changeAvailability(
  a: Action,
  id: string,
  status: "withdrawn" | "reserved",
): Promise<ListingStatusChange> {
  let rejections: string[] = [];
  const listing = await lockedListing(a, id, async (row) => {
    if (row.status === status) return row;
    if (status === "reserved" && row.status !== "published") {
      throw new AppError("conflict", { reason: "reserve_needs_published" });
    }
    rejections = await makeUnavailable(a, row.id, status);
    return (await findOfficeListingRow(a.tx, actingOffice(a), row.id))!;
  });
  return { listing, rejections };
}

/**
 * Sets listing `listingId` withdrawn or reserved within action `a` and announces it (the agent proposes a
 * rejection for each of its inquiries still in conversation); returns the ids of what the reactions made. Used by
 * the provider tools and by the OpenImmo import's `aktion DELETE`.
 */
export async function makeUnavailable(
  a: Action,
  listingId: string,
  status: "withdrawn" | "reserved",
): Promise<string[]> {
  await setListingStatus(a.tx, listingId, status, a.now);
  return await a.deps.reactions.react(a, { kind: "listing_unavailable", listingId, why: status });
}

/** The fields a listing needs before it can be published, as named in a `conflict` detail. */
export function missingForPublication(
  l: Pick<ListingColumns, "title" | "property_type" | "transaction_type" | "city" | "postal_code">,
): string[] {
  const missing: string[] = [];
  if (l.title === null) missing.push("title");
  if (l.property_type === null) missing.push("property_type");
  if (l.transaction_type === null) missing.push("transaction_type");
  if (l.city === null && l.postal_code === null) missing.push("city or postal_code");
  return missing;
}

function requireComplete(l: Parameters<typeof missingForPublication>[0]): void {
  const missing = missingForPublication(l);
  if (missing.length > 0) {
    throw new AppError("conflict", { reason: "missing_for_publication", names: missing });
  }
}

/** Runs `change` within action `a` holding the row lock of the acting office's listing `id` (else `not_found`). */
async function lockedListing(
  a: Action,
  id: string,
  change: (row: OfficeListingRow) => Promise<OfficeListingRow>,
): Promise<OfficeListing> {
  if (!isUuid(id)) throw new AppError("not_found");
  const found = await findOfficeListingRow(a.tx, actingOffice(a), id.toLowerCase(), true);
  if (!found) throw new AppError("not_found");
  const row = await change(found);
  return officeListingView(row, await officeDetails(a.tx, actingOffice(a), row.id));
}

/** The listing columns a provider writes (docs/contract.md §2.1 fields plus reference and description), in one order. */
export const COLUMN_KEYS = [
  "reference",
  "title",
  "description",
  ...LISTING_FACTS,
] as const satisfies ReadonlyArray<
  keyof ListingColumns
>;

const CONTACT_KEYS = [
  "provider_name",
  "contact_name",
  "contact_email",
  "contact_phone",
] as const satisfies ReadonlyArray<keyof ContactColumns>;

/** The given listing columns and the contact change (absent fields left out). */
function splitFields(f: ListingFields): {
  columns: Partial<ListingColumns>;
  contact: Partial<ContactColumns> | null | undefined;
} {
  const columns: Partial<Record<keyof ListingColumns, unknown>> = {};
  for (const k of COLUMN_KEYS) if (f[k] !== undefined) columns[k] = f[k];
  let contact: Partial<ContactColumns> | null | undefined = f.contact === null ? null : undefined;
  if (f.contact) {
    const c: Partial<ContactColumns> = {};
    for (const k of CONTACT_KEYS) if (f.contact[k] !== undefined) c[k] = f.contact[k];
    contact = c;
  }
  return { columns: columns as Partial<ListingColumns>, contact };
}

function fullContact(c: Partial<ContactColumns>): ContactColumns | null {
  const full = Object.fromEntries(CONTACT_KEYS.map((k) => [k, c[k] ?? null])) as unknown as ContactColumns;
  return CONTACT_KEYS.some((k) => full[k] !== null) ? full : null;
}

/** The office's view of a stored row and its details. */
function officeListingView(r: OfficeListingRow, details: ListingDetails): OfficeListing {
  return {
    id: r.id,
    title: r.title,
    city: r.city,
    postal_code: r.postal_code,
    property_type: r.property_type,
    transaction_type: r.transaction_type,
    asked_price: r.asked_price,
    total_rooms: r.total_rooms,
    square_meters: r.square_meters,
    latitude: r.latitude,
    longitude: r.longitude,
    beispiel: r.beispiel,
    status: r.status,
    reference: r.reference,
    description: r.description,
    contact: {
      provider_name: r.provider_name,
      contact_name: r.contact_name,
      contact_email: r.contact_email,
      contact_phone: r.contact_phone,
    },
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    published_at: r.published_at ? new Date(r.published_at).toISOString() : null,
    ...details,
  };
}
