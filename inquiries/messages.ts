/**
 * The messages of an inquiry's thread after its first one: the seeker writing again, the inquirer's answer to a
 * mail's reply address, the provider's reply and rejection. The rules of the thread are in `inquiries.ts` (its
 * module comment); each function here is a domain write: it runs in the caller's action.
 */
import { actingProvider, actingSeeker, type Action } from "../deps.ts";
import { idOrNotFound } from "../ids.ts";
import {
  inquiryOffice,
  type InquiryScope,
  insertInquiryMessage,
  listingTitle,
  type LockedInquiry,
  lockInquiry,
  lockKeys,
  setInquiryStatus,
} from "../db/inquiries.ts";
import { findIntakeMessage, insertIntakeMessage, type IntakeKey } from "../db/intake.ts";
import { AppError } from "../errors.ts";
import { recordEvent } from "../events/outbox.ts";
import { truncate } from "../text.ts";
import { type InquirerNotice, recordInquirerMail, replyTokenMatches, withoutQuote } from "./inquirer_mail.ts";
import type { InquiryRef } from "./inquiry_address.ts";
import { about, inquiryWritable, MESSAGE_MAX, messageBody } from "./inquiries.ts";

/** The time of a new message: now, or 1 ms after the thread's newest message if the clock has not passed it. */
function messageTime(now: Date, inquiry: LockedInquiry): Date {
  const last = inquiry.lastMessageAt?.getTime() ?? -Infinity;
  return now.getTime() > last ? now : new Date(last + 1);
}

/** Locks an inquiry within `scope` for a new message; `not_found` outside scope, `conflict` when rejected/closed. */
async function lockWritable(a: Action, scope: InquiryScope, inquiryId: string): Promise<LockedInquiry> {
  const inquiry = await lockInquiry(a.tx, scope, inquiryId);
  if (!inquiry) throw new AppError("not_found");
  if (!inquiryWritable(inquiry.status)) throw new AppError("conflict", { reason: "inquiry_closed" });
  return inquiry;
}

/**
 * The seeker acting in `a` writes again in their inquiry: stores the message, sets the inquiry `open` and writes
 * `message.received`. `not_found` unless the inquiry is theirs; `conflict` when rejected or closed.
 */
export async function sendSeekerMessage(
  a: Action,
  inquiryId: string,
  body: string,
): Promise<{ messageId: string }> {
  const seekerId = actingSeeker(a);
  const id = idOrNotFound(inquiryId);
  const text = messageBody(body);
  const inquiry = await lockWritable(a, { seekerId }, id);
  return { messageId: await inquirerMessage(a, inquiry, text, seekerId) };
}

/** Stores a further message of the inquirer in the locked `inquiry`, sets it `open`, writes `message.received`. */
async function inquirerMessage(
  a: Action,
  inquiry: LockedInquiry,
  text: string,
  authorId: string | null,
): Promise<string> {
  const at = messageTime(a.now, inquiry);
  const messageId = await insertInquiryMessage(a.tx, {
    inquiryId: inquiry.id,
    sender: "seeker",
    authorId,
    body: text,
    at,
  });
  await setInquiryStatus(a.tx, inquiry.id, "open", at);
  const title = await listingTitle(a.tx, inquiry.listingId);
  await recordEvent(a, {
    name: "message.received",
    data: {
      anfrage_id: inquiry.id,
      objekt_id: inquiry.listingId,
      nachricht_id: messageId,
      satz: `Neue Nachricht in der Anfrage zu ${about(title)}.`,
    },
    owner: { office: inquiry.officeId },
  });
  return messageId;
}

/**
 * An answer the inquirer sent to an inquiry's reply address (`ref`: the inquiry and the address's token), as a
 * further message of the inquirer with the quoted earlier text cut off; the rules of
 * {@linkcode sendSeekerMessage}. An unknown inquiry or a wrong token: `not_found`; rejected or closed: `conflict`;
 * no text left: `invalid_request` ("message"). `dedupe` (the mail's Message-ID) answers a repeat with the
 * inquiry and `duplicate: true`, writing nothing; it is recorded in the message's action.
 */
export async function receiveInquirerReply(
  a: Action,
  ref: InquiryRef,
  body: string,
  dedupe: IntakeKey,
): Promise<{ inquiryId: string; messageId: string | null; duplicate: boolean }> {
  if (!await replyTokenMatches(a.tx, ref)) throw new AppError("not_found");
  await lockKeys(a.tx, [`intake:${dedupe.quelle}:${dedupe.messageId}`]);
  const known = await findIntakeMessage(a.tx, dedupe);
  if (known) return { inquiryId: known.inquiryId, messageId: null, duplicate: true };
  const owner = await inquiryOffice(a.tx, ref.inquiryId);
  if (!owner) throw new AppError("not_found");
  const inquiry = await lockWritable(a, { officeId: owner }, ref.inquiryId);
  const text = messageBody(truncate(withoutQuote(body), MESSAGE_MAX));
  const messageId = await inquirerMessage(a, inquiry, text, inquiry.seekerId);
  await insertIntakeMessage(a.tx, dedupe, inquiry.id, a.now);
  return { inquiryId: inquiry.id, messageId, duplicate: false };
}

/**
 * The provider acting in `a` answers an inquiry of its office: stores the message, sets `answered`, announces
 * `office_wrote` (the agent closes its open drafts of the inquiry in this action), (when the inquirer has a seeker
 * account) writes `reply.received` and records the mail to the inquirer. `not_found` unless the inquiry is the
 * office's; `conflict` when rejected or closed.
 */
export async function replyToInquiry(
  a: Action,
  inquiryId: string,
  body: string,
): Promise<{ messageId: string }> {
  const { messageId } = await answerInquiry(a, inquiryId, { kind: "reply", text: messageBody(body) }, REPLY);
  return { messageId: messageId! }; // a reply always has its text, so its message
}

/**
 * The provider acting in `a` rejects an inquiry of its office, optionally with a message to the inquirer: sets
 * `rejected`, announces `office_wrote` (as {@linkcode replyToInquiry}), (when the inquirer has a seeker account) writes `reply.received` and records the mail to the
 * inquirer. `not_found` unless the inquiry is the office's; `conflict` when already rejected or closed.
 */
export async function rejectInquiry(
  a: Action,
  inquiryId: string,
  body: string | undefined,
): Promise<{ messageId: string | null }> {
  const text = body === undefined ? undefined : messageBody(body);
  return await answerInquiry(a, inquiryId, { kind: "rejection", text }, REJECTION);
}

/** How an office's answer ends an inquiry's turn: the status it sets, the seeker's event line, the mail's kind. */
interface Answer {
  status: "answered" | "rejected";
  lead: string;
  mail: "reply" | "rejection";
}

const REPLY: Answer = {
  status: "answered",
  lead: "Antwort des Anbieters auf Ihre Anfrage zu",
  mail: "reply",
};
const REJECTION: Answer = {
  status: "rejected",
  lead: "Absage des Anbieters zu Ihrer Anfrage zu",
  mail: "rejection",
};

/**
 * The office's answer to an inquiry of its office: stores the notice's text as its message (none without text),
 * sets the status, announces `office_wrote`, writes `reply.received` for a seeker account and records the mail.
 */
async function answerInquiry(
  a: Action,
  inquiryId: string,
  notice: Extract<InquirerNotice, { text: unknown }>,
  answer: Answer,
): Promise<{ messageId: string | null }> {
  const provider = actingProvider(a);
  const id = idOrNotFound(inquiryId);
  const inquiry = await lockWritable(a, { officeId: provider.officeId }, id);
  const at = messageTime(a.now, inquiry);
  const text = notice.text;
  const messageId = text === undefined ? null : await insertInquiryMessage(a.tx, {
    inquiryId: id,
    sender: "provider",
    authorId: provider.userId,
    body: text,
    at,
  });
  await setInquiryStatus(a.tx, id, answer.status, at);
  await a.deps.reactions.react(a, { kind: "office_wrote", inquiryId: id, userId: provider.userId });
  await notifySeeker(a, inquiry, answer.lead);
  await recordInquirerMail(a, id, notice);
  return { messageId };
}

/** Writes `reply.received` for the inquiry's seeker account; nothing for an inquirer without an account. */
async function notifySeeker(a: Action, inquiry: LockedInquiry, lead: string): Promise<void> {
  if (!inquiry.seekerId) return;
  const title = await listingTitle(a.tx, inquiry.listingId);
  await recordEvent(a, {
    name: "reply.received",
    data: { inquiry_id: inquiry.id, listing_id: inquiry.listingId, satz: `${lead} ${about(title)}.` },
    owner: { seeker: inquiry.seekerId },
  });
}
