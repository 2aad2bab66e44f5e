/**
 * Mails to inquirers (issue 21): the one place their rules live.
 *
 * - Every provider action that a seeker event announces (a reply, a rejection with or without text, a booked
 *   viewing moved or cancelled by the provider) records one mail to the inquiry's e-mail address in the action's
 *   own transaction ({@linkcode recordInquirerMail}); the job queue sends it after commit (auth/mail.ts). An
 *   inquirer with a seeker account gets it unless they switched such mails off (`/konto/benachrichtigungen`);
 *   nobody gets it once the inquiry's mails were stopped through the stop link.
 * - Content: German text (one English hint line), the listing's public title and the provider's message text;
 *   nothing else about the provider. The subject never carries message text.
 * - Each mail has `Reply-To: anfrage-<inquiry id, 32 hex>-<reply token>@<INTAKE_MAIL_DOMAIN>` and a stop line
 *   with the inquiry's stop link (also `List-Unsubscribe`, one-click); both are added when the mail is sent
 *   ({@linkcode inquiryMailExtras}). Tokens are 20 base32 characters (100 bits) from the platform's random source,
 *   created with the first mail of the inquiry and compared in constant time.
 * - An answer to the reply address becomes a new inquirer message (intake/email.ts, `receiveInquirerReply` in
 *   inquiries/inquiries.ts) with the quoted earlier text cut off ({@linkcode withoutQuote}).
 */
import type { Kysely } from "kysely";
import {
  ensureInquiryMailTokens,
  inquiryMailFacts,
  inquiryMailsOff,
  inquiryMailTokens,
  setInquiryMailsOff,
  stopInquiryMails,
} from "../db/inquiry_mail.ts";
import { insertMail } from "../db/mail.ts";
import type { Database } from "../db/schema.ts";
import { actingPerson, type Action, type AppDeps } from "../deps.ts";
import { timingSafeEqual } from "../crypto.ts";
import { clip } from "../text.ts";
import { type InquiryRef, MAIL_TOKEN, newMailToken, parseInquiryRef } from "./inquiry_address.ts";
import { whenDe } from "../viewings/text.ts";

/** What the provider did that the inquirer hears about by mail. */
export type InquirerNotice =
  | { kind: "reply"; text: string }
  | { kind: "rejection"; text: string | undefined }
  | { kind: "viewing_moved"; start: Date }
  | { kind: "viewing_cancelled"; was: Date };

type Tx = Kysely<Database>;

/** Whether `ref`'s token is the inquiry's `which` token (constant time); false when the inquiry has none. */
async function tokenMatches(q: Tx, ref: InquiryRef, which: "replyToken" | "stopToken"): Promise<boolean> {
  const tokens = await inquiryMailTokens(q, ref.inquiryId);
  return !!tokens && MAIL_TOKEN.test(ref.token) && timingSafeEqual(tokens[which], ref.token);
}

/** Whether `ref` names an inquiry and its reply token (constant time): an answer by mail may be taken. */
export function replyTokenMatches(q: Tx, ref: InquiryRef): Promise<boolean> {
  return tokenMatches(q, ref, "replyToken");
}

/** The listing title as the mail names it. */
function titleOf(title: string | null): string {
  return title ? `„${clip(title, 200)}“` : "das angefragte Objekt";
}

/** Subject and body (without the stop line) of `notice` about the listing titled `title`. */
export function composeInquirerMail(
  notice: InquirerNotice,
  title: string | null,
): { subject: string; body: string } {
  const about = titleOf(title);
  const hint = "Sie können direkt auf diese E-Mail antworten; Ihre Antwort erreicht den Anbieter.";
  const en = "(English: you can reply to this e-mail; your answer reaches the provider.)";
  const quote = (text: string) => ["Nachricht des Anbieters:", "", text, ""];
  const make = (subject: string, lines: string[]) => ({
    subject,
    body: ["Guten Tag,", "", ...lines].join("\n"),
  });
  switch (notice.kind) {
    case "reply":
      return make(`Antwort auf Ihre Anfrage zu ${about}`, [
        `der Anbieter hat auf Ihre Anfrage zu ${about} geantwortet.`,
        "",
        ...quote(notice.text),
        hint,
        en,
      ]);
    case "rejection":
      return make(`Absage zu Ihrer Anfrage zu ${about}`, [
        `der Anbieter hat Ihre Anfrage zu ${about} abgesagt.`,
        "",
        ...(notice.text === undefined ? [] : quote(notice.text)),
        "(English: the provider declined your inquiry.)",
      ]);
    case "viewing_moved":
      return make(`Besichtigung verlegt: ${about}`, [
        `der Anbieter hat Ihre Besichtigung zu ${about} auf den ${whenDe(notice.start)} verlegt.`,
        "",
        hint,
        "(English: the provider moved your viewing to the time above.)",
      ]);
    case "viewing_cancelled":
      return make(`Besichtigung abgesagt: ${about}`, [
        `der Anbieter hat Ihre Besichtigung zu ${about} am ${whenDe(notice.was)} abgesagt.`,
        "",
        hint,
        "(English: the provider cancelled your viewing.)",
      ]);
  }
}

/**
 * Records the mail about `notice` to the inquirer of `inquiryId` within action `a`, due at its time; nothing when the inquirer's account switched such mails off or the inquiry's mails were stopped. Returns
 * the mail's id, or null when none was recorded. The commit wakes the mail sender (the outbox's trigger).
 */
export async function recordInquirerMail(
  a: Action,
  inquiryId: string,
  notice: InquirerNotice,
): Promise<string | null> {
  const tx = a.tx;
  const facts = await inquiryMailFacts(tx, inquiryId);
  if (!facts || facts.mailsOff) return null;
  const tokens = await ensureInquiryMailTokens(tx, inquiryId, {
    replyToken: newMailToken(),
    stopToken: newMailToken(),
  });
  if (tokens.stopped) return null;
  const mail = composeInquirerMail(notice, facts.listingTitle);
  return await insertMail(tx, { to: facts.email, ...mail, inquiryId, nextAttemptAt: a.now });
}

/** Attribution lines that start a quoted earlier message (German and English mail programs). */
const ATTRIBUTION = [
  /^am .+ schrieb .*:$/i,
  /^on .+ wrote:$/i,
  /^-{2,}\s*ursprüngliche nachricht\s*-{2,}$/i,
  /^-{2,}\s*original message\s*-{2,}$/i,
];

/** Whether `line` (or `line` joined with the next one, as mail programs wrap long attributions) is one. */
function isAttribution(line: string, next: string | undefined): boolean {
  const one = line.trim();
  const two = next === undefined ? one : `${one} ${next.trim()}`;
  return ATTRIBUTION.some((re) => re.test(one)) ||
    (/^(am|on) /i.test(one) && ATTRIBUTION.slice(0, 2).some((re) => re.test(two)));
}

/**
 * The new text of an answer: everything from the first attribution line ("Am … schrieb …:", "On … wrote:", also
 * wrapped over two lines, "-----Ursprüngliche Nachricht-----", "-----Original Message-----") on is cut off, and so
 * is every line starting with `>`; surrounding blank lines are dropped.
 */
export function withoutQuote(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (isAttribution(line, lines[i + 1])) break;
    if (/^\s*>/.test(line)) continue;
    out.push(line);
  }
  return out.join("\n").trim();
}

/** Whether `refText` (`<32 hex>-<stop token>` of a stop link) names an inquiry and its stop token. */
export async function stopLinkValid(deps: Pick<AppDeps, "db">, refText: string): Promise<boolean> {
  const ref = parseInquiryRef(refText);
  return !!ref && await tokenMatches(deps.db.kysely, ref, "stopToken");
}

/**
 * Stops every further mail about the inquiry of stop link `refText` (also mails recorded but not yet sent); returns
 * false, changing nothing, for a malformed link, an unknown inquiry or a wrong token. Stopping twice is fine.
 */
export async function stopMailsByLink(a: Action, refText: string): Promise<boolean> {
  const ref = parseInquiryRef(refText);
  if (!ref || !await tokenMatches(a.tx, ref, "stopToken")) return false;
  await stopInquiryMails(a.tx, ref.inquiryId, a.now);
  return true;
}

/** Whether seeker account `userId` gets mails about its inquiries. */
export async function inquiryMailSetting(deps: Pick<AppDeps, "db">, userId: string): Promise<boolean> {
  return !await inquiryMailsOff(deps.db.kysely, userId);
}

/** Switches mails about the acting person's inquiries on or off (takes effect for the next action). */
export async function setInquiryMailSetting(a: Action, on: boolean): Promise<void> {
  await setInquiryMailsOff(a.tx, actingPerson(a), !on, a.now);
}
