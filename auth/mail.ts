/**
 * Outgoing mail. Every mail is recorded in `mail_outbox` first: account mails by {@linkcode sendMail}, mails to
 * inquirers in the transaction of the provider's action (inquiries/inquirer_mail.ts), alert mails of saved
 * searches in the transaction of the saved-search run (searches/search_alerts.ts).
 *
 * Without `SMTP_URL` a mail stays recorded, unsent, and its text is written to the log (development and tests read
 * verification links from there); it is never retried. With `SMTP_URL` it is sent over SMTP (auth/smtp.ts) and
 * `sent_at` is set once the server accepted it. A failed attempt is logged as a warning (without credentials or
 * mail text) and retried after {@linkcode MAIL_RETRY_DELAYS_MS} (1 min, 5 min, 30 min, 2 h, 6 h); after the sixth
 * failed attempt the mail is given up (`deno task mail:outbox` lists it and can retry it). A failure never fails
 * the request that caused the mail.
 *
 * Sending is at least once and recorded once: a sender claims a due mail with a lease (`for update skip locked`),
 * so two instances never send one mail at the same time; a sender that dies leaves the mail to the next claim once
 * the lease ran out. Mails to inquirers are sent after commit by the job queue (`{t: "mail"}`, background.ts) and by
 * the periodic sweep, which also picks up every retry that is due.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import { insertMail, retryMailAt, type UnsentMail, unsentMails } from "../db/mail.ts";
import {
  claimDueMails,
  type ClaimedMail,
  markMailFailed,
  markMailKept,
  markMailSent,
  releaseMails,
} from "../db/mail_delivery.ts";
import type { Logger } from "../log.ts";
import { inquiryMailExtras } from "../inquiries/inquiry_address.ts";
import { alertMailExtras } from "../searches/alert_address.ts";
import { SMTP_TIMEOUT_MS, type SmtpOptions, smtpSend } from "./smtp.ts";

/** One mail to send. */
export interface Mail {
  to: string;
  subject: string;
  body: string;
}

/** What sending needs; `smtp` tunes the SMTP client (tests), `clock` gives the time of the outbox columns. */
export interface MailDeps {
  db: Db;
  log: Logger;
  config: Config;
  smtp?: SmtpOptions;
  clock?: () => number;
}

/** The pauses after failed attempts 1–5, in ms; the sixth failed attempt gives the mail up. */
export const MAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000] as const;

/** How long a sender holds a claimed mail: longer than one SMTP send may take. */
const MAIL_LEASE_MS = 3 * SMTP_TIMEOUT_MS;

/** Mails one sender run claims at most. */
const MAIL_BATCH = 20;

function nowOfMail(deps: Pick<MailDeps, "clock">): Date {
  return new Date(deps.clock?.() ?? Date.now());
}

/**
 * Records `mail` in the outbox and, when `SMTP_URL` is set, tries it at once (a failure is retried later by the
 * sweep); resolves with the row id and whether this first attempt delivered it. With `background`, it resolves
 * once the mail is recorded and the attempt runs on (`sent: false`): an answer that must not reveal whether a mail
 * went out (password reset, a new confirmation link) then takes the same time either way.
 */
export async function sendMail(
  deps: MailDeps,
  mail: Mail,
  opts: { background?: boolean } = {},
): Promise<{ id: string; sent: boolean }> {
  const now = nowOfMail(deps);
  const smtp = !!deps.config.smtpUrl;
  // This process tries it at once: it holds the mail, which is due again only when that hold runs out.
  const leaseUntil = smtp ? new Date(now.getTime() + MAIL_LEASE_MS) : null;
  const id = await insertMail(deps.db.kysely, { ...mail, nextAttemptAt: leaseUntil, leaseUntil });
  logRecorded(deps, { id, to: mail.to, subject: mail.subject, body: mail.body });
  if (!smtp) return { id, sent: false };
  const attempt = attemptMail(deps, { id, ...mail, inquiry: null, alert: null, attempt: 1 });
  if (!opts.background) return { id, sent: await attempt };
  attempt.catch((err) =>
    deps.log.log("warn", "mail attempt failed; the sweep retries it", {
      mailId: id,
      error: err instanceof Error ? err.name : "error",
    })
  );
  return { id, sent: false };
}

/** The log line of a recorded mail; its text only when no SMTP server is configured. */
function logRecorded(deps: MailDeps, m: { id: string; to: string; subject: string; body: string }): void {
  deps.log.log("info", "mail recorded in outbox", {
    mailId: m.id,
    to: m.to,
    subject: m.subject,
    ...(deps.config.smtpUrl ? {} : { body: m.body }),
  });
}

/** Makes one attempt of claimed mail `m`; records the outcome (sent, next attempt, given up, or stopped). */
async function attemptMail(deps: MailDeps, m: ClaimedMail): Promise<boolean> {
  if (m.inquiry?.stopped) {
    await markMailKept(deps.db, m.id, "stopped by the inquirer");
    deps.log.log("info", "mail not sent: the inquirer stopped mails about the inquiry", { mailId: m.id });
    return false;
  }
  if (m.alert?.stopped) {
    await markMailKept(deps.db, m.id, "alert switched off");
    deps.log.log("info", "mail not sent: the saved search's alert was switched off", { mailId: m.id });
    return false;
  }
  const extras = m.inquiry
    ? inquiryMailExtras(deps.config, m.inquiry)
    : m.alert
    ? alertMailExtras(deps.config, m.alert)
    : undefined;
  const result = await smtpSend(
    deps.config.smtpUrl!,
    {
      from: deps.config.smtpFrom,
      to: m.to,
      subject: m.subject,
      text: extras ? `${m.body}\n${extras.footer}\n` : m.body,
      replyTo: extras?.replyTo,
      listUnsubscribe: extras?.stopUrl,
    },
    { name: new URL(deps.config.baseUrl).hostname, ...deps.smtp },
  );
  const now = nowOfMail(deps);
  if (result.ok) {
    await markMailSent(deps.db, m.id, now);
    deps.log.log("info", "mail delivered over SMTP", { mailId: m.id, to: m.to, attempt: m.attempt });
    return true;
  }
  const delay = MAIL_RETRY_DELAYS_MS[m.attempt - 1];
  const next = delay === undefined ? null : new Date(now.getTime() + delay);
  await markMailFailed(deps.db, m.id, { error: result.error, nextAttemptAt: next, at: now });
  deps.log.log(
    "warn",
    next ? "mail not delivered over SMTP; it stays in the outbox" : "mail not delivered over SMTP; given up",
    { mailId: m.id, to: m.to, attempt: m.attempt, error: result.error, nextAttemptAt: next?.toISOString() },
  );
  return false;
}

/**
 * Sends every due mail nobody holds (claimed in batches with a lease); without `SMTP_URL` it logs newly recorded
 * mails instead and leaves them unsent. Returns how many mails were handled; `held` names the mails being sent, for
 * giving them back when the process stops. A job of the job engine (docs/architecture.md §8): woken by the commit
 * that recorded a mail and when a retry is due.
 */
export async function sendDueMails(deps: MailDeps, held: Set<string> = new Set()): Promise<number> {
  let handled = 0;
  while (true) {
    const now = nowOfMail(deps);
    const batch = await claimDueMails(deps.db, now, new Date(now.getTime() + MAIL_LEASE_MS), MAIL_BATCH);
    if (batch.length === 0) break;
    handled += batch.length;
    if (!deps.config.smtpUrl) {
      for (const m of batch) {
        logRecorded(deps, m);
        await markMailKept(deps.db, m.id);
      }
      continue;
    }
    for (const m of batch) held.add(m.id);
    await Promise.all(batch.map((m) => attemptMail(deps, m).finally(() => held.delete(m.id))));
  }
  return handled;
}

/** Gives back mails `ids` this process claimed but will not finish (it stops): due again now. */
export async function handBackMails(
  deps: Pick<MailDeps, "db" | "clock">,
  ids: Iterable<string>,
): Promise<void> {
  await releaseMails(deps.db, [...ids], nowOfMail(deps));
}

/** Mails waiting for an attempt and mails given up, oldest first (never their text): the operator's view. */
export async function listUnsentMails(deps: Pick<MailDeps, "db">, limit: number): Promise<UnsentMail[]> {
  return await unsentMails(deps.db, limit);
}

/**
 * Makes unsent mail `id` (given up, or waiting for its back-off) due now with a fresh series of attempts; the mail
 * background job of every running instance is woken at once. False for an unknown, sent or never-due mail.
 */
export async function retryMail(deps: Pick<MailDeps, "db" | "clock">, id: string): Promise<boolean> {
  return await retryMailAt(deps.db, id, nowOfMail(deps));
}
