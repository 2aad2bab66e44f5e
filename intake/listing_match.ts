/**
 * Which listing an enquiry to an office's address is about: a link to one of the office's published listings
 * (`…/objekte/<id>` or `…/properties/<id>`) or the reference of one of them, in the subject first, then in the
 * text. Only the office's own published listings count; references shorter than 3 characters are not matched.
 */
import type { Db } from "../db/connection.ts";
import { officeExists, officeReferencesIn, publishedOfficeListings } from "../db/intake.ts";
import { AppError } from "../errors.ts";

const LINK = /(?:objekte|properties)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/gi;
/** Longest stretch of a text searched for references. */
const SEARCH_MAX = 20_000;

/** The listing ids linked in `text` (lower case, distinct, in order). */
export function linkedListingIds(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(LINK), (m) => m[1]!.toLowerCase()))];
}

/** Whether `reference` occurs in `text` as a whole word (ignoring case). */
export function mentions(text: string, reference: string): boolean {
  const ref = reference.trim().toLowerCase();
  if (ref.length < 3) return false;
  const hay = text.toLowerCase();
  const word = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
  for (let at = hay.indexOf(ref); at >= 0; at = hay.indexOf(ref, at + 1)) {
    if (!word(hay[at - 1]) && !word(hay[at + ref.length])) return true;
  }
  return false;
}

/** The listings of the office one part of the message names: by link, else by reference. */
async function namedIn(db: Db, officeId: string, part: string): Promise<string[]> {
  const text = part.slice(0, SEARCH_MAX);
  const linked = await publishedOfficeListings(db.kysely, officeId, linkedListingIds(text));
  if (linked.length > 0) return linked;
  const candidates = await officeReferencesIn(db.kysely, officeId, text);
  return [...new Set(candidates.filter((c) => mentions(text, c.reference)).map((c) => c.id))];
}

/**
 * The office's published listing the message is about. `not_found` when the office does not exist, when neither
 * subject nor text names one of its listings, or when the first part that names any names more than one.
 */
export async function officeListingFor(
  db: Db,
  officeId: string,
  subject: string,
  text: string,
): Promise<string> {
  if (!await officeExists(db.kysely, officeId)) throw new AppError("not_found");
  for (const part of [subject, text]) {
    const ids = await namedIn(db, officeId, part);
    if (ids.length === 1) return ids[0]!;
    if (ids.length > 1) throw new AppError("not_found");
  }
  throw new AppError("not_found");
}
