/**
 * The city rule of every city a caller types: the catalogue filters (REST, MCP, saved searches, the search page),
 * the location baseline and a listing's city: the single-line rule of `text.ts` with at most 100 characters.
 */
import { singleLineText } from "../text.ts";

/** Longest city accepted, in UTF-16 code units after trimming. */
export const CITY_MAX = 100;

/** A city as typed: the rule above; the messages name what is wrong. */
export const citySchema = singleLineText(CITY_MAX);
