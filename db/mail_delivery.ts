/**
 * SQL of mail delivery: claiming due outbox mails with a lease (`for update skip locked`, so two instances never
 * hold one mail at once), and recording the outcome of an attempt.
 */
import { sql } from "kysely";
import type { Db } from "./connection.ts";

/** A claimed mail: what the sender needs, and the number of this attempt. */
export interface ClaimedMail {
  id: string;
  to: string;
  subject: string;
  body: string;
  /** For a mail to an inquirer: the inquiry, its tokens and whether its mails were stopped. */
  inquiry: { inquiryId: string; replyToken: string; stopToken: string; stopped: boolean } | null;
  /** For an alert mail of a saved search: the search, its stop token and whether its alert was switched off. */
  alert: { savedSearchId: string; stopToken: string; stopped: boolean } | null;
  /** The number of the attempt being made (1 for the first). */
  attempt: number;
}

/**
 * Claims up to `limit` unsent mails due at `now` that nobody holds: each gets `lease_until = leaseUntil` (and is due
 * again then, should its sender die) and one more attempt counted. A mail held by another sender is skipped, not waited for.
 */
export async function claimDueMails(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedMail[]> {
  const r = await sql<{
    id: string;
    to_address: string;
    subject: string;
    body: string;
    inquiry_id: string | null;
    reply_token: string | null;
    stop_token: string | null;
    stopped: boolean | null;
    saved_search_id: string | null;
    alert_token: string | null;
    alert_off: boolean | null;
    attempts: number;
  }>`
    update mail_outbox m set lease_until = ${leaseUntil}, next_attempt_at = ${leaseUntil}, attempts = m.attempts + 1
      from mail_outbox o left join inquiry_mail_tokens t on t.inquiry_id = o.inquiry_id
                         left join saved_searches s on s.id = o.saved_search_id
     where m.id = o.id and m.id = any(array(
       select id from mail_outbox
        where sent_at is null and next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})
        order by next_attempt_at limit ${limit}
        for update skip locked))
    returning m.id, m.to_address, m.subject, m.body, m.inquiry_id, t.reply_token, t.stop_token,
              t.stopped_at is not null as stopped, m.saved_search_id, s.alert_token,
              s.alert = 'off' as alert_off, m.attempts`.execute(db.kysely);
  return r.rows.map((m) => ({
    id: m.id,
    to: m.to_address,
    subject: m.subject,
    body: m.body,
    inquiry: m.inquiry_id && m.reply_token && m.stop_token
      ? { inquiryId: m.inquiry_id, replyToken: m.reply_token, stopToken: m.stop_token, stopped: !!m.stopped }
      : null,
    alert: m.saved_search_id && m.alert_token
      ? { savedSearchId: m.saved_search_id, stopToken: m.alert_token, stopped: m.alert_off !== false }
      : null,
    attempt: m.attempts,
  }));
}

/** Gives back claimed mails `ids` that are still unsent (a stopping sender): due again at `now`. */
export async function releaseMails(db: Db, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.kysely.updateTable("mail_outbox").set({ next_attempt_at: now, lease_until: null })
    .where("id", "in", ids).where("sent_at", "is", null).where("lease_until", "is not", null).execute();
}

/** Sets `sent_at` of outbox mail `id` (only once: a mail already marked keeps its first time); nothing more is due. */
export async function markMailSent(db: Db, id: string, at: Date): Promise<void> {
  await db.kysely.updateTable("mail_outbox")
    .set({ sent_at: at, next_attempt_at: null, lease_until: null, last_error: null })
    .where("id", "=", id).where("sent_at", "is", null).execute();
}

/** Records a failed attempt of mail `id`: its error, and the next attempt's time or (null) that it was given up. */
export async function markMailFailed(
  db: Db,
  id: string,
  f: { error: string; nextAttemptAt: Date | null; at: Date },
): Promise<void> {
  await db.kysely.updateTable("mail_outbox")
    .set({
      last_error: f.error,
      next_attempt_at: f.nextAttemptAt,
      given_up_at: f.nextAttemptAt ? null : f.at,
      lease_until: null,
    })
    .where("id", "=", id).where("sent_at", "is", null).execute();
}

/**
 * Marks mail `id` as handled without sending: no SMTP configured (it stays recorded, not counted as an attempt), or
 * the inquirer stopped mails about its inquiry (`why` is kept as its last error). Nothing is due afterwards.
 */
export async function markMailKept(db: Db, id: string, why: string | null = null): Promise<void> {
  await db.kysely.updateTable("mail_outbox")
    .set({ next_attempt_at: null, lease_until: null, attempts: 0, last_error: why })
    .where("id", "=", id).where("sent_at", "is", null).execute();
}

/** When outbox mail `id` was accepted by the mail server: `null` while not delivered, `undefined` if unknown. */
export async function mailSentAt(db: Db, id: string): Promise<Date | null | undefined> {
  const row = await db.kysely.selectFrom("mail_outbox").select("sent_at").where("id", "=", id)
    .executeTakeFirst();
  return row ? row.sent_at : undefined;
}
