/**
 * SQL of the job engine (docs/architecture.md §8): the channel its wake-ups travel on, the earliest due time of
 * any job, the periodic runs' schedule rows, and an explicit wake-up for work made due by an update (inserts wake
 * through the triggers of migration 0023).
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";

/** The notification channel of job wake-ups; the payload names the kind of work (a job's name). */
export const JOBS_CHANNEL = "jobs";

/** The kinds of work a notification names. */
export type JobKind = "outbox" | "attempt" | "terminate" | "document" | "mail" | "schedule";

/** Wakes the instances' `kind` job when the transaction of `q` commits (nothing if it rolls back). */
export async function notifyJobs(q: Kysely<Database>, kind: JobKind): Promise<void> {
  await sql`select pg_notify(${JOBS_CHANNEL}, ${kind})`.execute(q);
}

/**
 * The earliest time any job is due: an undispatched outbox row (or the end of its drainer's hold), a delivery
 * attempt (or the end of its claim), an owed `terminated` message, an unread document, a mail, a periodic run.
 * Null when nothing waits.
 */
export async function nextDueAt(db: Db): Promise<Date | null> {
  const r = await sql<{ due: Date | string | null }>`select least(
      (select min(coalesce(lease_until, created_at)) from event_outbox where dispatched_at is null),
      (select min(next_attempt_at) from event_deliveries where state in ('pending', 'sending')),
      (select now() from event_subscriptions where terminate_pending limit 1),
      (select min(due_at) from files where status = 'pending'),
      (select min(next_attempt_at) from mail_outbox where sent_at is null and next_attempt_at is not null),
      (select min(next_run_at) from job_schedules)) as due`.execute(db.kysely);
  const due = r.rows[0]?.due;
  return due === null || due === undefined ? null : new Date(due);
}

/**
 * Claims the periodic run `name` if it is due at `now`: moves its row on to the next multiple of `periodMs` after
 * `now`, so of several instances exactly one runs it per period. False when it is not due (or unknown).
 */
export async function claimScheduledRun(db: Db, name: string, now: Date, periodMs: number): Promise<boolean> {
  const next = new Date((Math.floor(now.getTime() / periodMs) + 1) * periodMs);
  const r = await sql`update job_schedules set next_run_at = ${next}
    where name = ${name} and next_run_at <= ${now} returning name`.execute(db.kysely);
  return r.rows.length > 0;
}
