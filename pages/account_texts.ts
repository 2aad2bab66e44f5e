/**
 * The texts of the account-mail pages (confirmation link, password reset) in German and English, in their own
 * catalogue `pages/texts/account.json` rather than the shared `pages/texts/site.json`.
 */
import { catalogue, isKeyOf, type Lang, pick, t, type TextKey } from "./i18n.ts";
import TEXTS_JSON from "./texts/account.json" with { type: "json" };

const TEXTS = catalogue(TEXTS_JSON, "pages/texts/account.json");

/** A key of the account-mail texts. */
export type AccountTextKey = keyof typeof TEXTS;

/** The account-mail text `key` in language `l`. */
export function accountText(l: Lang, key: AccountTextKey): string {
  return pick(TEXTS[key], l);
}

/** A text of `pages/texts/site.json` or of the account-mail catalogue. */
export type PageMsg = TextKey | AccountTextKey;

/** The text `key` of either catalogue in language `l`. */
export function pageText(l: Lang, key: PageMsg): string {
  return isKeyOf(TEXTS, key) ? pick(TEXTS[key], l) : t(l, key);
}
