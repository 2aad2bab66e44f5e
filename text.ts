/**
 * Cutting text for output. A plain `.slice(0, n)` can end between the two halves of a surrogate pair (an emoji),
 * leaving an unpaired surrogate that is not valid Unicode text (RFC 8259 §8.2) and renders as garbage. These
 * helpers cut at grapheme cluster boundaries (so never inside a pair, nor inside an emoji sequence or between a
 * letter and its combining mark).
 */

const graphemes = new Intl.Segmenter("de", { granularity: "grapheme" });

/** `text` cut to at most `max` UTF-16 code units at a grapheme boundary; `text` itself when it fits. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
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
