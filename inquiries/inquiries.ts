/**
 * Enquiries (`anfrage`) about published listings and the messages (`nachricht`) of their threads: the one place
 * their rules live. MCP tools (both servers) and the listing page's form call these functions.
 *
 * Rules:
 * - An enquiry concerns one PUBLISHED listing and belongs to the listing's office; it starts `open` with its first
 *   message (sender `seeker`). The enquirer's e-mail is stored trimmed and lower-cased.
 * - Limits of docs/contract.md §9, shared by every way of sending: per person (seeker account) 5 in 10 minutes, per e-mail
 *   address 5 in 24 hours, per listing 30 in one hour; each window counts enquiries created after now − window of
 *   the domain clock, read once the locks are held. Anonymous enquirers (no account) are limited by e-mail and
 *   listing only. Over a limit: `rate_limited` and nothing is written. The transaction takes advisory locks on
 *   listing, e-mail and person (sorted) before reading the clock and counting, so concurrent senders in any process
 *   cannot overshoot.
 * - Statuses: a provider reply sets `answered`; a new message of the enquirer sets `open` again (also from
 *   `answered`); a rejection sets `rejected` (optionally with a message to the enquirer). `rejected` and `closed`
 *   enquiries refuse further messages from either side, and a second rejection, with `conflict`.
 * - Messages of a thread get strictly increasing times: a message is stamped with the domain clock, or 1 ms after
 *   the thread's newest message when the clock has not moved past it, so the thread order is always defined.
 * - Events (outbox, same transaction): `inquiry.received` for a new enquiry and `message.received` for a further
 *   message of the enquirer (owner: the office); `reply.received` for a provider reply or rejection (owner: the
 *   seeker) only when the enquiry has a seeker account. `satz` never carries message text, names or e-mails.
 * - Inbound enquiries (e-mail, portal) carry a `dedupe` key: a key already recorded answers the enquiry it created
 *   (`duplicate: true`, nothing written, no limit counted); a new key is recorded in the enquiry's transaction under
 *   an advisory lock on the key, so two concurrent deliveries of one message create one enquiry.
 * - Mails (inquiries/enquirer_mail.ts, same transaction): a provider reply or rejection records a mail to the
 *   enquirer; an answer to that mail's reply address is a further message of the enquirer
 *   ({@linkcode receiveEnquirerReply}) with the same rules as {@linkcode sendSeekerMessage}.
 * - Ids: a malformed id, an unknown id and an id outside the caller's scope all answer `not_found`.
 */
import { idOrNotFound } from "../ids.ts";
import {
  accountContact,
  countInquiriesSince,
  findInquiryThread,
  findPublishedListingOffice,
  INQUIRY_STATUSES,
  type InquiryMessageRow,
  inquiryOffice,
  type InquiryRow,
  type InquiryScope,
  type InquiryStatus,
  insertInquiry,
  insertInquiryMessage,
  listingOfOffice,
  listingTitle,
  listInquiryRows,
  type LockedInquiry,
  lockInquiry,
  lockKeys,
  setInquiryStatus,
} from "../db/inquiries.ts";
import { findIntakeMessage, insertIntakeMessage, type IntakeKey } from "../db/intake.ts";
import { recordEnquirerMail, replyTokenMatches, withoutQuote } from "./enquirer_mail.ts";
import type { EnquiryRef } from "./enquiry_address.ts";

/** The statuses of an enquiry, for the adapters that list or filter them. */
export { INQUIRY_STATUSES };
import { AppError } from "../errors.ts";
import { type EventOrigin, recordEvent, withEvents } from "../events/outbox.ts";
import { type AppDeps, nowOf } from "../deps.ts";
import { clip, hasControlCharacter, truncate } from "../text.ts";

/** The enquiry limits of docs/contract.md §9: how many enquiries within how many milliseconds. */
export const INQUIRY_LIMITS = {
  perPerson: { max: 5, windowMs: 10 * 60_000 },
  perEmail: { max: 5, windowMs: 24 * 3_600_000 },
  perListing: { max: 30, windowMs: 3_600_000 },
} as const;

/** Longest message body in characters. */
export const MESSAGE_MAX = 10_000;
/** Longest enquirer name in characters. */
export const NAME_MAX = 200;
/** Longest phone number in characters. */
export const PHONE_MAX = 50;
/** Longest e-mail address in characters. */
export const EMAIL_MAX = 320;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Who sends an enquiry: a seeker account (with its name and e-mail) or a person known only by their details. */
export interface Enquirer {
  seekerId: string | null;
  name: string | null;
  email: string;
  phone: string | null;
}

/** A new enquiry. */
export interface SendInquiryInput {
  listingId: string;
  enquirer: Enquirer;
  message: string;
  quelle?: "service" | "portal" | "email";
  origin: EventOrigin;
  /** The inbound message's identity (e-mail, portal): a repeat answers the enquiry it created. */
  dedupe?: IntakeKey;
}

/** An enquiry as listed. */
export interface InquirySummary {
  id: string;
  listing_id: string;
  listing_title: string | null;
  status: "open" | "answered" | "rejected" | "closed";
  quelle: "service" | "portal" | "email";
  created_at: string;
  updated_at: string;
  message_count: number;
  last_message_at: string;
}

/** One message of a thread. */
export interface InquiryMessage {
  id: string;
  sender: "seeker" | "provider";
  body: string;
  created_at: string;
}

/** An enquiry with the enquirer's details and every message in order. */
export interface InquiryThread extends InquirySummary {
  name: string | null;
  email: string;
  phone: string | null;
  messages: InquiryMessage[];
}

/** Paging of a list (page ≥ 1, page_size 1–60). */
export interface Paging {
  page: number;
  page_size: number;
}

/** The message body trimmed; `invalid_request` when empty or longer than {@linkcode MESSAGE_MAX}. */
function messageBody(text: string): string {
  const body = text.trim();
  if (body.length === 0 || body.length > MESSAGE_MAX || body.includes("\0")) {
    throw new AppError("invalid_request", { field: "message" });
  }
  return body;
}

/** Trimmed one-line text or null; over `max` or with a control character: `invalid_request` naming `field`. */
function optionalText(text: string | null, max: number, field: string): string | null {
  const t = text?.trim() ?? "";
  if (t.length > max || hasControlCharacter(t)) throw new AppError("invalid_request", { field });
  return t.length === 0 ? null : t;
}

/** The e-mail address trimmed and lower-cased; `invalid_request` when it is not one. */
export function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length < 3 || e.length > EMAIL_MAX || !EMAIL.test(e)) {
    throw new AppError("invalid_request", { field: "email" });
  }
  return e;
}

/** The listing's title quoted for a `satz`, shortened so the sentence stays short. */
function about(title: string | null): string {
  if (!title) return "einem Objekt";
  return `„${clip(title, 120)}“`;
}

const VIA: Record<"service" | "portal" | "email", string> = {
  service: "über den Dienst",
  portal: "über ein Portal",
  email: "per E-Mail",
};

/**
 * Stores a new open enquiry with its first message and writes `inquiry.received`; enforces the limits of docs/contract.md §9
 * race-safely. Throws `not_found` (listing not published / malformed id), `rate_limited` (nothing written) or
 * `invalid_request` (bad e-mail, name or phone, no name without an account; empty or over-long message).
 * With `dedupe`, a known key answers the enquiry it created with `duplicate: true` and writes nothing.
 */
export async function sendInquiry(
  deps: Pick<AppDeps, "db" | "clock" | "reactions">,
  input: SendInquiryInput,
): Promise<{ inquiryId: string; messageId: string; duplicate: boolean }> {
  const listingId = idOrNotFound(input.listingId);
  const email = normaliseEmail(input.enquirer.email);
  const body = messageBody(input.message);
  const name = optionalText(input.enquirer.name, NAME_MAX, "name");
  // Without an account the name is the only way the provider knows whom they answer.
  if (input.enquirer.seekerId === null && name === null) {
    throw new AppError("invalid_request", { field: "name" });
  }
  const phone = optionalText(input.enquirer.phone, PHONE_MAX, "phone");
  const seekerId = input.enquirer.seekerId;
  const quelle = input.quelle ?? "service";
  return await withEvents(deps, async (tx) => {
    await lockKeys(tx, [
      `inquiry:listing:${listingId}`,
      `inquiry:email:${email}`,
      ...(seekerId ? [`inquiry:person:${seekerId}`] : []),
      ...(input.dedupe ? [`intake:${input.dedupe.quelle}:${input.dedupe.messageId}`] : []),
    ]);
    // The clock is read under the locks: a request that waited for them stamps its enquiry after every enquiry
    // committed meanwhile, and counts them all (the windows have no upper bound).
    const now = nowOf(deps);
    const known = input.dedupe && await findIntakeMessage(tx, input.dedupe);
    if (known) return { ...known, duplicate: true };
    const listing = await findPublishedListingOffice(tx, listingId);
    if (!listing) throw new AppError("not_found");
    await checkLimits(tx, { seekerId, email, listingId }, now);
    const inquiryId = await insertInquiry(tx, {
      listingId,
      officeId: listing.officeId,
      quelle,
      seekerId,
      name,
      email,
      phone,
      at: now,
    });
    const messageId = await insertInquiryMessage(tx, {
      inquiryId,
      sender: "seeker",
      authorId: seekerId,
      body,
      at: now,
    });
    if (input.dedupe) await insertIntakeMessage(tx, input.dedupe, inquiryId, now);
    await deps.reactions.react(tx, { kind: "inquiry_received", inquiryId }, { now, origin: input.origin });
    await recordEvent(tx, {
      name: "inquiry.received",
      data: {
        anfrage_id: inquiryId,
        objekt_id: listingId,
        quelle,
        satz: `Neue Anfrage zu ${about(listing.title)} ${VIA[quelle]}.`,
      },
      owner: { office: listing.officeId },
      origin: input.origin,
      at: now,
    });
    return { inquiryId, messageId, duplicate: false };
  });
}

/**
 * Throws `rate_limited` when one more enquiry by this person, address or on this listing would pass a limit. Runs
 * under the locks of all three: it counts every enquiry created after the window's start, committed or not yet
 * visible to none (the locks make the others wait), so the limits hold exactly across instances.
 */
async function checkLimits(
  tx: Parameters<typeof countInquiriesSince>[0],
  who: { seekerId: string | null; email: string; listingId: string },
  now: Date,
): Promise<void> {
  const since = (ms: number) => new Date(now.getTime() - ms);
  const L = INQUIRY_LIMITS;
  if (who.seekerId) {
    const n = await countInquiriesSince(tx, { seekerId: who.seekerId }, since(L.perPerson.windowMs));
    if (n >= L.perPerson.max) throw new AppError("rate_limited");
  }
  if (await countInquiriesSince(tx, { email: who.email }, since(L.perEmail.windowMs)) >= L.perEmail.max) {
    throw new AppError("rate_limited");
  }
  const onListing = await countInquiriesSince(tx, { listingId: who.listingId }, since(L.perListing.windowMs));
  if (onListing >= L.perListing.max) throw new AppError("rate_limited");
}

/** The name and e-mail of a seeker account, as used for its enquiries; `not_found` when it does not exist. */
export async function seekerEnquirer(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  phone: string | null,
): Promise<Enquirer> {
  const account = await accountContact(deps.db, seekerId);
  if (!account) throw new AppError("not_found");
  return { seekerId, name: account.name, email: account.email, phone };
}

function summaryOf(r: InquiryRow): InquirySummary {
  return {
    id: r.id,
    listing_id: r.listing_id,
    listing_title: r.listing_title,
    status: r.status,
    quelle: r.quelle,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    message_count: r.message_count,
    last_message_at: r.last_message_at.toISOString(),
  };
}

function threadOf(r: InquiryRow, messages: InquiryMessageRow[]): InquiryThread {
  return {
    ...summaryOf(r),
    name: r.name,
    email: r.email,
    phone: r.phone,
    messages: messages.map((m) => ({
      id: m.id,
      sender: m.sender,
      body: m.body,
      created_at: m.created_at.toISOString(),
    })),
  };
}

async function listIn(
  deps: Pick<AppDeps, "db">,
  scope: InquiryScope,
  filter: { listingId?: string | undefined; status?: InquiryStatus | undefined },
  paging: Paging,
): Promise<{ items: InquirySummary[]; total: number }> {
  const r = await listInquiryRows(
    deps.db.kysely,
    scope,
    filter,
    paging.page_size,
    (paging.page - 1) * paging.page_size,
  );
  return { items: r.items.map(summaryOf), total: r.total };
}

async function threadIn(
  deps: Pick<AppDeps, "db">,
  scope: InquiryScope,
  inquiryId: string,
): Promise<InquiryThread> {
  const found = await findInquiryThread(deps.db.kysely, scope, idOrNotFound(inquiryId));
  if (!found) throw new AppError("not_found");
  return threadOf(found.inquiry, found.messages);
}

/** The seeker's own enquiries, newest first, and their total. */
export async function listSeekerInquiries(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  paging: Paging,
): Promise<{ items: InquirySummary[]; total: number }> {
  return await listIn(deps, { seekerId }, {}, paging);
}

/** One of the seeker's enquiries with its whole thread; `not_found` unless the enquiry is this seeker's. */
export async function getSeekerInquiry(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  inquiryId: string,
): Promise<InquiryThread> {
  return await threadIn(deps, { seekerId }, inquiryId);
}

/** Filters of the provider's list of enquiries. */
export interface ProviderInquiryFilter extends Paging {
  listing_id?: string | undefined;
  status?: InquiryStatus | undefined;
}

/**
 * The office's enquiries, newest first, optionally of one listing and one status; a `listing_id` that is not a
 * listing of this office (malformed, unknown or another office's) answers `not_found`.
 */
export async function listOfficeInquiries(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  f: ProviderInquiryFilter,
): Promise<{ items: InquirySummary[]; total: number }> {
  let listingId: string | undefined;
  if (f.listing_id !== undefined) {
    listingId = idOrNotFound(f.listing_id);
    if (!await listingOfOffice(deps.db.kysely, listingId, officeId)) throw new AppError("not_found");
  }
  return await listIn(deps, { officeId }, { listingId, status: f.status }, f);
}

/** One enquiry of the office with the enquirer's details and the whole thread; `not_found` unless it is theirs. */
export async function getOfficeInquiry(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  inquiryId: string,
): Promise<InquiryThread> {
  return await threadIn(deps, { officeId }, inquiryId);
}

/** The time of a new message: now, or 1 ms after the thread's newest message if the clock has not passed it. */
function messageTime(now: Date, inquiry: LockedInquiry): Date {
  const last = inquiry.lastMessageAt?.getTime() ?? -Infinity;
  return now.getTime() > last ? now : new Date(last + 1);
}

/** Whether an enquiry in `status` still takes messages, replies and rejections (not once rejected or closed). */
export function inquiryWritable(status: InquiryStatus): boolean {
  return status !== "rejected" && status !== "closed";
}

/** Locks an enquiry within `scope` for a new message; `not_found` outside scope, `conflict` when rejected/closed. */
async function lockWritable(
  tx: Parameters<typeof lockInquiry>[0],
  scope: InquiryScope,
  inquiryId: string,
): Promise<LockedInquiry> {
  const inquiry = await lockInquiry(tx, scope, inquiryId);
  if (!inquiry) throw new AppError("not_found");
  if (!inquiryWritable(inquiry.status)) throw new AppError("conflict", { reason: "inquiry_closed" });
  return inquiry;
}

/**
 * The seeker writes again in their enquiry: stores the message, sets the enquiry `open` and writes
 * `message.received`. `not_found` unless the enquiry is theirs; `conflict` when rejected or closed.
 */
export async function sendSeekerMessage(
  deps: Pick<AppDeps, "db" | "clock">,
  seekerId: string,
  inquiryId: string,
  body: string,
  origin: EventOrigin,
): Promise<{ messageId: string }> {
  const id = idOrNotFound(inquiryId);
  const text = messageBody(body);
  const now = nowOf(deps);
  return await withEvents(deps, async (tx) => {
    const inquiry = await lockWritable(tx, { seekerId }, id);
    return { messageId: await enquirerMessageIn(tx, inquiry, text, { authorId: seekerId, origin, now }) };
  });
}

/** Stores a further message of the enquirer in the locked `inquiry`, sets it `open`, writes `message.received`. */
async function enquirerMessageIn(
  tx: Parameters<typeof lockInquiry>[0],
  inquiry: LockedInquiry,
  text: string,
  ctx: { authorId: string | null; origin: EventOrigin; now: Date },
): Promise<string> {
  const at = messageTime(ctx.now, inquiry);
  const messageId = await insertInquiryMessage(tx, {
    inquiryId: inquiry.id,
    sender: "seeker",
    authorId: ctx.authorId,
    body: text,
    at,
  });
  await setInquiryStatus(tx, inquiry.id, "open", at);
  const title = await listingTitle(tx, inquiry.listingId);
  await recordEvent(tx, {
    name: "message.received",
    data: {
      anfrage_id: inquiry.id,
      objekt_id: inquiry.listingId,
      nachricht_id: messageId,
      satz: `Neue Nachricht in der Anfrage zu ${about(title)}.`,
    },
    owner: { office: inquiry.officeId },
    origin: ctx.origin,
    at: ctx.now,
  });
  return messageId;
}

/**
 * An answer the enquirer sent to an enquiry's reply address (`ref`: the enquiry and the address's token), as a
 * further message of the enquirer with the quoted earlier text cut off; the rules of
 * {@linkcode sendSeekerMessage}. An unknown enquiry or a wrong token: `not_found`; rejected or closed: `conflict`;
 * no text left: `invalid_request` ("message"). `dedupe` (the mail's Message-ID) answers a repeat with the
 * enquiry and `duplicate: true`, writing nothing; it is recorded in the message's transaction.
 */
export async function receiveEnquirerReply(
  deps: Pick<AppDeps, "db" | "clock">,
  ref: EnquiryRef,
  body: string,
  dedupe: IntakeKey,
): Promise<{ inquiryId: string; messageId: string | null; duplicate: boolean }> {
  const now = nowOf(deps);
  return await withEvents(deps, async (tx) => {
    if (!await replyTokenMatches(tx, ref)) throw new AppError("not_found");
    await lockKeys(tx, [`intake:${dedupe.quelle}:${dedupe.messageId}`]);
    const known = await findIntakeMessage(tx, dedupe);
    if (known) return { inquiryId: known.inquiryId, messageId: null, duplicate: true };
    const owner = await inquiryOffice(tx, ref.inquiryId);
    if (!owner) throw new AppError("not_found");
    const inquiry = await lockWritable(tx, { officeId: owner }, ref.inquiryId);
    const text = messageBody(truncate(withoutQuote(body), MESSAGE_MAX));
    const messageId = await enquirerMessageIn(tx, inquiry, text, {
      authorId: inquiry.seekerId,
      origin: null,
      now,
    });
    await insertIntakeMessage(tx, dedupe, inquiry.id, now);
    return { inquiryId: inquiry.id, messageId, duplicate: false };
  });
}

/** Who acts for the office: the office and the provider writing. */
export interface ProviderActor {
  officeId: string;
  userId: string;
}

/**
 * The provider answers an enquiry of its office: stores the message, sets `answered`, (when the enquirer has a
 * seeker account) writes `reply.received` and records the mail to the enquirer. `not_found` unless the enquiry is
 * the office's; `conflict` when rejected or closed.
 */
export async function replyToInquiry(
  deps: Pick<AppDeps, "db" | "clock">,
  actor: ProviderActor,
  inquiryId: string,
  body: string,
  origin: EventOrigin,
): Promise<{ messageId: string }> {
  const now = nowOf(deps);
  return await withEvents(deps, (tx) => replyToInquiryIn(tx, actor, inquiryId, body, { origin, now }));
}

/** {@linkcode replyToInquiry} inside the caller's transaction `tx` (its commit wakes the dispatcher and the mail sender). */
export async function replyToInquiryIn(
  tx: Parameters<typeof lockInquiry>[0],
  actor: ProviderActor,
  inquiryId: string,
  body: string,
  ctx: { origin: EventOrigin; now: Date },
): Promise<{ messageId: string }> {
  const id = idOrNotFound(inquiryId);
  const text = messageBody(body);
  const inquiry = await lockWritable(tx, { officeId: actor.officeId }, id);
  const at = messageTime(ctx.now, inquiry);
  const messageId = await insertInquiryMessage(tx, {
    inquiryId: id,
    sender: "provider",
    authorId: actor.userId,
    body: text,
    at,
  });
  await setInquiryStatus(tx, id, "answered", at);
  await notifySeeker(tx, inquiry, "Antwort des Anbieters auf Ihre Anfrage zu", ctx.origin, ctx.now);
  await recordEnquirerMail(tx, id, { kind: "reply", text }, ctx.now);
  return { messageId };
}

/**
 * The provider rejects an enquiry of its office, optionally with a message to the enquirer: sets `rejected`,
 * (when the enquirer has a seeker account) writes `reply.received` and records the mail to the enquirer.
 * `not_found` unless the enquiry is the office's; `conflict` when already rejected or closed.
 */
export async function rejectInquiry(
  deps: Pick<AppDeps, "db" | "clock">,
  actor: ProviderActor,
  inquiryId: string,
  body: string | undefined,
  origin: EventOrigin,
): Promise<{ messageId: string | null }> {
  const now = nowOf(deps);
  return await withEvents(deps, (tx) => rejectInquiryIn(tx, actor, inquiryId, body, { origin, now }));
}

/** {@linkcode rejectInquiry} inside the caller's transaction `tx` (its commit wakes the dispatcher and the mail sender). */
export async function rejectInquiryIn(
  tx: Parameters<typeof lockInquiry>[0],
  actor: ProviderActor,
  inquiryId: string,
  body: string | undefined,
  ctx: { origin: EventOrigin; now: Date },
): Promise<{ messageId: string | null }> {
  const id = idOrNotFound(inquiryId);
  const text = body === undefined ? undefined : messageBody(body);
  const inquiry = await lockWritable(tx, { officeId: actor.officeId }, id);
  const at = messageTime(ctx.now, inquiry);
  const messageId = text === undefined ? null : await insertInquiryMessage(tx, {
    inquiryId: id,
    sender: "provider",
    authorId: actor.userId,
    body: text,
    at,
  });
  await setInquiryStatus(tx, id, "rejected", at);
  await notifySeeker(tx, inquiry, "Absage des Anbieters zu Ihrer Anfrage zu", ctx.origin, ctx.now);
  await recordEnquirerMail(tx, id, { kind: "rejection", text }, ctx.now);
  return { messageId };
}

/** Writes `reply.received` for the enquiry's seeker account; nothing for an enquirer without an account. */
async function notifySeeker(
  tx: Parameters<typeof lockInquiry>[0],
  inquiry: LockedInquiry,
  lead: string,
  origin: EventOrigin,
  at: Date,
): Promise<void> {
  if (!inquiry.seekerId) return;
  const title = await listingTitle(tx, inquiry.listingId);
  await recordEvent(tx, {
    name: "reply.received",
    data: { inquiry_id: inquiry.id, listing_id: inquiry.listingId, satz: `${lead} ${about(title)}.` },
    owner: { seeker: inquiry.seekerId },
    origin,
    at,
  });
}
