/**
 * The German words and the number and euro formats of every text about listings and filters (MCP texts, agent
 * drafts, saved searches, the pages in German or English): one rule per use.
 *
 * - Purchase prices: whole euros ({@linkcode euro}), "485.000 €".
 * - Every other euro amount, where a cent can matter: monthly rents, prices of unknown kind, values per m², filter
 *   bounds ({@linkcode euroCents}, {@linkcode euroPerSqm}): to the cent, the cents shown only when they are not
 *   zero, "812,50 €", "800 €", "12,50 €/m²".
 * - Rooms, areas, counts, floor-area ratios ({@linkcode decimal}): at most two decimals, "2,5", "1.234,57".
 *
 * Amounts are rounded half away from zero; an unknown value (null, undefined, NaN, ±Infinity) gives "". Between
 * the amount and "€" stands a no-break space (U+00A0), as the locale formats it.
 */
import type { SearchFilters } from "./filters.ts";
import type { Listing } from "./listing.ts";

/** The language of a rendering: German, or English for the English pages. */
export type NumberLang = "de" | "en";

/** German names of the property types of docs/contract.md §2.1. */
export const PROPERTY_TYPE_DE: Record<NonNullable<Listing["property_type"]>, string> = {
  apartment: "Wohnung",
  house: "Haus",
  land: "Grundstück",
  commercial: "Gewerbeobjekt",
};

const LOCALE: Record<NumberLang, string> = { de: "de-DE", en: "en-GB" };

function formats(locale: string) {
  const money = { style: "currency", currency: "EUR", signDisplay: "negative" } as const;
  return {
    whole: new Intl.NumberFormat(locale, { ...money, maximumFractionDigits: 0 }),
    cents: new Intl.NumberFormat(locale, { ...money, minimumFractionDigits: 2, maximumFractionDigits: 2 }),
    decimal: new Intl.NumberFormat(locale, { maximumFractionDigits: 2, signDisplay: "negative" }),
    form: new Intl.NumberFormat(locale, { maximumFractionDigits: 6 }),
  };
}

const FORMATS = { de: formats(LOCALE.de), en: formats(LOCALE.en) };

function known(v: number | null | undefined): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

/** Whole euros, for purchase prices: "485.000 €" (English "€485,000"); "" when unknown. */
export function euro(v: number | null | undefined, lang: NumberLang = "de"): string {
  return known(v) ? FORMATS[lang].whole.format(v) : "";
}

/** Euros to the cent, cents only when not zero: "812,50 €", "800 €" (English "€812.50"); "" when unknown. */
export function euroCents(v: number | null | undefined, lang: NumberLang = "de"): string {
  if (!known(v)) return "";
  const cents = Math.sign(v) * Math.round(Math.abs(v) * 100);
  return cents % 100 === 0
    ? FORMATS[lang].whole.format(cents / 100)
    : FORMATS[lang].cents.format(cents / 100);
}

/** A value in euro per m², to the cent: "12,50 €/m²", "450 €/m²"; "" when unknown. */
export function euroPerSqm(v: number | null | undefined, lang: NumberLang = "de"): string {
  return known(v) ? `${euroCents(v, lang)}/m²` : "";
}

/** A number with at most two decimals: "2,5", "1.234,57" (English "1,234.57"); "" when unknown. */
export function decimal(v: number | null | undefined, lang: NumberLang = "de"): string {
  return known(v) ? FORMATS[lang].decimal.format(v) : "";
}

/**
 * A number as a form shows it back, read back as the same number by {@linkcode readFormNumber}: up to six decimals,
 * grouped ("500.000", "2,5", "1.234,567"; English "500,000"). Exactly three decimals and no grouping would read as
 * thousands ("2,125" is 2125), so such a number gets a fourth digit ("2,1250").
 */
export function formDecimal(v: number, lang: NumberLang = "de"): string {
  const text = FORMATS[lang].form.format(v);
  return !Number.isInteger(v) && /^-?[0-9]+[.,][0-9]{3}$/.test(text) ? `${text}0` : text;
}

/** A listing's asked price: whole euros for a purchase, to the cent for a rent or an unknown kind; "" if none. */
export function askedPrice(
  price: number | null | undefined,
  transaction: Listing["transaction_type"] | undefined,
  lang: NumberLang = "de",
): string {
  return transaction === "buy" ? euro(price, lang) : euroCents(price, lang);
}

/**
 * A listing's asked price per m² of its area (purchase price or monthly net rent, divided by the area; for land
 * the plot area), or null when either is unknown or the area is 0. The sort order `price_per_sqm_asc`
 * (`sort.ts`) orders by the same quotient.
 */
export function pricePerSqm(l: Pick<Listing, "asked_price" | "square_meters">): number | null {
  return l.asked_price === null || l.square_meters === null || l.square_meters <= 0
    ? null
    : l.asked_price / l.square_meters;
}

/**
 * {@linkcode pricePerSqm} as text: whole euros for a purchase ("5.736 €/m²"), to the cent for a rent or an
 * unknown kind ("12,50 €/m²"); "" when unknown.
 */
export function pricePerSqmText(
  l: Pick<Listing, "asked_price" | "square_meters" | "transaction_type">,
  lang: NumberLang = "de",
): string {
  const v = pricePerSqm(l);
  if (v === null) return "";
  return l.transaction_type === "buy" ? `${euro(v, lang)}/m²` : euroPerSqm(v, lang);
}

/** "Wohnung zum Kauf in 50823 Köln": the kind, the deal and the place of a listing. */
export function kindDealPlace(l: Listing): { kind: string; deal: string; place: string } {
  return {
    kind: l.property_type ? PROPERTY_TYPE_DE[l.property_type] : "Objekt",
    deal: l.transaction_type === "buy" ? " zum Kauf" : l.transaction_type === "rent" ? " zur Miete" : "",
    place: [l.postal_code, l.city].filter(Boolean).join(" "),
  };
}

/** A short German rendering of filters, e.g. "Köln, Kauf, Wohnung, bis 500.000 €"; "keine Filter" when empty. */
export function filtersText(f: SearchFilters): string {
  const parts = [
    f.city,
    f.transaction_type === "buy" ? "Kauf" : f.transaction_type === "rent" ? "Miete" : undefined,
    f.property_type ? PROPERTY_TYPE_DE[f.property_type] : undefined,
    f.min_price !== undefined ? `ab ${euroCents(f.min_price)}` : undefined,
    f.max_price !== undefined ? `bis ${euroCents(f.max_price)}` : undefined,
    f.min_rooms !== undefined ? `ab ${decimal(f.min_rooms)} Zimmer` : undefined,
    f.min_sqm !== undefined ? `ab ${decimal(f.min_sqm)} m²` : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length ? parts.join(", ") : "keine Filter";
}

/**
 * A number as a person types it into a form field, German or English style, read by one rule:
 *
 * - Spaces (also no-break spaces) and a trailing "€" are ignored; no sign, no exponent.
 * - Both "." and "," present: the last one is the decimal separator, the other separates thousands ("500.000,50"
 *   and "500,000.50" are 500000.5); thousands groups must have three digits.
 * - One kind of separator, several times: thousands separators ("1.000.000", "1,000,000").
 * - One separator once: followed by exactly three digits it separates thousands ("500.000", "2,500" = 2500);
 *   otherwise it is the decimal point ("2,5", "1.5", "812,50").
 * - At most six decimals.
 *
 * Returns the number and its plain decimal text ("500000.5", what `catalogue/filters.ts` reads), or undefined
 * when the text is not a number by this rule.
 */
export function readFormNumber(input: string): { value: number; text: string } | undefined {
  const s = input.replace(/[\s\u00a0\u202f]/g, "").replace(/€$/, "");
  if (!/^[0-9][0-9.,]*$/.test(s) || /[.,]$/.test(s)) return undefined;
  const split = splitNumber(s);
  if (!split) return undefined;
  const [whole, fraction] = split;
  if (fraction.length > 6) return undefined;
  const text = fraction ? `${whole}.${fraction}` : whole;
  return { value: Number(text), text };
}

/**
 * A form field's number: null when empty, NaN when it is none. Amounts, rooms and areas follow
 * {@linkcode readFormNumber} ("365.000", "350.000,50", "72,5"); `plain` (coordinates: "48.137", "48,137", "-3.5")
 * reads its one separator as the decimal point.
 */
export function numberOfInput(raw: string, plain = false): number | null {
  const s = raw.trim();
  if (s === "") return null;
  if (!plain) return readFormNumber(s)?.value ?? NaN;
  const t = s.replace(",", ".");
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
}

/** The whole digits and the decimal digits of a number text by the rule of {@linkcode readFormNumber}. */
function splitNumber(s: string): [string, string] | undefined {
  const dot = s.lastIndexOf(".");
  const comma = s.lastIndexOf(",");
  if (dot < 0 && comma < 0) return [s, ""];
  if (dot >= 0 && comma >= 0) {
    const at = Math.max(dot, comma);
    return withFraction(groupedDigits(s.slice(0, at), dot > comma ? "," : "."), s.slice(at + 1));
  }
  const sep = dot >= 0 ? "." : ",";
  const parts = s.split(sep);
  if (parts.length > 2 || parts[1]!.length === 3) return withFraction(groupedDigits(s, sep), "");
  return withFraction(parts[0], parts[1]!);
}

/** `[whole, fraction]` when both are digits only (the fraction may be empty), else undefined. */
function withFraction(whole: string | undefined, fraction: string): [string, string] | undefined {
  return whole !== undefined && /^[0-9]+$/.test(whole) && /^[0-9]*$/.test(fraction)
    ? [whole, fraction]
    : undefined;
}

/** `s` without its thousands separators `sep`, or undefined unless the first group has 1–3 digits, the others 3. */
function groupedDigits(s: string, sep: string): string | undefined {
  const [first, ...rest] = s.split(sep);
  if (!/^[0-9]{1,3}$/.test(first!) || rest.some((g) => !/^[0-9]{3}$/.test(g))) return undefined;
  return [first, ...rest].join("");
}
