/**
 * Why a form was refused, in the page's language: one typed table from the stable reasons of `errors.ts`
 * (`ERROR_REASONS`) to German and English sentences. Pages translate the reason of an `AppError`, never its English
 * `detail`. A reason without an entry falls back to a general sentence, so a new reason never shows English.
 */
import { ERROR_REASONS, type ErrorFacts, type ErrorReason } from "../errors.ts";
import { MAX_SLOT_MS } from "../viewings/slots.ts";
import { type Catalogue, catalogue, type Lang, pick } from "./i18n.ts";
import REASONS_JSON from "./texts/error_reasons.json" with { type: "json" };

const SLOT_HOURS = MAX_SLOT_MS / 3_600_000;

/**
 * The German and English sentence of each reason a workspace form can meet: `pages/texts/error_reasons.json`, and
 * here the one with a computed number.
 */
const REASON_TEXTS: Partial<Catalogue<ErrorReason>> = {
  ...catalogue(REASONS_JSON, "pages/texts/error_reasons.json", ERROR_REASONS),
  too_far_apart: [
    `Ein Termin dauert höchstens ${SLOT_HOURS} Stunden.`,
    `A slot lasts at most ${SLOT_HOURS} hours.`,
  ],
};

/**
 * The sentence of a refusal's reason in `l`, followed by what it names (fields or statuses, through `word`), or
 * undefined when the reason has no sentence of its own.
 */
export function reasonText(l: Lang, facts: ErrorFacts, word: (name: string) => string): string | undefined {
  const text = facts.reason && REASON_TEXTS[facts.reason];
  if (!text) return undefined;
  const said = pick(text, l);
  const named = (facts.names ?? []).map(word).join(", ");
  return named ? `${said} ${named}.` : said;
}
