/**
 * The city rule of every city a caller types: the catalogue filters (REST, MCP, saved searches, the search page)
 * and the location baseline. Trimmed, 1 to 100 characters, no control characters (C0, DEL, C1), valid Unicode
 * (no unpaired surrogate, which JSON can carry but Postgres cannot store).
 */
import { z } from "zod";

/** Longest city accepted, in UTF-16 code units after trimming. */
export const CITY_MAX = 100;

/** A city as typed: the rule above; the messages name what is wrong. */
export const citySchema = z.string().trim()
  .min(1, "must not be empty")
  .max(CITY_MAX, `must be at most ${CITY_MAX} characters`)
  .refine((s) => !/\p{Cc}/u.test(s), "must not contain control characters")
  .refine((s) => s.isWellFormed(), "must be valid Unicode text");
