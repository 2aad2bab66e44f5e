/**
 * Inquiries (`anfrage`) about published listings and the messages (`nachricht`) of their threads: the one place
 * their rules live. MCP tools (both servers) and the listing page's form call these functions.
 *
 * Rules:
 * - An inquiry concerns one PUBLISHED listing and belongs to the listing's office; it starts `open` with its first
 *   message (sender `seeker`). The inquirer's e-mail is stored trimmed and lower-cased.
 * - Limits of docs/contract.md §9, shared by every way of sending: per person (seeker account) 5 in 10 minutes, per e-mail
 *   address 5 in 24 hours, per listing 30 in one hour; each window counts inquiries created after now − window of
 *   the domain clock, read once the locks are held. Anonymous inquirers (no account) are limited by e-mail and
 *   listing only. Over a limit: `rate_limited` and nothing is written. The transaction takes advisory locks on
 *   listing, e-mail and person (sorted) before reading the clock and counting, so concurrent senders in any process
 *   cannot overshoot.
 * - Statuses: a provider reply sets `answered`; a new message of the inquirer sets `open` again (also from
 *   `answered`); a rejection sets `rejected` (optionally with a message to the inquirer). `rejected` and `closed`
 *   inquiries refuse further messages from either side, and a second rejection, with `conflict`.
 * - Messages of a thread get strictly increasing times: a message is stamped with the domain clock, or 1 ms after
 *   the thread's newest message when the clock has not moved past it, so the thread order is always defined.
 * - Events (outbox, same transaction): `inquiry.received` for a new inquiry and `message.received` for a further
 *   message of the inquirer (owner: the office); `reply.received` for a provider reply or rejection (owner: the
 *   seeker) only when the inquiry has a seeker account. `satz` never carries message text, names or e-mails.
 * - Inbound inquiries (e-mail, portal) carry a `dedupe` key: a key already recorded answers the inquiry it created
 *   (`duplicate: true`, nothing written, no limit counted); a new key is recorded in the inquiry's transaction under
 *   an advisory lock on the key, so two concurrent deliveries of one message create one inquiry.
 * - Mails (inquiries/inquirer_mail.ts, same transaction): a provider reply or rejection records a mail to the
 *   inquirer; an answer to that mail's reply address is a further message of the inquirer
 *   ({@linkcode receiveInquirerReply}) with the same rules as {@linkcode sendSeekerMessage}.
 * - Ids: a malformed id, an unknown id and an id outside the caller's scope all answer `not_found`.
 */
import { officeListingFilter } from "../catalogue/office_listing_filter.ts";
import { idOrNotFound } from "../ids.ts";
import { pageWindow, type Paging } from "../paging.ts";
import {
  accountContact,
  countInquiriesSince,
  findInquiryThread,
  findPublishedListingOffice,
  INQUIRY_STATUSES,
  type InquiryMessageRow,
  type InquiryRow,
  type InquiryScope,
  type InquiryStatus,
  insertInquiry,
  insertInquiryMessage,
  listInquiryRows,
  lockKeys,
} from "../db/inquiries.ts";
import { findIntakeMessage, insertIntakeMessage, type IntakeKey } from "../db/intake.ts";

/** The statuses of an inquiry, for the adapters that list or filter them. */
export { INQUIRY_STATUSES };
import { AppError } from "../errors.ts";
import { recordEvent } from "../events/outbox.ts";
import type { Action, AppDeps } from "../deps.ts";
import { clip, hasControlCharacter } from "../text.ts";

/** The inquiry limits of docs/contract.md §9: how many inquiries within how many milliseconds. */
export const INQUIRY_LIMITS = {
  perPerson: { max: 5, windowMs: 10 * 60_000 },
  perEmail: { max: 5, windowMs: 24 * 3_600_000 },
  perListing: { max: 30, windowMs: 3_600_000 },
} as const;

/** Longest message body in characters. */
export const MESSAGE_MAX = 10_000;
/** Longest inquirer name in characters. */
export const NAME_MAX = 200;
/** Longest phone number in characters. */
export const PHONE_MAX = 50;
/** Longest e-mail address in characters. */
export const EMAIL_MAX = 320;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Who sends an inquiry: a seeker account (with its name and e-mail) or a person known only by their details. */
export interface Inquirer {
  seekerId: string | null;
  name: string | null;
  email: string;
  phone: string | null;
}

/** A new inquiry. */
export interface SendInquiryInput {
  listingId: string;
  inquirer: Inquirer;
  message: string;
  quelle?: "service" | "portal" | "email";
  /** The name a portal gave in its feedback (shown to the office as where the inquiry came from). */
  portalName?: string | null;
  /** The inbound message's identity (e-mail, portal): a repeat answers the inquiry it created. */
  dedupe?: IntakeKey;
}

/** The fields of an inquiry as listed, in their wire order: what every reader of an inquiry sees. */
const SUMMARY_FIELDS = [
  "id",
  "listing_id",
  "listing_title",
  "status",
  "quelle",
  "created_at",
  "updated_at",
  "message_count",
  "last_message_at",
] as const;

/** An inquiry as listed (times as ISO 8601 strings, UTC). */
export type InquirySummary = Pick<InquiryRow, (typeof SUMMARY_FIELDS)[number]>;

/**
 * Where an inquiry came from, as its office reads it: the website, an app (an OAuth app by its registered name,
 * null when no longer registered; or an API key), an e-mail, or a portal (by the name it gave).
 */
export type InquiryChannel =
  | { kind: "website" }
  | { kind: "app"; name: string | null }
  | { kind: "api_key" }
  | { kind: "email" }
  | { kind: "portal"; name: string | null };

/** An inquiry as its office lists it: also the inquirer's name, where it came from and what they last wrote. */
export interface OfficeInquiry extends InquirySummary {
  name: string | null;
  channel: InquiryChannel;
  /** The first line of the inquirer's newest message, at most {@linkcode FIRST_LINE_MAX} characters. */
  first_line: string;
}

/** Longest first line of a message in an office's list. */
export const FIRST_LINE_MAX = 120;

/** One message of a thread (its time as an ISO 8601 string, UTC). */
export type InquiryMessage = InquiryMessageRow;

/** An inquiry with the inquirer's details and every message in order. */
export interface InquiryThread extends InquirySummary {
  name: string | null;
  email: string;
  phone: string | null;
  messages: InquiryMessage[];
}

/** An inquiry of the office with its thread and where it came from. */
export interface OfficeThread extends InquiryThread {
  channel: InquiryChannel;
}

/** The message body trimmed; `invalid_request` when empty or longer than {@linkcode MESSAGE_MAX}. */
export function messageBody(text: string): string {
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
export function about(title: string | null): string {
  if (!title) return "einem Objekt";
  return `„${clip(title, 120)}“`;
}

const VIA: Record<"service" | "portal" | "email", string> = {
  service: "über den Dienst",
  portal: "über ein Portal",
  email: "per E-Mail",
};

/**
 * Stores a new open inquiry with its first message and writes `inquiry.received`; enforces the limits of docs/contract.md §9
 * race-safely. Throws `not_found` (listing not published / malformed id), `rate_limited` (nothing written) or
 * `invalid_request` (bad e-mail, name or phone, no name without an account; empty or over-long message).
 * With `dedupe`, a known key answers the inquiry it created with `duplicate: true` and writes nothing.
 */
export async function sendInquiry(
  a: Action,
  input: SendInquiryInput,
): Promise<{ inquiryId: string; messageId: string; duplicate: boolean }> {
  const listingId = idOrNotFound(input.listingId);
  const email = normaliseEmail(input.inquirer.email);
  const body = messageBody(input.message);
  const name = optionalText(input.inquirer.name, NAME_MAX, "name");
  // Without an account the name is the only way the provider knows whom they answer.
  if (input.inquirer.seekerId === null && name === null) {
    throw new AppError("invalid_request", { field: "name" });
  }
  const phone = optionalText(input.inquirer.phone, PHONE_MAX, "phone");
  const seekerId = input.inquirer.seekerId;
  const quelle = input.quelle ?? "service";
  const tx = a.tx;
  await lockKeys(tx, [
    `inquiry:listing:${listingId}`,
    `inquiry:email:${email}`,
    ...(seekerId ? [`inquiry:person:${seekerId}`] : []),
    ...(input.dedupe ? [`intake:${input.dedupe.quelle}:${input.dedupe.messageId}`] : []),
  ]);
  // The action's clock is first read here, under the locks: a request that waited for them stamps its inquiry
  // after every inquiry committed meanwhile, and counts them all (the windows have no upper bound).
  const now = a.now;
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
    origin: a.origin,
    portalName: optionalText(input.portalName ?? null, NAME_MAX, "portal"),
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
  await a.deps.reactions.react(a, { kind: "inquiry_received", inquiryId });
  await recordEvent(a, {
    name: "inquiry.received",
    data: {
      anfrage_id: inquiryId,
      objekt_id: listingId,
      quelle,
      satz: `Neue Anfrage zu ${about(listing.title)} ${VIA[quelle]}.`,
    },
    owner: { office: listing.officeId },
  });
  return { inquiryId, messageId, duplicate: false };
}

/**
 * Throws `rate_limited` when one more inquiry by this person, address or on this listing would pass a limit. Runs
 * under the locks of all three: it counts every inquiry created after the window's start, committed or not yet
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

/** The name and e-mail of a seeker account, as used for its inquiries; `not_found` when it does not exist. */
export async function seekerInquirer(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  phone: string | null,
): Promise<Inquirer> {
  const account = await accountContact(deps.db, seekerId);
  if (!account) throw new AppError("not_found");
  return { seekerId, name: account.name, email: account.email, phone };
}

/** The summary of row `r`: its {@linkcode SUMMARY_FIELDS}, none of what only its office sees. */
function summaryOf(r: InquiryRow): InquirySummary {
  return Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, r[field]])) as InquirySummary;
}

/** Where the inquiry of row `r` came from. */
function channelOf(r: InquiryRow): InquiryChannel {
  if (r.quelle === "email") return { kind: "email" };
  if (r.quelle === "portal") return { kind: "portal", name: r.portal_name };
  if (r.origin_client_id !== null) return { kind: "app", name: r.app_name };
  return r.via_api_key ? { kind: "api_key" } : { kind: "website" };
}

/** The first line of `text` that holds more than spaces, clipped to {@linkcode FIRST_LINE_MAX} characters. */
function firstLine(text: string | null): string {
  const line = (text ?? "").split(/\r?\n/).map((x) => x.trim()).find((x) => x !== "") ?? "";
  return clip(line, FIRST_LINE_MAX);
}

function officeSummaryOf(r: InquiryRow): OfficeInquiry {
  return { ...summaryOf(r), name: r.name, channel: channelOf(r), first_line: firstLine(r.latest_text) };
}

function threadOf(r: InquiryRow, messages: InquiryMessageRow[]): InquiryThread {
  return {
    ...summaryOf(r),
    name: r.name,
    email: r.email,
    phone: r.phone,
    messages,
  };
}

async function listIn<T>(
  deps: Pick<AppDeps, "db">,
  scope: InquiryScope,
  filter: { listingId?: string | undefined; status?: InquiryStatus | undefined },
  paging: Paging,
  view: (r: InquiryRow) => T,
): Promise<{ items: T[]; total: number }> {
  const { page_size, offset } = pageWindow(paging);
  const r = await listInquiryRows(deps.db.kysely, scope, filter, page_size, offset);
  return { items: r.items.map(view), total: r.total };
}

async function threadIn(
  deps: Pick<AppDeps, "db">,
  scope: InquiryScope,
  inquiryId: string,
): Promise<OfficeThread> {
  const found = await findInquiryThread(deps.db.kysely, scope, idOrNotFound(inquiryId));
  if (!found) throw new AppError("not_found");
  return { ...threadOf(found.inquiry, found.messages), channel: channelOf(found.inquiry) };
}

/** The seeker's own inquiries, newest first, and their total. */
export async function listSeekerInquiries(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  paging: Paging,
): Promise<{ items: InquirySummary[]; total: number }> {
  return await listIn(deps, { seekerId }, {}, paging, summaryOf);
}

/** One of the seeker's inquiries with its whole thread; `not_found` unless the inquiry is this seeker's. */
export async function getSeekerInquiry(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  inquiryId: string,
): Promise<InquiryThread> {
  const { channel: _, ...thread } = await threadIn(deps, { seekerId }, inquiryId);
  return thread;
}

/** Filters of the provider's list of inquiries. */
export interface ProviderInquiryFilter extends Paging {
  listing_id?: string | undefined;
  status?: InquiryStatus | undefined;
}

/**
 * The office's inquiries, newest first, optionally of one listing and one status, each with the inquirer's name,
 * where it came from and the first line of what they last wrote; a `listing_id` that is not a listing of this
 * office (malformed, unknown or another office's) answers `not_found`.
 */
export async function listOfficeInquiries(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  f: ProviderInquiryFilter,
): Promise<{ items: OfficeInquiry[]; total: number }> {
  const listingId = await officeListingFilter(deps.db.kysely, officeId, f.listing_id);
  return await listIn(deps, { officeId }, { listingId, status: f.status }, f, officeSummaryOf);
}

/**
 * One inquiry of the office with the inquirer's details, where it came from and the whole thread; `not_found`
 * unless it is theirs.
 */
export async function getOfficeInquiry(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  inquiryId: string,
): Promise<OfficeThread> {
  return await threadIn(deps, { officeId }, inquiryId);
}

/** Whether an inquiry in `status` still takes messages, replies and rejections (not once rejected or closed). */
export function inquiryWritable(status: InquiryStatus): boolean {
  return status !== "rejected" && status !== "closed";
}
