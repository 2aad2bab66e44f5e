/**
 * The texts of the agent's workspace (`/anbieter`), German and English, in one catalogue
 * (`pages/texts/workspace.json`): the type checker knows every key (`WsKey`), and words from data (statuses, kinds,
 * field names) go through {@linkcode wordOf}.
 */
import { catalogue, isKeyOf, type Lang, pick } from "./i18n.ts";
import TEXTS_JSON from "./texts/workspace.json" with { type: "json" };

/** The workspace's texts: German first, English second. */
const TEXTS = catalogue(TEXTS_JSON, "pages/texts/workspace.json");

/** A key of the workspace texts. */
export type WsKey = keyof typeof TEXTS;

/** The workspace text `key` in `lang` (an unknown key is shown as it is). */
export function w(l: Lang, key: WsKey): string {
  return pick(TEXTS[key], l);
}

/** Whether `word` (a status, a kind, a field name from data) has a text of its own. */
export function isWsKey(word: string): word is WsKey {
  return isKeyOf(TEXTS, word);
}

/** A word from data (a status, a kind, a field name) in the page's language: its text, or itself. */
export function wordOf(l: Lang, word: string): string {
  return isWsKey(word) ? w(l, word) : word;
}
