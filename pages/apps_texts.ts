/**
 * The texts of the delivery part of the connected-apps page (docs/contract.md §5.7, §6.4): a subscription's
 * delivery state, its recent attempts, "send again" and "reactivate", in German and English, in their own
 * catalogue `pages/texts/apps.json` rather than the shared `pages/texts/site.json`.
 */
import { catalogue, type Lang, pick } from "./i18n.ts";
import TEXTS_JSON from "./texts/apps.json" with { type: "json" };

const TEXTS = catalogue(TEXTS_JSON, "pages/texts/apps.json");

/** A text key of the delivery part of the connected-apps page. */
export type DeliveryTextKey = keyof typeof TEXTS;

/** The text `key` in `lang`. */
export function td(lang: Lang, key: DeliveryTextKey): string {
  return pick(TEXTS[key], lang);
}
