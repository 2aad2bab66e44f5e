/** SQL of the mail outbox. */
import type { Db } from "./connection.ts";

/** Records a mail; returns its id. */
export async function insertMail(db: Db, m: { to: string; subject: string; body: string }): Promise<string> {
  const row = await db.kysely.insertInto("mail_outbox").values({
    to_address: m.to,
    subject: m.subject,
    body: m.body,
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
