/**
 * Outgoing mail. Every mail is recorded in `mail_outbox` first. Without `SMTP_URL` it stays there and its text is
 * written to the log (development and tests read verification links from there). With `SMTP_URL` it is sent over
 * SMTP (auth/smtp.ts) and `sent_at` is set once the server accepted it; a failed send is logged as a warning
 * (without credentials or mail text) and leaves `sent_at` null, and never fails the request that caused the mail.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import { insertMail } from "../db/mail.ts";
import { markMailSent } from "../db/mail_delivery.ts";
import type { Logger } from "../log.ts";
import { type SmtpOptions, smtpSend } from "./smtp.ts";

/** One mail to send. */
export interface Mail {
  to: string;
  subject: string;
  body: string;
}

/** What sending needs; `smtp` tunes the SMTP client (tests), `clock` gives the time written to `sent_at`. */
export interface MailDeps {
  db: Db;
  log: Logger;
  config: Config;
  smtp?: SmtpOptions;
  clock?: () => number;
}

/** Records `mail` in the outbox and, when `SMTP_URL` is set, delivers it; resolves with the row id and outcome. */
export async function sendMail(deps: MailDeps, mail: Mail): Promise<{ id: string; sent: boolean }> {
  const id = await insertMail(deps.db, mail);
  deps.log.log("info", "mail recorded in outbox", {
    mailId: id,
    to: mail.to,
    subject: mail.subject,
    ...(deps.config.smtpUrl ? {} : { body: mail.body }),
  });
  if (!deps.config.smtpUrl) return { id, sent: false };
  const sent = await deliver(deps, deps.config.smtpUrl, id, mail);
  return { id, sent };
}

async function deliver(deps: MailDeps, smtpUrl: string, id: string, mail: Mail): Promise<boolean> {
  const result = await smtpSend(
    smtpUrl,
    { from: deps.config.smtpFrom, to: mail.to, subject: mail.subject, text: mail.body },
    { name: new URL(deps.config.baseUrl).hostname, ...deps.smtp },
  );
  if (!result.ok) {
    deps.log.log("warn", "mail not delivered over SMTP; it stays in the outbox", {
      mailId: id,
      to: mail.to,
      error: result.error,
    });
    return false;
  }
  await markMailSent(deps.db, id, new Date(deps.clock?.() ?? Date.now()));
  deps.log.log("info", "mail delivered over SMTP", { mailId: id, to: mail.to });
  return true;
}
