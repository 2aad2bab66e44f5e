/**
 * Which of an office's listings a text names: the one rule of the e-mail intake (a mail to the office's address)
 * and the social inbox (a comment or message on the office's page).
 *
 * - Named by link: `…/objekte/<id>`, `…/properties/<id>` or `…/api/public/properties/<id>` on any host.
 * - Named by reference (the listing's `reference`, ignoring case): a word after "Ref.", "Referenz", "Objekt-Nr.",
 *   "Objektnummer" or "Nr."; a word glued to "Ref." or "Referenz:" ("Ref.AB-1"); or any word of at least three
 *   characters with both a letter and a digit ("W12", "AB-123").
 * - Every listing of the office counts, whatever its status: people write about listings they saw earlier, and the
 *   provider expects the message filed under that listing (an inquiry still needs a published one).
 * - Links decide before references; the parts are read in order (a mail's subject before its text) and the first
 *   part naming any listing decides. It must name exactly one: a part naming several names none, so nothing is
 *   filed under a guessed listing.
 */
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { officeListingIds, officeListingsByReference } from "../db/listings.ts";

const LINK =
  /\/(?:objekte|properties)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-z-])/gi;
const SPLIT = /[\s,;!?()[\]{}<>"'„“”‚‘’«»|*]+/;
const MARKER = /^(?:ref|referenz|objekt-?nr|objektnummer|nr)$/i;
const GLUED = /^(?:ref|referenz)[.:]+(.+)$/i;
const REF_CHARS = /^[\p{L}\p{N}._/-]{1,100}$/u;
/** Longest stretch of one part that is read. */
const PART_MAX = 20_000;
/** Most links or reference words taken from one part. */
const MAX_CANDIDATES = 200;

/** Listing ids of the links in `text`, lower-case, in order of appearance, without repeats. */
export function linkedListingIds(text: string): string[] {
  const ids = [...text.slice(0, PART_MAX).matchAll(LINK)].map((m) => m[1]!.toLowerCase());
  return [...new Set(ids)].slice(0, MAX_CANDIDATES);
}

/** A word without a leading `#` and trailing dots or colons. */
function trimWord(w: string): string {
  return w.replace(/^#+/, "").replace(/[.:]+$/, "");
}

/** Whether a free-standing word looks like a reference: 3+ characters with a letter and a digit. */
function looksLikeReference(w: string): boolean {
  return w.length >= 3 && /\p{L}/u.test(w) && /\p{N}/u.test(w);
}

/**
 * Words of `text` that may be a listing's reference, in order, without repeats: a word after a marker ("Ref.",
 * "Referenz", "Objekt-Nr.", "Nr."), a word glued to one ("Ref.AB-1"), and any word with letters and digits.
 */
export function referenceCandidates(text: string): string[] {
  const words = text.slice(0, PART_MAX).split(SPLIT).map(trimWord).filter((w) => w !== "");
  const out = new Set<string>();
  for (const [i, w] of words.entries()) {
    const glued = GLUED.exec(w)?.[1];
    const word = glued ?? w;
    if (!REF_CHARS.test(word)) continue;
    const afterMarker = i > 0 && MARKER.test(words[i - 1]!);
    if (glued || afterMarker || looksLikeReference(word)) out.add(word);
    if (out.size >= MAX_CANDIDATES) break;
  }
  return [...out];
}

/** The distinct listings of the office that one part names: by link, else by reference. */
async function namedIn(q: Kysely<Database>, officeId: string, part: string): Promise<string[]> {
  const own = await officeListingIds(q, officeId, linkedListingIds(part));
  if (own.size > 0) return [...own];
  return await officeListingsByReference(q, officeId, referenceCandidates(part));
}

/**
 * The listing of `officeId` that `parts` name (see the module's rules), or null: none named, or the first part
 * naming any names more than one.
 */
export async function namedListing(
  q: Kysely<Database>,
  officeId: string,
  parts: string[],
): Promise<string | null> {
  for (const part of parts) {
    const ids = await namedIn(q, officeId, part);
    if (ids.length > 0) return ids.length === 1 ? ids[0]! : null;
  }
  return null;
}
