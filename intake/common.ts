/**
 * What both inbound intake endpoints share: the shared-secret check, SHA-256 message keys, text clean-up and the
 * refusal reasons of an inquiry that could not be created.
 */
import { sha256Hex } from "../crypto.ts";
import { secretMatches } from "../crypto.ts";
import { AppError } from "../errors.ts";
import { MESSAGE_MAX, NAME_MAX } from "../inquiries/inquiries.ts";
import { truncate } from "../text.ts";

/** Longest stored message id; a longer one is stored as `sha256:<hex>` of itself. */
export const MESSAGE_ID_MAX = 400;

/** Whether `given` equals the configured secret; compares SHA-256 digests in constant time (no length leak). */
export async function intakeSecretMatches(
  expected: string,
  given: string | undefined | null,
): Promise<boolean> {
  return !!given && await secretMatches(expected, given);
}

/** A message id as stored: NULs removed, trimmed; over {@linkcode MESSAGE_ID_MAX} it becomes `sha256:<hex>`. */
export async function storedMessageId(id: string): Promise<string> {
  const clean = id.replaceAll("\0", "").trim();
  return clean.length > MESSAGE_ID_MAX ? `sha256:${await sha256Hex(clean)}` : clean;
}

/** `text` without NUL characters (Postgres text refuses them), trimmed. */
export function clean(text: string | null | undefined): string {
  return (text ?? "").replaceAll("\0", "").trim();
}

/** `text` cut to `max` UTF-16 units at a grapheme boundary (see `truncate`), trailing space removed. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : truncate(text, max).trimEnd();
}

/**
 * `text` as one line: every run of white space and control characters (line breaks and tabs of a mail header or
 * an XML layout, C1 controls) becomes one space, trimmed; so what a portal or mail sends fits the one-line rule
 * of names and phones (`text.ts`) instead of being refused for its layout.
 */
export function oneLine(text: string | null | undefined): string {
  return (text ?? "").replace(/[\p{Cc}\s]+/gu, " ").trim();
}

/** An inquirer's name as stored: the given name cut to NAME_MAX, or the e-mail address when there is none. */
export function inquirerName(name: string | null | undefined, email: string): string {
  const n = oneLine(name);
  return cut(n.length > 0 ? n : email, NAME_MAX);
}

/** The inquiry text as stored: cleaned and cut to MESSAGE_MAX. */
export function inquiryText(text: string): string {
  return cut(clean(text), MESSAGE_MAX);
}

/** Why an inbound inquiry was not created (portal answer). */
export type RefusalReason =
  | "unknown_listing"
  | "ambiguous_listing"
  | "rate_limited"
  | "invalid_email"
  | "invalid_name"
  | "invalid_phone"
  | "invalid_message";

/** The refusal reason of a domain error, or undefined when `err` is not an expected refusal. */
export function refusalOf(err: unknown): RefusalReason | undefined {
  if (!(err instanceof AppError)) return undefined;
  if (err.code === "not_found") return "unknown_listing";
  if (err.code === "rate_limited") return "rate_limited";
  if (err.code !== "invalid_request") return undefined;
  const field = err.facts.field;
  return field === "email" || field === "name" || field === "phone" || field === "message"
    ? `invalid_${field}`
    : "invalid_message";
}
