/** Documents on listings as the provider's `get_property` shows them. */
import { z } from "zod";
import type { Db } from "../db/connection.ts";

/** The documents of a listing with their processing result (filled by the documents work package). */
export const listingFilesSchema = z.array(z.object({ datei_id: z.string() }));

/** The documents of the office's listing `listingId`, newest first. */
export async function listingFiles(_db: Db, _officeId: string, _listingId: string) {
  return await Promise.resolve([] as z.infer<typeof listingFilesSchema>);
}
