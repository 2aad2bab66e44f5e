/**
 * The one rule of an office's lists filtered by one of its listings (inquiries, proposals, social entries): the
 * filter must name a listing of that office.
 */
import type { Kysely } from "kysely";
import { officeListingIds } from "../db/listings.ts";
import type { Database } from "../db/schema.ts";
import { AppError } from "../errors.ts";
import { idOrNotFound } from "../ids.ts";

/**
 * The listing id a list of office `officeId` is filtered by (`objekt_id` or `listing_id`), lower-case; undefined
 * without a filter. A malformed id, an unknown listing and another office's listing answer `not_found`.
 */
export async function officeListingFilter(
  q: Kysely<Database>,
  officeId: string,
  listingId: string | undefined,
): Promise<string | undefined> {
  if (listingId === undefined) return undefined;
  const id = idOrNotFound(listingId);
  if (!(await officeListingIds(q, officeId, [id])).has(id)) throw new AppError("not_found");
  return id;
}
