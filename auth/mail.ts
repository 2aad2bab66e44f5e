/**
 * Outgoing mail. Every mail is recorded in `mail_outbox`; without `SMTP_URL` it stays there and is written to the
 * log (development and tests read verification links from there).
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import { insertMail } from "../db/mail.ts";
import type { Logger } from "../log.ts";

/** One mail to send. */
export interface Mail {
  to: string;
  subject: string;
  body: string;
}

/** Records `mail` in the outbox and logs it (no SMTP server is configured in this build). */
export async function sendMail(
  deps: { db: Db; log: Logger; config: Config },
  mail: Mail,
): Promise<void> {
  const id = await insertMail(deps.db, mail);
  deps.log.log("info", "mail recorded in outbox", {
    mailId: id,
    to: mail.to,
    subject: mail.subject,
    ...(deps.config.smtpUrl ? {} : { body: mail.body }),
  });
}
