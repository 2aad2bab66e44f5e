/**
 * The texts the service's agent drafts, rule-based and deterministic (no outside AI service): an office template
 * (or the built-in German default) with its placeholders filled from the inquiry, the listing's facts and the
 * listing's free viewing slots. Pure functions; times are shown in German local time (Europe/Berlin).
 *
 * Placeholders: {anrede} ("Guten Tag <name>," or "Guten Tag,"), {name}, {titel} (the title in quotes, or "unserem
 * Objekt"), {ort}, {preis}, {zimmer}, {flaeche}, {fakten} (one sentence of the known facts), {termine} (the free
 * slots, or an offer to arrange one), {buero} (the office's name), {verfuegbarkeit} (rejection: "nicht mehr
 * verfügbar" or "bereits reserviert"). Any other text in braces stays as written.
 */
import { askedPrice, decimal } from "../catalogue/german.ts";
import { clockDe } from "../viewings/text.ts";
import { clip } from "../text.ts";
import type { DraftFacts } from "../db/proposals.ts";

/** Longest template an office may store, in characters. */
export const TEMPLATE_MAX = 4000;
/** Longest drafted text (the limit of an inquiry message). */
export const DRAFT_MAX = 10_000;
/** How many free viewing slots a reply names at most. */
export const SLOTS_IN_REPLY = 5;

/** The built-in template of a reply draft. */
export const DEFAULT_REPLY_TEMPLATE = "{anrede}\n\n" +
  "vielen Dank für Ihre Anfrage zu {titel}. {fakten}\n\n" +
  "{termine}\n\n" +
  "Mit freundlichen Grüßen\n{buero}";

/** The built-in template of a rejection draft. */
export const DEFAULT_REJECTION_TEMPLATE = "{anrede}\n\n" +
  "vielen Dank für Ihr Interesse an {titel}. Leider ist das Objekt {verfuegbarkeit}, daher können wir Ihre " +
  "Anfrage nicht weiter berücksichtigen.\n\n" +
  "Mit freundlichen Grüßen\n{buero}";

/** Why a listing no longer takes inquiries. */
export type Unavailability = "withdrawn" | "reserved";

/** The facts a draft is made from, as `findDraftSource` (db/proposals.ts) reads them. */
export type { DraftFacts } from "../db/proposals.ts";

/** A free viewing slot as a reply names it. */
export interface DraftSlot {
  start: Date;
  end: Date;
  free: number;
}

const DAY = new Intl.DateTimeFormat("de-DE", {
  timeZone: "Europe/Berlin",
  weekday: "long",
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
});

/** The price as German text: purchase price, monthly cold rent, or a plain price; "" when unknown. */
export function priceText(f: Pick<DraftFacts, "askedPrice" | "transactionType">): string {
  const eur = askedPrice(f.askedPrice, f.transactionType);
  if (eur === "") return "";
  if (f.transactionType === "rent") return `Kaltmiete ${eur} monatlich`;
  if (f.transactionType === "buy") return `Kaufpreis ${eur}`;
  return `Preis ${eur}`;
}

/** The place as German text: postal code and city, either, or "". */
export function placeText(f: Pick<DraftFacts, "city" | "postalCode">): string {
  return [f.postalCode, f.city].filter((s): s is string => !!s).join(" ");
}

/** One sentence of the listing's known facts (rooms, area, price, place); "" when none is known. */
export function factsSentence(f: DraftFacts): string {
  const place = placeText(f);
  const parts = [
    f.totalRooms === null ? "" : `${decimal(f.totalRooms)} Zimmer`,
    f.squareMeters === null ? "" : `${decimal(f.squareMeters)} m² Wohnfläche`,
    priceText(f),
    place === "" ? "" : `Lage ${place}`,
  ].filter((s) => s !== "");
  return parts.length === 0 ? "" : `Eckdaten: ${parts.join(", ")}.`;
}

/** One free slot as German text, e.g. "Montag, 05.10.2026, 14:00–15:00 Uhr (noch 3 Plätze frei)". */
export function slotText(s: DraftSlot): string {
  const places = s.free === 1 ? "noch 1 Platz frei" : `noch ${s.free} Plätze frei`;
  return `${DAY.format(s.start)}, ${clockDe(s.start)}–${clockDe(s.end)} Uhr (${places})`;
}

/** The {termine} paragraph: the free slots as a list, or an offer to arrange a viewing. */
export function slotsParagraph(slots: DraftSlot[]): string {
  if (slots.length === 0) return "Gern vereinbaren wir einen Besichtigungstermin mit Ihnen.";
  return ["Freie Besichtigungstermine:", ...slots.map((s) => `- ${slotText(s)}`)].join("\n");
}

const PLACEHOLDER = /\{([a-z]+)\}/g;

/** Fills the known placeholders of `template` from `values`; unknown ones stay; surplus blank lines go. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  const filled = template.replace(PLACEHOLDER, (all, key: string) => values[key] ?? all);
  const tidy = filled.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
  return clip(tidy, DRAFT_MAX);
}

/** The placeholder values of a draft about `f`. */
function values(f: DraftFacts): Record<string, string> {
  return {
    anrede: f.name ? `Guten Tag ${f.name},` : "Guten Tag,",
    name: f.name ?? "",
    titel: f.title ? `„${f.title}“` : "unserem Objekt",
    ort: placeText(f),
    preis: priceText(f),
    zimmer: f.totalRooms === null ? "" : decimal(f.totalRooms),
    flaeche: f.squareMeters === null ? "" : `${decimal(f.squareMeters)} m²`,
    fakten: factsSentence(f),
    buero: f.officeName,
  };
}

/** The reply draft to an inquiry: `template` (or the default) filled with the facts and the free slots. */
export function replyDraft(template: string | undefined, f: DraftFacts, slots: DraftSlot[]): string {
  return fillTemplate(template ?? DEFAULT_REPLY_TEMPLATE, { ...values(f), termine: slotsParagraph(slots) });
}

/** The rejection draft to an inquiry about a listing that is `why` (withdrawn or reserved). */
export function rejectionDraft(template: string | undefined, f: DraftFacts, why: Unavailability): string {
  return fillTemplate(template ?? DEFAULT_REJECTION_TEMPLATE, {
    ...values(f),
    termine: "",
    verfuegbarkeit: why === "reserved" ? "bereits reserviert" : "nicht mehr verfügbar",
  });
}
