/**
 * SQL of the inquiries aggregate (`inquiries` and their `inquiry_messages`). Every function takes the query handle
 * to use (`db.kysely` or the transaction of the calling domain action); ids given here are already valid UUIDs.
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";

/** The handle a function runs on: the database or a transaction. */
type Q = Kysely<Database>;

/** The statuses of an inquiry (docs/contract.md), in the order they are listed to people. */
export const INQUIRY_STATUSES = ["open", "answered", "rejected", "closed"] as const;
/** An inquiry's status. */
export type InquiryStatus = (typeof INQUIRY_STATUSES)[number];
/** Where an inquiry came from. */
export type InquiryQuelle = "service" | "portal" | "email";

/** Whose inquiries a read may see: one office's (provider) or one seeker's. */
export type InquiryScope = { officeId: string } | { seekerId: string };

/** Takes transaction-scoped advisory locks on `keys` one by one in sorted order (so two callers never deadlock). */
export async function lockKeys(tx: Q, keys: string[]): Promise<void> {
  for (const key of [...new Set(keys)].sort()) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(tx);
  }
}

/** The published listing with this id: its office and title, or undefined. */
export async function findPublishedListingOffice(
  q: Q,
  listingId: string,
): Promise<{ id: string; officeId: string; title: string | null } | undefined> {
  return await q.selectFrom("listings").select(["id", "office_id as officeId", "title"])
    .where("id", "=", listingId).where("status", "=", "published").executeTakeFirst();
}

/** The title of a listing (any status), or null. */
export async function listingTitle(q: Q, listingId: string): Promise<string | null> {
  const row = await q.selectFrom("listings").select("title").where("id", "=", listingId).executeTakeFirst();
  return row?.title ?? null;
}

/** What inquiries to count: one person's, one e-mail address's or one listing's. */
export type CountBy = { seekerId: string } | { email: string } | { listingId: string };

/** Number of inquiries of `by` created after `from` (no upper bound: a later stamp still counts). */
export async function countInquiriesSince(q: Q, by: CountBy, from: Date): Promise<number> {
  let query = q.selectFrom("inquiries").select(sql<number>`count(*)::int`.as("n"))
    .where("created_at", ">", from);
  if ("seekerId" in by) query = query.where("seeker_id", "=", by.seekerId);
  else if ("email" in by) query = query.where("email", "=", by.email);
  else query = query.where("listing_id", "=", by.listingId);
  const row = await query.executeTakeFirstOrThrow();
  return row.n;
}

/** A new inquiry to insert. */
export interface NewInquiry {
  listingId: string;
  officeId: string;
  quelle: InquiryQuelle;
  seekerId: string | null;
  name: string | null;
  email: string;
  phone: string | null;
  /** The app it was sent through (null: the website or an inbound message). */
  origin: { clientId: string } | { apiKeyId: string } | null;
  /** The name a portal gave (OpenImmo feedback), or null. */
  portalName: string | null;
  at: Date;
}

/** Inserts an open inquiry; returns its id. */
export async function insertInquiry(q: Q, row: NewInquiry): Promise<string> {
  const r = await q.insertInto("inquiries").values({
    listing_id: row.listingId,
    office_id: row.officeId,
    quelle: row.quelle,
    seeker_id: row.seekerId,
    name: row.name,
    email: row.email,
    phone: row.phone,
    origin_client_id: row.origin && "clientId" in row.origin ? row.origin.clientId : null,
    origin_api_key_id: row.origin && "apiKeyId" in row.origin ? row.origin.apiKeyId : null,
    portal_name: row.portalName,
    status: "open",
    created_at: row.at,
    updated_at: row.at,
  }).returning("id").executeTakeFirstOrThrow();
  return r.id;
}

/** A new message of a thread. */
export interface NewInquiryMessage {
  inquiryId: string;
  sender: "seeker" | "provider";
  authorId: string | null;
  body: string;
  at: Date;
}

/** Inserts a message; returns its id. */
export async function insertInquiryMessage(q: Q, m: NewInquiryMessage): Promise<string> {
  const r = await q.insertInto("inquiry_messages").values({
    inquiry_id: m.inquiryId,
    sender: m.sender,
    author_id: m.authorId,
    body: m.body,
    created_at: m.at,
  }).returning("id").executeTakeFirstOrThrow();
  return r.id;
}

/** The inquiry row a write works on. */
export interface LockedInquiry {
  id: string;
  listingId: string;
  officeId: string;
  seekerId: string | null;
  status: InquiryStatus;
  /** Time of the newest message of the thread. */
  lastMessageAt: Date | null;
}

/** The column and value that restrict a query to `scope`. */
function scopeOf(scope: InquiryScope): ["inquiries.office_id" | "inquiries.seeker_id", string] {
  return "officeId" in scope
    ? ["inquiries.office_id", scope.officeId]
    : ["inquiries.seeker_id", scope.seekerId];
}

/** Locks (`for update`) the inquiry `id` within `scope` and returns it, or undefined when it is not in scope. */
export async function lockInquiry(q: Q, scope: InquiryScope, id: string): Promise<LockedInquiry | undefined> {
  const [column, value] = scopeOf(scope);
  const row = await q.selectFrom("inquiries")
    .select(["id", "listing_id as listingId", "office_id as officeId", "seeker_id as seekerId", "status"])
    .where("inquiries.id", "=", id).where(column, "=", value).forUpdate().executeTakeFirst();
  if (!row) return undefined;
  const last = await q.selectFrom("inquiry_messages").select(sql<Date | null>`max(created_at)`.as("at"))
    .where("inquiry_id", "=", id).executeTakeFirstOrThrow();
  return { ...row, lastMessageAt: last.at === null ? null : new Date(last.at) };
}

/** Sets an inquiry's status and its update time. */
export async function setInquiryStatus(q: Q, id: string, status: InquiryStatus, at: Date): Promise<void> {
  await q.updateTable("inquiries").set({ status, updated_at: at }).where("id", "=", id).execute();
}

/** An inquiry as listed, its columns named as the contract names them and its times as ISO 8601 strings (UTC). */
export interface InquiryRow {
  id: string;
  listing_id: string;
  listing_title: string | null;
  status: InquiryStatus;
  quelle: InquiryQuelle;
  name: string | null;
  email: string;
  phone: string | null;
  created_at: string;
  updated_at: string;
  message_count: number;
  last_message_at: string;
  /** The OAuth app it was sent through and that app's registered name (null when no longer registered). */
  origin_client_id: string | null;
  app_name: string | null;
  /** Whether it was sent through an API key. */
  via_api_key: boolean;
  portal_name: string | null;
  /** The start (500 characters) of the inquirer's newest message. */
  latest_text: string | null;
}

function inquiryRows(q: Q) {
  return q.selectFrom("inquiries").leftJoin("listings as l", "l.id", "inquiries.listing_id")
    .leftJoin("oauthClient as c", "c.clientId", "inquiries.origin_client_id").select([
      "inquiries.id",
      "inquiries.listing_id",
      "l.title as listing_title",
      "inquiries.status",
      "inquiries.quelle",
      "inquiries.name",
      "inquiries.email",
      "inquiries.phone",
      "inquiries.created_at",
      "inquiries.updated_at",
      "inquiries.origin_client_id",
      "c.name as app_name",
      sql<boolean>`inquiries.origin_api_key_id is not null`.as("via_api_key"),
      "inquiries.portal_name",
      sql<string | null>`(select left(m.body, 500) from inquiry_messages m
        where m.inquiry_id = inquiries.id and m.sender = 'seeker' order by m.created_at desc, m.id desc limit 1)`
        .as("latest_text"),
      sql<number>`(select count(*)::int from inquiry_messages m where m.inquiry_id = inquiries.id)`
        .as("message_count"),
      sql<Date>`(select max(m.created_at) from inquiry_messages m where m.inquiry_id = inquiries.id)`
        .as("last_message_at"),
    ]);
}

type DatedRow = Omit<InquiryRow, "created_at" | "updated_at" | "last_message_at"> & {
  created_at: Date;
  updated_at: Date;
  last_message_at: Date | null;
};

/** A row of `inquiryRows` with its times as ISO strings; a thread without messages counts from its creation. */
function normalise(r: DatedRow): InquiryRow {
  return {
    ...r,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    last_message_at: new Date(r.last_message_at ?? r.created_at).toISOString(),
  };
}

/** Filters of a list of inquiries. */
export interface InquiryFilter {
  listingId?: string | undefined;
  status?: InquiryStatus | undefined;
}

/** Inquiries in `scope` matching `f`, newest first (id as tiebreak): `limit` from `offset`, and the total. */
export async function listInquiryRows(
  q: Q,
  scope: InquiryScope,
  f: InquiryFilter,
  limit: number,
  offset: number,
): Promise<{ items: InquiryRow[]; total: number }> {
  const [column, value] = scopeOf(scope);
  const count = q.selectFrom("inquiries").select(sql<number>`count(*)::int`.as("n")).where(column, "=", value)
    .$if(f.listingId !== undefined, (qb) => qb.where("inquiries.listing_id", "=", f.listingId!))
    .$if(f.status !== undefined, (qb) => qb.where("inquiries.status", "=", f.status!));
  const page = inquiryRows(q).where(column, "=", value)
    .$if(f.listingId !== undefined, (qb) => qb.where("inquiries.listing_id", "=", f.listingId!))
    .$if(f.status !== undefined, (qb) => qb.where("inquiries.status", "=", f.status!));
  const [items, total] = await Promise.all([
    page.orderBy("inquiries.created_at", "desc").orderBy("inquiries.id", "desc").limit(limit).offset(offset)
      .execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { items: items.map(normalise), total: total.n };
}

/** One message as read (its time as an ISO 8601 string, UTC). */
export interface InquiryMessageRow {
  id: string;
  sender: "seeker" | "provider";
  body: string;
  created_at: string;
}

/** The inquiry `id` within `scope` with its messages in order, or undefined when it is not in scope. */
export async function findInquiryThread(
  q: Q,
  scope: InquiryScope,
  id: string,
): Promise<{ inquiry: InquiryRow; messages: InquiryMessageRow[] } | undefined> {
  const [column, value] = scopeOf(scope);
  const row = await inquiryRows(q).where("inquiries.id", "=", id).where(column, "=", value)
    .executeTakeFirst();
  if (!row) return undefined;
  const messages = await q.selectFrom("inquiry_messages").select(["id", "sender", "body", "created_at"])
    .where("inquiry_id", "=", id).orderBy("created_at").orderBy("id").execute();
  return {
    inquiry: normalise(row),
    messages: messages.map((m) => ({ ...m, created_at: new Date(m.created_at).toISOString() })),
  };
}

/** The name and (lower-cased) e-mail of a person's account, or undefined. */
export async function accountContact(
  db: Db,
  userId: string,
): Promise<{ name: string; email: string } | undefined> {
  return await db.kysely.selectFrom("users").select(["name", "email"]).where("id", "=", userId)
    .executeTakeFirst();
}

/** The office an inquiry belongs to, or undefined when it does not exist. */
export async function inquiryOffice(q: Q, id: string): Promise<string | undefined> {
  const row = await q.selectFrom("inquiries").select("office_id").where("id", "=", id).executeTakeFirst();
  return row?.office_id;
}
