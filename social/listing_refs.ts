/**
 * Finds the listing a comment or message names: a link to its listing view (`/objekte/<id>`) or its REST
 * address (`/api/public/properties/<id>`) on any host, else its internal reference (`reference`, e.g. "Ref.
 * AB-123"). Only listings of the page's office count; the first one named in the text wins.
 */
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { officeListingIds, officeListingsByReference } from "../db/social.ts";

const LINK =
  /\/(?:objekte|api\/public\/properties)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-z-])/gi;
const SPLIT = /[\s,;!?()[\]{}<>"'„“”‚‘’«»|*]+/;
const MARKER = /^(?:ref|referenz|objekt-?nr|objektnummer|nr)$/i;
const GLUED = /^(?:ref|referenz)[.:]+(.+)$/i;
const REF_CHARS = /^[0-9A-Za-z._/-]{1,100}$/;
const MAX_CANDIDATES = 200;

/** Listing ids of the links in `text`, lower-case, in order of appearance, without repeats. */
export function linkedListingIds(text: string): string[] {
  const ids = [...text.matchAll(LINK)].map((m) => m[1]!.toLowerCase());
  return [...new Set(ids)].slice(0, MAX_CANDIDATES);
}

/** A word without a leading `#` and trailing dots or colons. */
function trimWord(w: string): string {
  return w.replace(/^#+/, "").replace(/[.:]+$/, "");
}

/** Whether a free-standing word looks like a reference: 3+ characters with a letter and a digit. */
function looksLikeReference(w: string): boolean {
  return w.length >= 3 && /[A-Za-z]/.test(w) && /\d/.test(w);
}

/**
 * Words of `text` that may be a listing's reference, in order, without repeats: a word after a marker ("Ref.",
 * "Referenz", "Objekt-Nr.", "Nr."), a word glued to one ("Ref.AB-1"), and any word with letters and digits.
 */
export function referenceCandidates(text: string): string[] {
  const words = text.split(SPLIT).map(trimWord).filter((w) => w !== "");
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

/** The listing of `officeId` that `text` names by link, else by reference; null when none. */
export async function listingNamedIn(
  q: Kysely<Database>,
  officeId: string,
  text: string,
): Promise<string | null> {
  const linked = linkedListingIds(text);
  const own = await officeListingIds(q, officeId, linked);
  const byLink = linked.find((id) => own.has(id));
  if (byLink) return byLink;
  const candidates = referenceCandidates(text);
  const byRef = await officeListingsByReference(q, officeId, candidates);
  for (const c of candidates) {
    const id = byRef.get(c.toLowerCase());
    if (id) return id;
  }
  return null;
}
