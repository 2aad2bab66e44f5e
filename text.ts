/**
 * Text rules of the whole service.
 *
 * Cutting text for output: a plain `.slice(0, n)` can end between the two halves of a surrogate pair (an emoji),
 * leaving an unpaired surrogate that is not valid Unicode text (RFC 8259 §8.2) and renders as garbage. These
 * helpers cut at grapheme cluster boundaries (so never inside a pair, nor inside an emoji sequence or between a
 * letter and its combining mark).
 *
 * The single-line rule ({@linkcode singleLineText}, {@linkcode hasControlCharacter}): every one-line text a
 * caller types (titles, references, names, cities, phone numbers, file names) holds no control character.
 */
import { z } from "zod";

/**
 * The grapheme segmenter, made by the first cut: making one loads ICU's break data (about 35 ms), which a process
 * started for a request that cuts nothing should not wait for (docs/architecture.md §11.17).
 */
let graphemes: Intl.Segmenter | undefined;

/** `text` cut to at most `max` UTF-16 code units at a grapheme boundary; `text` itself when it fits. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
  graphemes ??= new Intl.Segmenter("de", { granularity: "grapheme" });
  return text.slice(0, graphemes.segment(text).containing(max)?.index ?? max);
}

/**
 * The path (`a.b[2]`) of the first string inside `value` that holds a NUL character, or undefined. Postgres text
 * cannot store NUL, so input carrying one is refused before it reaches the database.
 */
export function nulPath(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.includes("\0") ? path || "value" : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = nulPath(v, `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const found = nulPath(v, path ? `${path}.${k}` : k);
      if (found) return found;
    }
  }
  return undefined;
}

/** `text` shortened to at most `max` code units, ending in `…` when something was cut (see {@linkcode truncate}). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${truncate(text, max - 1)}…`;
}

const CONTROL = /\p{Cc}/u;

/**
 * Whether `text` holds a control character (Unicode category Cc: the C0 controls with NUL, tab, line feed and
 * carriage return; DEL; the C1 controls): what a single-line field refuses.
 */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * The schema of a single-line text field: trimmed, 1 to `max` UTF-16 code units, no control character (so no line
 * break and no tab; NUL, which Postgres cannot store, is one too), valid Unicode (no unpaired surrogate, which JSON
 * can carry but Postgres cannot store). Its messages name what is wrong.
 */
export function singleLineText(max: number) {
  return z.string().trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !hasControlCharacter(s), "must not contain control characters")
    .refine((s) => s.isWellFormed(), "must be valid Unicode text");
}
