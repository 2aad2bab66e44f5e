/**
 * The pages' texts in German (default) and English (when the browser prefers English): the language of a request,
 * the texts shared by many pages (`pages/texts/site.json`), and how every text catalogue of the pages is read
 * (docs/architecture.md §3, "Texts").
 */
import SITE_TEXTS from "./texts/site.json" with { type: "json" };

/** A page language. */
export type Lang = "de" | "en";

/** The language of a request: English when the browser's first preferred language is English, else German. */
export function langOf(acceptLanguage: string | undefined): Lang {
  const first = (acceptLanguage ?? "").split(",").map((p) => p.split(";")[0]!.trim().toLowerCase())
    .find((p) => p && p !== "*");
  return first?.startsWith("en") ? "en" : "de";
}

/** A German and an English text, in that order. */
export type TextPair = readonly [string, string];

/** A text catalogue: each key's German and English text. */
export type Catalogue<K extends PropertyKey> = { readonly [k in K]: TextPair };

/**
 * The JSON text catalogue `json` (of file `file`, named in the error) as a typed {@linkcode Catalogue}: checked once,
 * on import, that every entry holds exactly a German and an English text. With `known`, every key must also be a
 * key of `known` (the type checker refuses another, and so does the check on import).
 */
export function catalogue<
  K extends string,
  T extends { readonly [k in keyof T]: k extends K ? readonly string[] : never },
>(json: T, file: string, known?: Readonly<Record<K, unknown>>): Catalogue<keyof T> {
  for (const [key, texts] of Object.entries<readonly string[]>(json)) {
    if (texts.length !== 2) throw new Error(`${file}: "${key}" must be [German, English]`);
    if (known && !Object.hasOwn(known, key)) throw new Error(`${file}: "${key}" is not a known key`);
  }
  return json as unknown as Catalogue<keyof T>;
}

/** Whether `key` names a text of catalogue `texts`. */
export function isKeyOf<C extends Catalogue<string>>(texts: C, key: string): key is keyof C & string {
  return Object.hasOwn(texts, key);
}

/** The text of `pair` in `lang`. */
export function pick(pair: TextPair, lang: Lang): string {
  return pair[lang === "en" ? 1 : 0];
}

const TEXTS = catalogue(SITE_TEXTS, "pages/texts/site.json");

/** A text key. */
export type TextKey = keyof typeof TEXTS;

/** The text `key` in `lang`. */
export function t(lang: Lang, key: TextKey): string {
  return pick(TEXTS[key], lang);
}
