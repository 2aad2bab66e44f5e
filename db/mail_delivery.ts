/** SQL of mail delivery: marking an outbox mail as accepted by the mail server, and reading that state. */
import type { Db } from "./connection.ts";

/** Sets `sent_at` of outbox mail `id` (only once: a mail already marked keeps its first time). */
export async function markMailSent(db: Db, id: string, at: Date): Promise<void> {
  await db.kysely.updateTable("mail_outbox").set({ sent_at: at })
    .where("id", "=", id).where("sent_at", "is", null).execute();
}

/** When outbox mail `id` was accepted by the mail server: `null` while not delivered, `undefined` if unknown. */
export async function mailSentAt(db: Db, id: string): Promise<Date | null | undefined> {
  const row = await db.kysely.selectFrom("mail_outbox").select("sent_at").where("id", "=", id)
    .executeTakeFirst();
  return row ? row.sent_at : undefined;
}
