/**
 * The texts of finding on the search page and the listing page (sorting, place search, radius, price per m², the
 * pager and the empty state) in German and English, in their own catalogue `pages/texts/search.json` rather than
 * the shared `pages/texts/site.json`.
 */
import type { SortOrder } from "../catalogue/sort.ts";
import { catalogue, type Lang, pick } from "./i18n.ts";
import TEXTS_JSON from "./texts/search.json" with { type: "json" };

const TEXTS = catalogue(TEXTS_JSON, "pages/texts/search.json");

/** A key of the finding texts. */
export type FindKey = keyof typeof TEXTS;

/** The finding text `key` in `lang`, with `{name}` placeholders filled from `vars`. */
export function ft(lang: Lang, key: FindKey, vars: Record<string, string | number> = {}): string {
  const text = pick(TEXTS[key], lang);
  return text.replace(/\{(\w+)\}/g, (m, name: string) => name in vars ? String(vars[name]) : m);
}

/** The label of a sort order. */
export function sortLabel(lang: Lang, s: SortOrder): string {
  return ft(lang, s);
}

/** The label of a listing's price per m²: purchase, rent, or neither known. */
export function perSqmLabel(lang: Lang, transaction: "buy" | "rent" | null): string {
  return ft(
    lang,
    transaction === "buy" ? "buyPerSqm" : transaction === "rent" ? "rentPerSqm" : "pricePerSqm",
  );
}
