/** SQL of the mail outbox: recording mails, and the operator's view of mails not (yet) sent. */
import type { Kysely } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";
import { notifyJobs } from "./jobs.ts";

/** The handle a function runs on: the database or a transaction. */
type Q = Kysely<Database>;

/** A mail to record, with the state of its first attempt. */
export interface NewMail {
  to: string;
  subject: string;
  body: string;
  /** The inquiry a mail to an inquirer is about (its reply address and stop line are added when sending). */
  inquiryId?: string | null;
  /** The saved search an alert mail is about (its stop line is added when sending). */
  savedSearchId?: string | null;
  /** When the first attempt is due; null: nothing to send (no SMTP). */
  nextAttemptAt?: Date | null;
  /** Held by the recording process until then (it tries at once); counts as attempt 1. */
  leaseUntil?: Date | null;
}

/** Records a mail with `q` (the database or the transaction of the action that causes it); returns its id. */
export async function insertMail(q: Q, m: NewMail): Promise<string> {
  const row = await q.insertInto("mail_outbox").values({
    to_address: m.to,
    subject: m.subject,
    body: m.body,
    inquiry_id: m.inquiryId ?? null,
    saved_search_id: m.savedSearchId ?? null,
    next_attempt_at: m.nextAttemptAt ?? null,
    lease_until: m.leaseUntil ?? null,
    attempts: m.leaseUntil ? 1 : 0,
  })
    .returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/** The newest mails to `to`, newest first (operators and tests). */
export async function mailsTo(
  db: Db,
  to: string,
  limit = 10,
): Promise<Array<{ subject: string; body: string }>> {
  return await db.kysely.selectFrom("mail_outbox").select(["subject", "body"])
    .where("to_address", "=", to.toLowerCase()).orderBy("created_at", "desc").limit(limit).execute();
}

/** A mail not sent, as the operator sees it (never its body). */
export interface UnsentMail {
  id: string;
  to: string;
  subject: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  givenUpAt: Date | null;
  createdAt: Date;
}

/**
 * Mails waiting for an attempt and mails given up, oldest first (at most `limit`). Mails recorded without SMTP
 * (nothing due, not given up) are not listed.
 */
export async function unsentMails(db: Db, limit: number): Promise<UnsentMail[]> {
  const rows = await db.kysely.selectFrom("mail_outbox")
    .select([
      "id",
      "to_address",
      "subject",
      "attempts",
      "last_error",
      "next_attempt_at",
      "given_up_at",
      "created_at",
    ])
    .where("sent_at", "is", null)
    .where((eb) => eb.or([eb("next_attempt_at", "is not", null), eb("given_up_at", "is not", null)]))
    .orderBy("created_at").orderBy("id").limit(limit).execute();
  return rows.map((r) => ({
    id: r.id,
    to: r.to_address,
    subject: r.subject,
    attempts: r.attempts,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at,
    givenUpAt: r.given_up_at,
    createdAt: r.created_at,
  }));
}

/**
 * Makes unsent mail `id` due at `at` again with a fresh series of attempts (a given-up mail, or one waiting for its
 * back-off); returns whether there was such a mail (a sent or unknown one changes nothing).
 */
export async function retryMailAt(db: Db, id: string, at: Date): Promise<boolean> {
  return await db.kysely.transaction().execute(async (tx) => {
    const r = await tx.updateTable("mail_outbox")
      .set({ next_attempt_at: at, given_up_at: null, attempts: 0, lease_until: null })
      .where("id", "=", id).where("sent_at", "is", null)
      .where((eb) => eb.or([eb("next_attempt_at", "is not", null), eb("given_up_at", "is not", null)]))
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    await notifyJobs(tx, "mail");
    return true;
  });
}
