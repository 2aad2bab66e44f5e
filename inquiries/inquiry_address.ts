/**
 * The addresses of mails to inquirers (inquiries/inquirer_mail.ts): the reply address
 * `anfrage-<inquiry id, 32 hex>-<reply token>@<INTAKE_MAIL_DOMAIN>` (local part 61 characters) and the stop link
 * `<BASE_URL>/anfrage-mails/abbestellen/<inquiry id, 32 hex>-<stop token>`, their parsing, fresh tokens (20 base32
 * characters, 100 bits), and what a mail to an inquirer gets when it is sent (auth/mail.ts). Pure functions.
 */
import { isUuid } from "../ids.ts";

/** Where the stop page lives: `${STOP_PATH}/<inquiry id, 32 hex>-<stop token>`. */
export const STOP_PATH = "/anfrage-mails/abbestellen";

/** A reply or stop token: 20 base32 characters (lower case). */
export const MAIL_TOKEN = /^[a-z2-7]{20}$/;
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** A fresh token: 20 base32 characters (100 bits) from the platform's random source. */
export function newMailToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return Array.from(bytes, (b) => BASE32[b & 31]).join("");
}

/** The inquiry id as 32 hex digits (no dashes). */
function hexId(inquiryId: string): string {
  return inquiryId.replaceAll("-", "").toLowerCase();
}

/** The UUID of 32 hex digits. */
function uuidOfHex(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The reply address of an inquiry: `anfrage-<32 hex>-<token>@<domain>` (local part 61 characters). */
export function replyAddress(inquiryId: string, replyToken: string, domain: string): string {
  return `anfrage-${hexId(inquiryId)}-${replyToken}@${domain}`;
}

/** The stop link of an inquiry under `baseUrl`. */
export function stopUrl(baseUrl: string, inquiryId: string, stopToken: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${STOP_PATH}/${hexId(inquiryId)}-${stopToken}`;
}

/** A parsed inquiry address or stop reference: the inquiry and the token it carries. */
export interface InquiryRef {
  inquiryId: string;
  token: string;
}

/** `<32 hex>-<token>` parsed (case-insensitive), or undefined when malformed. */
export function parseInquiryRef(text: string): InquiryRef | undefined {
  const m = /^([0-9a-f]{32})-([a-z2-7]{20})$/i.exec(text);
  if (!m) return undefined;
  const inquiryId = uuidOfHex(m[1]!.toLowerCase());
  return isUuid(inquiryId) ? { inquiryId, token: m[2]!.toLowerCase() } : undefined;
}

/**
 * What `address` is at `domain`: not an inquiry address (undefined), a malformed one (`"malformed"`), or the
 * inquiry and token it names. An `anfrage-` local part at another domain is not an inquiry address.
 */
export function inquiryAddress(address: string, domain: string): InquiryRef | "malformed" | undefined {
  const at = address.lastIndexOf("@");
  if (at < 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return undefined;
  const local = address.slice(0, at);
  if (!/^anfrage-/i.test(local)) return undefined;
  return parseInquiryRef(local.slice("anfrage-".length)) ?? "malformed";
}

/** What a mail to an inquirer gets when it is sent: its Reply-To, its stop URL and the stop line of its text. */
export function inquiryMailExtras(
  cfg: { baseUrl: string; intakeMailDomain: string },
  e: { inquiryId: string; replyToken: string; stopToken: string },
): { replyTo: string; stopUrl: string; footer: string } {
  const url = stopUrl(cfg.baseUrl, e.inquiryId, e.stopToken);
  return {
    replyTo: replyAddress(e.inquiryId, e.replyToken, cfg.intakeMailDomain),
    stopUrl: url,
    footer: [
      "",
      "-- ",
      `Keine weiteren E-Mails zu dieser Anfrage: ${url}`,
      `(No more e-mails about this inquiry: ${url})`,
    ].join("\n"),
  };
}
