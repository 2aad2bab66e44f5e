/**
 * SQL of mails to inquirers: the per-inquiry tokens of the reply address and the stop link, the stop itself, a
 * seeker account's mail setting, and the facts a mail about an inquiry needs. Ids given here are valid UUIDs.
 */
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** The handle a function runs on: the database or a transaction. */
type Q = Kysely<Database>;

/** The tokens of an inquiry's reply address and stop link, and whether mails about it were stopped. */
export interface InquiryMailTokens {
  replyToken: string;
  stopToken: string;
  stopped: boolean;
}

/** The inquiry's tokens, created with `fresh` when it has none yet (a concurrent creator's tokens win). */
export async function ensureInquiryMailTokens(
  q: Q,
  inquiryId: string,
  fresh: { replyToken: string; stopToken: string },
): Promise<InquiryMailTokens> {
  await q.insertInto("inquiry_mail_tokens")
    .values({ inquiry_id: inquiryId, reply_token: fresh.replyToken, stop_token: fresh.stopToken })
    .onConflict((oc) => oc.column("inquiry_id").doNothing()).execute();
  const found = await inquiryMailTokens(q, inquiryId);
  if (!found) throw new Error("inquiry_mail_tokens row missing after insert");
  return found;
}

/** The inquiry's tokens, or undefined when no mail was ever written about it. */
export async function inquiryMailTokens(q: Q, inquiryId: string): Promise<InquiryMailTokens | undefined> {
  const row = await q.selectFrom("inquiry_mail_tokens").select(["reply_token", "stop_token", "stopped_at"])
    .where("inquiry_id", "=", inquiryId).executeTakeFirst();
  return row && { replyToken: row.reply_token, stopToken: row.stop_token, stopped: row.stopped_at !== null };
}

/** Stops mails about inquiry `inquiryId` (the first stop's time is kept). */
export async function stopInquiryMails(q: Q, inquiryId: string, at: Date): Promise<void> {
  await q.updateTable("inquiry_mail_tokens").set({ stopped_at: at })
    .where("inquiry_id", "=", inquiryId).where("stopped_at", "is", null).execute();
}

/**
 * What a mail about an inquiry needs: the inquirer's address, the listing's public title, and whether the
 * inquirer's account switched such mails off.
 */
export interface InquiryMailFacts {
  email: string;
  listingTitle: string | null;
  mailsOff: boolean;
}

/** The facts of inquiry `inquiryId` for a mail, or undefined when it does not exist. */
export async function inquiryMailFacts(q: Q, inquiryId: string): Promise<InquiryMailFacts | undefined> {
  const row = await q.selectFrom("inquiries as i").innerJoin("listings as l", "l.id", "i.listing_id")
    .leftJoin("inquiry_mail_settings as s", "s.user_id", "i.seeker_id")
    .select(["i.email", "l.title", "s.mails_off"])
    .where("i.id", "=", inquiryId).executeTakeFirst();
  return row && { email: row.email, listingTitle: row.title, mailsOff: row.mails_off ?? false };
}

/** Whether seeker account `userId` switched mails about its inquiries off. */
export async function inquiryMailsOff(q: Q, userId: string): Promise<boolean> {
  const row = await q.selectFrom("inquiry_mail_settings").select("mails_off").where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.mails_off ?? false;
}

/** Stores seeker account `userId`'s choice about mails on its inquiries. */
export async function setInquiryMailsOff(q: Q, userId: string, off: boolean, at: Date): Promise<void> {
  await q.insertInto("inquiry_mail_settings").values({ user_id: userId, mails_off: off, updated_at: at })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ mails_off: off, updated_at: at })).execute();
}
