/**
 * Inquiries by e-mail: one raw RFC 5322 message (from the mail gateway) becomes an inquiry with `quelle: "email"`.
 *
 * Rules:
 * - Addressed (To, Cc, Delivered-To, X-Original-To, in that order) to `objekt-<listing id>@<INTAKE_MAIL_DOMAIN>`
 *   (that listing) or `buero-<office id>@<INTAKE_MAIL_DOMAIN>` (the one listing of the office that the subject,
 *   else the text, names by link or reference; see catalogue/named_listing.ts). A per-listing address wins over a
 *   per-office one. No such address, an unknown office, no listing or several named, or a listing that is not
 *   published: `not_found`, nothing written (the gateway bounces the mail).
 * - Inquirer: the Reply-To mailbox, else From; the name is that mailbox's display name, else its address. No phone.
 * - Text: the text/plain part, else the HTML part as plain text, else the subject; cut to MESSAGE_MAX characters.
 *   Charsets and transfer encodings are decoded by postal-mime. Attachments are parsed but ignored, never stored.
 * - Duplicates: the Message-ID (angle brackets and white space trimmed, case kept), or `sha256:<hex>` of the raw
 *   message when it has none, identifies the mail; a known one answers the inquiry it created and writes nothing.
 * - The limits of docs/contract.md §9 apply as for every inquiry (`rate_limited`, nothing written).
 * - Answers of inquirers: a mail to an inquiry's reply address `anfrage-<inquiry id, 32 hex>-<token>@<domain>`
 *   (inquiries/inquirer_mail.ts; it wins over every other address) becomes a further message of the inquirer in
 *   that inquiry, its quoted earlier text cut off (`receiveInquirerReply`). A malformed `anfrage-` address, an
 *   unknown inquiry or a wrong token: `not_found` like an unknown intake address, nothing written; a rejected or
 *   closed inquiry: `conflict`. The sender's address is not checked (the token is the proof); Message-ID
 *   duplicates answer `duplicate` as above.
 */
import type { Address, Email, Mailbox } from "postal-mime";
import { namedListing } from "../catalogue/named_listing.ts";
import { findIntakeMessage, type IntakeKey, officeExists } from "../db/intake.ts";
import { AppError } from "../errors.ts";
import { sendInquiry } from "../inquiries/inquiries.ts";
import { receiveInquirerReply } from "../inquiries/messages.ts";
import { inquiryAddress, type InquiryRef } from "../inquiries/inquiry_address.ts";
import { act, type AppDeps, GUEST } from "../deps.ts";
import { sha256Hex } from "../crypto.ts";
import { clean, inquirerName, inquiryText, storedMessageId } from "./common.ts";
import { htmlToText } from "./html_text.ts";

/** What an accepted message did: created an inquiry, or repeated one already received. */
export interface IntakeOutcome {
  status: "created" | "duplicate";
  inquiryId: string;
}

/** Where a message is addressed: one listing or one office. */
export type IntakeTarget = { kind: "listing"; id: string } | { kind: "office"; id: string };

const ADDRESS = /^(objekt|buero)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@(.+)$/i;

/** The mailboxes of an address list, groups flattened. */
function mailboxes(list: Address[] | undefined): Mailbox[] {
  return (list ?? []).flatMap((a) => a.group ?? [a]);
}

/** A message parsed by postal-mime, with its parser of address headers. */
interface ParsedMail {
  mail: Email;
  addressParser: (text: string) => Address[];
}

/** Every recipient address of the message, in the order To, Cc, Delivered-To, X-Original-To. */
function recipients({ mail, addressParser }: ParsedMail): string[] {
  const header = (key: string) =>
    mail.headers.filter((h) => h.key === key).flatMap((h) => mailboxes(addressParser(h.value)));
  return [...mailboxes(mail.to), ...mailboxes(mail.cc), ...header("delivered-to"), ...header("x-original-to")]
    .map((m) => m.address.trim());
}

/** The first per-listing address at `domain` among `addresses`, else the first per-office one, else undefined. */
export function intakeTarget(addresses: string[], domain: string): IntakeTarget | undefined {
  const found = addresses.map((a) => ADDRESS.exec(a))
    .filter((m): m is RegExpExecArray => m !== null && m[3]!.toLowerCase() === domain.toLowerCase());
  const pick = found.find((m) => m[1]!.toLowerCase() === "objekt") ?? found[0];
  if (!pick) return undefined;
  return { kind: pick[1]!.toLowerCase() === "objekt" ? "listing" : "office", id: pick[2]!.toLowerCase() };
}

/**
 * The message parsed by postal-mime (loaded on the first message, not at start: docs/architecture.md §11.17);
 * `invalid_request` ("message") when it is not one.
 */
async function parseMail(raw: Uint8Array): Promise<ParsedMail> {
  if (raw.byteLength === 0) throw new AppError("invalid_request", { field: "message" });
  const { default: PostalMime, addressParser } = await import("postal-mime");
  try {
    return { mail: await PostalMime.parse(raw, { attachmentEncoding: "arraybuffer" }), addressParser };
  } catch {
    throw new AppError("invalid_request", { field: "message" });
  }
}

/** The inquirer: the Reply-To mailbox, else From; `invalid_request` ("email") when there is neither. */
function inquirerOf(mail: Email): { name: string; email: string } {
  const box = mailboxes(mail.replyTo)[0] ?? mailboxes(mail.from ? [mail.from] : [])[0];
  const email = clean(box?.address);
  if (!email) throw new AppError("invalid_request", { field: "email" });
  return { name: inquirerName(box?.name, email), email };
}

/** The inquiry text: the plain part, else the HTML part as text, else the subject. */
export function mailText(mail: Email): string {
  const plain = clean(mail.text);
  if (plain) return inquiryText(plain);
  const html = mail.html ? clean(htmlToText(mail.html)) : "";
  return inquiryText(html || clean(mail.subject));
}

/** The message's identity: its Message-ID without angle brackets, or `sha256:<hex>` of the raw bytes. */
export async function mailKey(mail: Email, raw: Uint8Array): Promise<IntakeKey> {
  const id = clean(mail.messageId).replace(/^<\s*/, "").replace(/\s*>$/, "");
  return { quelle: "email", messageId: id ? await storedMessageId(id) : `sha256:${await sha256Hex(raw)}` };
}

/** The one listing of the office the subject, else the text, names; `not_found` if none or no such office. */
async function officeListing(deps: AppDeps, officeId: string, mail: Email, text: string): Promise<string> {
  const q = deps.db.kysely;
  const id = await officeExists(q, officeId)
    ? await namedListing(q, officeId, [clean(mail.subject), text])
    : null;
  if (!id) throw new AppError("not_found");
  return id;
}

/**
 * Creates the inquiry of one raw e-mail, or answers the one a repeat of it created. Throws `invalid_request`
 * (not a message, no sender address, no text), `not_found` (no intake address, unknown listing or office, no
 * unambiguous listing) or `rate_limited` (docs/contract.md §9); nothing is written then.
 */
export async function receiveEmail(deps: AppDeps, raw: Uint8Array): Promise<IntakeOutcome> {
  const parsed = await parseMail(raw);
  const { mail } = parsed;
  const answer = inquiryTarget(recipients(parsed), deps.config.intakeMailDomain);
  if (answer === "malformed") throw new AppError("not_found");
  if (answer) return await receiveAnswer(deps, answer, mail, raw);
  const target = intakeTarget(recipients(parsed), deps.config.intakeMailDomain);
  if (!target) throw new AppError("not_found");
  const key = await mailKey(mail, raw);
  const known = await findIntakeMessage(deps.db.kysely, key);
  if (known) return { status: "duplicate", inquiryId: known.inquiryId };
  const text = mailText(mail);
  const inquirer = inquirerOf(mail);
  const listingId = target.kind === "listing" ? target.id : await officeListing(deps, target.id, mail, text);
  const r = await act(deps, GUEST, (a) =>
    sendInquiry(a, {
      listingId,
      inquirer: { seekerId: null, name: inquirer.name, email: inquirer.email, phone: null },
      message: text,
      quelle: "email",
      dedupe: key,
    }));
  return { status: r.duplicate ? "duplicate" : "created", inquiryId: r.inquiryId };
}

/**
 * The first inquiry reply address at `domain` among `addresses`: its inquiry and token, `"malformed"` when the
 * first `anfrage-` address there is malformed, undefined when there is none.
 */
export function inquiryTarget(addresses: string[], domain: string): InquiryRef | "malformed" | undefined {
  for (const a of addresses) {
    const ref = inquiryAddress(a, domain);
    if (ref) return ref;
  }
  return undefined;
}

/** The inquirer's answer to a mail about an inquiry: a further message in it (see the module's rules). */
async function receiveAnswer(
  deps: AppDeps,
  ref: InquiryRef,
  mail: Email,
  raw: Uint8Array,
): Promise<IntakeOutcome> {
  const key = await mailKey(mail, raw);
  const r = await act(deps, GUEST, (a) => receiveInquirerReply(a, ref, mailText(mail), key));
  return { status: r.duplicate ? "duplicate" : "created", inquiryId: r.inquiryId };
}
