/**
 * SQL of event subscriptions (docs/contract.md §6.1, §6): subscriptions, address verifications, switched-off events,
 * and the ownership checks of subscription filters.
 */
import { isUuid } from "../ids.ts";
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";
import { DELIVERY_STATE_COLUMNS, deliveryStateOf, type DeliveryStateRow } from "./subscription_state.ts";

/** A subscription row as the domain reads it. */
export interface SubscriptionRow {
  id: string;
  userId: string;
  clientId: string;
  server: "anbieter" | "suche";
  officeId: string | null;
  name: string;
  arguments: Record<string, string>;
  url: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretUntil: Date | null;
  createdAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  /** Delivery is suspended since (docs/contract.md §6.4); null while active. */
  suspendedAt: Date | null;
}

/** What identifies a subscription: person, app, server, event, canonical filter and address. */
export interface SubscriptionIdentity {
  userId: string;
  clientId: string;
  server: "anbieter" | "suche";
  name: string;
  argumentsKey: string;
  url: string;
}

/** The columns of a {@linkcode SubscriptionRow}, named as the domain reads them. */
const SUBSCRIPTION_COLUMNS = [
  "id",
  "user_id as userId",
  "client_id as clientId",
  "server",
  "office_id as officeId",
  "name",
  "arguments",
  "url",
  "secret_enc as secretEnc",
  "previous_secret_enc as previousSecretEnc",
  "previous_secret_until as previousSecretUntil",
  "created_at as createdAt",
  "expires_at as expiresAt",
  "ended_at as endedAt",
  "end_reason as endReason",
  "suspended_at as suspendedAt",
] as const;

/** A row of {@linkcode SUBSCRIPTION_COLUMNS} with its `arguments` (jsonb: text or object, by driver) parsed. */
function toRow(r: Omit<SubscriptionRow, "arguments"> & { arguments: unknown }): SubscriptionRow {
  const args = typeof r.arguments === "string" ? JSON.parse(r.arguments) : r.arguments;
  return { ...r, arguments: args as Record<string, string> };
}

/** Serialises subscribe/renew/limit checks of one person and app across processes (transaction-scoped). */
export async function lockApp(tx: Kysely<Database>, userId: string, clientId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`subs:${userId}:${clientId}`}, 0))`.execute(tx);
}

/** The live (not ended) subscription with `identity`, if any. */
export async function liveSubscription(
  q: Kysely<Database>,
  identity: SubscriptionIdentity,
): Promise<SubscriptionRow | undefined> {
  const r = await q.selectFrom("event_subscriptions").select(SUBSCRIPTION_COLUMNS)
    .where("user_id", "=", identity.userId).where("client_id", "=", identity.clientId)
    .where("server", "=", identity.server).where("name", "=", identity.name)
    .where("arguments_key", "=", identity.argumentsKey).where("url", "=", identity.url)
    .where("ended_at", "is", null).executeTakeFirst();
  return r ? toRow(r) : undefined;
}

/** The subscription `id` (live or ended), if any. */
export async function subscriptionById(
  q: Kysely<Database>,
  id: string,
): Promise<SubscriptionRow | undefined> {
  const r = await q.selectFrom("event_subscriptions").select(SUBSCRIPTION_COLUMNS).where("id", "=", id)
    .executeTakeFirst();
  return r ? toRow(r) : undefined;
}

/** How many subscriptions of the person and app are live and unexpired at `now`. */
export async function countLive(
  q: Kysely<Database>,
  userId: string,
  clientId: string,
  now: Date,
): Promise<number> {
  const r = await q.selectFrom("event_subscriptions").select(sql<number>`count(*)::int`.as("n"))
    .where("user_id", "=", userId).where("client_id", "=", clientId)
    .where("ended_at", "is", null).where("expires_at", ">", now).executeTakeFirstOrThrow();
  return r.n;
}

/** A new subscription to insert. */
export interface NewSubscription extends SubscriptionIdentity {
  id: string;
  officeId: string | null;
  arguments: Record<string, string>;
  secretEnc: string;
  now: Date;
  expiresAt: Date;
}

/** Inserts a new subscription. */
export async function insertSubscription(q: Kysely<Database>, s: NewSubscription): Promise<void> {
  await q.insertInto("event_subscriptions").values({
    id: s.id,
    user_id: s.userId,
    client_id: s.clientId,
    server: s.server,
    office_id: s.officeId,
    name: s.name,
    arguments: sql<string>`${JSON.stringify(s.arguments)}::text::jsonb`,
    arguments_key: s.argumentsKey,
    url: s.url,
    secret_enc: s.secretEnc,
    created_at: s.now,
    renewed_at: s.now,
    expires_at: s.expiresAt,
  }).execute();
}

/**
 * Renews subscription `id`: new expiry, and the secrets after a possible rotation. Returns its delivery state, read
 * with the row lock the renewal holds until its transaction ends.
 */
export async function renewSubscription(
  q: Kysely<Database>,
  id: string,
  r: {
    secretEnc: string;
    previousSecretEnc: string | null;
    previousSecretUntil: Date | null;
    now: Date;
    expiresAt: Date;
  },
): Promise<DeliveryStateRow> {
  const row = await q.updateTable("event_subscriptions").set({
    secret_enc: r.secretEnc,
    previous_secret_enc: r.previousSecretEnc,
    previous_secret_until: r.previousSecretUntil,
    renewed_at: r.now,
    expires_at: r.expiresAt,
  }).where("id", "=", id).returning(DELIVERY_STATE_COLUMNS).executeTakeFirstOrThrow();
  return deliveryStateOf(row);
}

/** Why a subscription ended (the `end_reason` column). */
export type EndReason =
  | "unsubscribed"
  | "ended_by_user"
  | "disconnected"
  | "access_closed"
  | "insufficient_scope"
  | "gone";

/**
 * Ends the live subscriptions selected by `where` (one id, or all of a person's app, optionally one event);
 * `terminate` marks that a `terminated` control message is owed. Returns the ids ended. The rows are locked in id
 * order first, the order every statement that locks several subscriptions keeps (db/subscription_state.ts).
 */
export async function endSubscriptions(
  q: Kysely<Database>,
  where: { id: string } | { userId: string; clientId: string; name?: string },
  end: { reason: EndReason; now: Date; terminate: boolean },
): Promise<string[]> {
  let picked = q.selectFrom("event_subscriptions").select("id").where("ended_at", "is", null);
  if ("id" in where) picked = picked.where("id", "=", where.id);
  else {
    picked = picked.where("user_id", "=", where.userId).where("client_id", "=", where.clientId);
    if (where.name) picked = picked.where("name", "=", where.name);
  }
  const ids = (await picked.orderBy("id").forUpdate().execute()).map((r) => r.id);
  if (ids.length === 0) return [];
  const u = q.updateTable("event_subscriptions").set({
    ended_at: end.now,
    end_reason: end.reason,
    terminate_pending: end.terminate,
  }).where("id", "in", ids).where("ended_at", "is", null);
  return (await u.returning("id").execute()).map((r) => r.id);
}

/** The live, unexpired subscriptions of a person, newest first (for the connected-apps page). */
export async function liveSubscriptionsOf(db: Db, userId: string, now: Date): Promise<SubscriptionRow[]> {
  const rows = await db.kysely.selectFrom("event_subscriptions").select(SUBSCRIPTION_COLUMNS)
    .where("user_id", "=", userId).where("ended_at", "is", null).where("expires_at", ">", now)
    .orderBy("created_at", "desc").execute();
  return rows.map(toRow);
}

/** When (person, app, address) was last verified, if ever. */
export async function verifiedAt(
  db: Db,
  userId: string,
  clientId: string,
  url: string,
): Promise<Date | undefined> {
  const r = await db.kysely.selectFrom("webhook_verifications").select("verified_at")
    .where("user_id", "=", userId).where("client_id", "=", clientId).where("url", "=", url)
    .executeTakeFirst();
  return r ? new Date(r.verified_at) : undefined;
}

/** Records a successful verification of (person, app, address) at `at`. */
export async function saveVerification(db: Db, userId: string, clientId: string, url: string, at: Date) {
  await db.kysely.insertInto("webhook_verifications")
    .values({ user_id: userId, client_id: clientId, url, verified_at: at })
    .onConflict((oc) => oc.columns(["user_id", "client_id", "url"]).doUpdateSet({ verified_at: at }))
    .execute();
}

/** Whether the person switched event `name` off for app `clientId`. */
export async function isOptedOut(q: Kysely<Database>, userId: string, clientId: string, name: string) {
  const r = await q.selectFrom("event_opt_outs").select("name")
    .where("user_id", "=", userId).where("client_id", "=", clientId).where("name", "=", name)
    .executeTakeFirst();
  return r !== undefined;
}

/** The events a person switched off, per app. */
export async function optOutsOf(db: Db, userId: string): Promise<Array<{ clientId: string; name: string }>> {
  const rows = await db.kysely.selectFrom("event_opt_outs").select(["client_id", "name"])
    .where("user_id", "=", userId).orderBy("name").execute();
  return rows.map((r) => ({ clientId: r.client_id, name: r.name }));
}

/** Switches event `name` off for the app (idempotent). */
export async function insertOptOut(
  q: Kysely<Database>,
  userId: string,
  clientId: string,
  name: string,
  now: Date,
) {
  await q.insertInto("event_opt_outs").values({ user_id: userId, client_id: clientId, name, created_at: now })
    .onConflict((oc) => oc.doNothing()).execute();
}

/** Switches event `name` on again for the app. */
export async function deleteOptOut(
  tx: Kysely<Database>,
  userId: string,
  clientId: string,
  name: string,
): Promise<void> {
  await tx.deleteFrom("event_opt_outs")
    .where("user_id", "=", userId).where("client_id", "=", clientId).where("name", "=", name).execute();
}

/**
 * Whether `table` holds a row `id` whose `owner` column is `ownerId`: the ownership check of a subscription
 * filter. False for an id that is not a UUID (filters hold ids as callers sent them).
 */
async function owns(
  db: Db,
  table: "listings" | "inquiries" | "saved_searches",
  owner: "office_id" | "seeker_id",
  ownerId: string,
  id: string,
): Promise<boolean> {
  if (!isUuid(id)) return false;
  const r = await sql`select 1 from ${sql.table(table)} where id = ${id} and ${sql.ref(owner)} = ${ownerId}`
    .execute(db.kysely);
  return r.rows.length > 0;
}

/** Whether listing `id` belongs to office `officeId` (any status). */
export function listingOfOffice(db: Db, officeId: string, id: string): Promise<boolean> {
  return owns(db, "listings", "office_id", officeId, id);
}

/** Whether inquiry `id` belongs to office `officeId`. */
export function inquiryOfOffice(db: Db, officeId: string, id: string): Promise<boolean> {
  return owns(db, "inquiries", "office_id", officeId, id);
}

/** Whether inquiry `id` was sent by the seeker `userId`. */
export function inquiryOfSeeker(db: Db, userId: string, id: string): Promise<boolean> {
  return owns(db, "inquiries", "seeker_id", userId, id);
}

/** Whether saved search `id` belongs to the seeker `userId`. */
export function savedSearchOfSeeker(db: Db, userId: string, id: string): Promise<boolean> {
  return owns(db, "saved_searches", "seeker_id", userId, id);
}
