/**
 * SQL of the intake of inquiries by e-mail and from portals: the message ids already seen (`intake_messages`) and
 * the listing look-ups the inbound addresses and portal object numbers need. Every function takes the query
 * handle to use (`db.kysely` or a transaction); ids given here are already valid UUIDs.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";

/** The handle a function runs on: the database or a transaction. */
type Q = Kysely<Database>;

/** Where an inbound inquiry came from. */
export type IntakeQuelle = "email" | "portal";

/** One inbound message's identity: its source and its (normalised) message id. */
export interface IntakeKey {
  quelle: IntakeQuelle;
  messageId: string;
}

/** The inquiry an already seen message created and the id of that inquiry's first message, or undefined. */
export async function findIntakeMessage(
  q: Q,
  key: IntakeKey,
): Promise<{ inquiryId: string; messageId: string } | undefined> {
  const r = await sql<{ inquiry_id: string; first_message_id: string }>`
    select i.inquiry_id,
           (select m.id from inquiry_messages m where m.inquiry_id = i.inquiry_id
             order by m.created_at, m.id limit 1) as first_message_id
      from intake_messages i
     where i.quelle = ${key.quelle} and i.message_id = ${key.messageId}`.execute(q);
  const row = r.rows[0];
  return row ? { inquiryId: row.inquiry_id, messageId: row.first_message_id } : undefined;
}

/** Records that `key` created inquiry `inquiryId` (throws on a repeat: unique (quelle, message_id)). */
export async function insertIntakeMessage(q: Q, key: IntakeKey, inquiryId: string, at: Date): Promise<void> {
  await sql`insert into intake_messages (quelle, message_id, inquiry_id, received_at)
    values (${key.quelle}, ${key.messageId}, ${inquiryId}, ${at})`.execute(q);
}

/** Number of recorded inbound messages (all sources). */
export async function countIntakeMessages(q: Q): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from intake_messages`.execute(q);
  return r.rows[0]?.n ?? 0;
}

/** Whether an office with this id exists. */
export async function officeExists(q: Q, officeId: string): Promise<boolean> {
  const row = await q.selectFrom("offices").select("id").where("id", "=", officeId).executeTakeFirst();
  return row !== undefined;
}

/** The published listings (any office) whose reference is exactly `reference`. */
export async function publishedListingsByReference(q: Q, reference: string): Promise<string[]> {
  const rows = await q.selectFrom("listings").select("id").where("reference", "=", reference)
    .where("status", "=", "published").execute();
  return rows.map((r) => r.id);
}
