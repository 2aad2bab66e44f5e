/**
 * Why a form was refused, in the page's language: one typed table from the stable reasons of `errors.ts`
 * (`ERROR_REASONS`) to German and English sentences. Pages translate the reason of an `AppError`, never its English
 * `detail`. A reason without an entry falls back to a general sentence, so a new reason never shows English.
 */
import type { ErrorFacts, ErrorReason } from "../errors.ts";
import { MAX_SLOT_MS } from "../viewings/slots.ts";
import type { Lang } from "./i18n.ts";

const SLOT_HOURS = MAX_SLOT_MS / 3_600_000;

/** The German and English sentence of each reason a workspace form can meet. */
const REASON_TEXTS: Partial<Record<ErrorReason, readonly [string, string]>> = {
  // input
  missing: ["Bitte ausfüllen.", "Please fill this in."],
  too_long: ["Der Text ist zu lang.", "The text is too long."],
  control_character: [
    "Bitte eine Zeile ohne Steuerzeichen.",
    "Please use one line without control characters.",
  ],
  not_an_email: ["Das ist keine E-Mail-Adresse.", "This is not an e-mail address."],
  not_a_timestamp: ["Bitte Datum und Uhrzeit angeben.", "Please give a date and a time."],
  not_in_future: ["Der Beginn liegt in der Vergangenheit.", "The start is in the past."],
  before_start: ["Das Ende liegt vor dem Beginn.", "The end is before the start."],
  too_far_apart: [
    `Ein Termin dauert höchstens ${SLOT_HOURS} Stunden.`,
    `A slot lasts at most ${SLOT_HOURS} hours.`,
  ],
  out_of_range: ["Der Wert liegt außerhalb des erlaubten Bereichs.", "The value is out of range."],
  empty: ["Die Datei ist leer.", "The file is empty."],
  broken_file: ["Die Datei lässt sich nicht lesen.", "The file cannot be read."],
  invalid: ["Der Wert ist ungültig.", "The value is not valid."],
  // conflicts
  missing_for_publication: ["Für die Veröffentlichung fehlen:", "Missing for publication:"],
  reserve_needs_published: [
    "Nur ein veröffentlichtes Objekt kann reserviert werden.",
    "Only a published listing can be reserved.",
  ],
  listing_unavailable: ["Das Objekt ist nicht verfügbar:", "The listing is not available:"],
  slot_cancelled: ["Der Termin ist abgesagt.", "The slot is cancelled."],
  proposal_decided: ["Der Vorschlag ist schon erledigt.", "The proposal has already been decided."],
  reference_taken: [
    "Diese Referenz hat schon ein anderes Objekt Ihres Büros.",
    "Another listing of your office has this reference.",
  ],
  inquiry_closed: ["Die Anfrage ist abgelehnt oder geschlossen.", "The inquiry is rejected or closed."],
  slot_begun: ["Der Termin hat schon begonnen.", "The slot has already begun."],
  slot_full: ["Der Termin ist ausgebucht.", "The slot is fully booked."],
  too_many: ["Die Höchstzahl ist erreicht.", "The limit is reached."],
};

/**
 * The sentence of a refusal's reason in `l`, followed by what it names (fields or statuses, through `word`), or
 * undefined when the reason has no sentence of its own.
 */
export function reasonText(l: Lang, facts: ErrorFacts, word: (name: string) => string): string | undefined {
  const text = facts.reason && REASON_TEXTS[facts.reason];
  if (!text) return undefined;
  const said = text[l === "en" ? 1 : 0];
  const named = (facts.names ?? []).map(word).join(", ");
  return named ? `${said} ${named}.` : said;
}
