/**
 * The values read from documents (`documents/extract.ts`: `angaben`) as the workspace shows them: one table from
 * each key to its German and English label and how its value is written (German numbers, euros, units, dates). A
 * key without an entry is shown as it is, so a new key is visible before it has a label.
 */
import { decimal, euroCents } from "../catalogue/german.ts";
import type { Lang } from "./i18n.ts";

type Value = string | number;

interface Shown {
  label: readonly [string, string];
  /** The value in `l`; numbers in the page's format. */
  show: (v: Value, l: Lang) => string;
}

const asIs = (v: Value) => String(v);
const number = (unit = "") => (v: Value, l: Lang) =>
  typeof v === "number" ? `${decimal(v, l)}${unit}` : String(v);
/** An ISO date (YYYY-MM-DD) as "31.12.2034" (English "31/12/2034"); anything else as it is. */
const date = (v: Value, l: Lang) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(v));
  return m ? [m[3], m[2], m[1]].join(l === "en" ? "/" : ".") : String(v);
};
const KIND: Record<string, readonly [string, string]> = {
  bedarf: ["Bedarfsausweis", "energy demand certificate"],
  verbrauch: ["Verbrauchsausweis", "energy consumption certificate"],
};

/** Every key the documents module reads, with its label and format. */
export const DOCUMENT_VALUES: Record<string, Shown> = {
  zimmer: { label: ["Zimmer", "Rooms"], show: number() },
  wohnflaeche_m2: { label: ["Wohnfläche", "Living area"], show: number(" m²") },
  preis_eur: {
    label: ["Preis", "Price"],
    show: (v, l) => typeof v === "number" ? euroCents(v, l) : String(v),
  },
  ausweisart: {
    label: ["Art des Energieausweises", "Kind of energy certificate"],
    show: (v, l) => KIND[String(v)]?.[l === "en" ? 1 : 0] ?? String(v),
  },
  energieeffizienzklasse: { label: ["Energieeffizienzklasse", "Energy efficiency class"], show: asIs },
  endenergie_kwh_m2a: { label: ["Endenergie", "Final energy"], show: number(" kWh/(m²·a)") },
  energietraeger: { label: ["Wesentlicher Energieträger", "Main energy carrier"], show: asIs },
  // A year is written without a thousands separator.
  baujahr: { label: ["Baujahr", "Year of construction"], show: asIs },
  gueltig_bis: { label: ["Gültig bis", "Valid until"], show: date },
};

/** The label and the written value of one value read from a document. */
export function documentValue(l: Lang, key: string, value: Value): { label: string; text: string } {
  const shown = Object.hasOwn(DOCUMENT_VALUES, key) ? DOCUMENT_VALUES[key] : undefined;
  if (!shown) return { label: key, text: String(value) };
  return { label: shown.label[l === "en" ? 1 : 0], text: shown.show(value, l) };
}
