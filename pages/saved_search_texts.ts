/**
 * The words of the saved-search pages and the account start page (German, English: `pages/texts/saved_search.json`),
 * and a saved search's filters in words.
 */
import type { SearchFilters } from "../catalogue/filters.ts";
import { decimal, euroCents } from "../catalogue/german.ts";
import type { AlertKind } from "../searches/search_alerts.ts";
import { catalogue, type Lang, pick, t } from "./i18n.ts";
import TEXT_JSON from "./texts/saved_search.json" with { type: "json" };

const TEXT = catalogue(TEXT_JSON, "pages/texts/saved_search.json");

/** A text key of these pages. */
export type SavedSearchKey = keyof typeof TEXT;

/** The text `key` in `l`. */
export function st(l: Lang, key: SavedSearchKey): string {
  return pick(TEXT[key], l);
}

/** The long and short words of alert setting `k`. */
export function alertWords(l: Lang, k: AlertKind): { long: string; short: string } {
  return { long: st(l, `alert_${k}`), short: st(l, `alertShort_${k}`) };
}

/** A saved search's filters in words: "Köln · Miete · Wohnung · bis 1.200 € · Zimmer ab 3 · Fläche ab 60 m²". */
export function filtersInWords(l: Lang, f: SearchFilters): string {
  const parts = [
    f.city ?? st(l, "anyPlace"),
    f.transaction_type && t(l, f.transaction_type),
    f.property_type && t(l, f.property_type),
    f.min_price !== undefined && `${st(l, "from")} ${euroCents(f.min_price, l)}`,
    f.max_price !== undefined && `${st(l, "upTo")} ${euroCents(f.max_price, l)}`,
    f.min_rooms !== undefined && `${st(l, "roomsFrom")} ${decimal(f.min_rooms, l)}`,
    f.min_sqm !== undefined && `${st(l, "areaFrom")} ${decimal(f.min_sqm, l)} m²`,
  ];
  return parts.filter((p): p is string => typeof p === "string" && p !== "").join(" · ");
}
