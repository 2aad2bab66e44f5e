/**
 * The words of the location value for people, German and English, shared by the listing page
 * (`pages/baseline_box.tsx`) and the MCP tool's text (`mcp/tools/catalogue.ts`): what the number is per m² of
 * (land for a land value, never the flat's price), the floor-area ratio in words, the rental case in one sentence,
 * and where the data come from.
 */
import { decimal, euroCents, type NumberLang as Lang } from "../catalogue/german.ts";

const TEXT = {
  brwLabel: ["Bodenrichtwert", "Official land value"],
  brwUnit: ["je m² Grundstücksfläche", "per m² of land"],
  brwExplain: [
    "Ein Wert für den Boden je Quadratmeter Grundstück – nicht der Preis je Quadratmeter Wohnfläche dieses Objekts.",
    "A value of the ground per square metre of land – not the price per square metre of floor space of this property.",
  ],
  brwSource: [
    "Quelle: amtlicher Wert des Gutachterausschusses für Grundstückswerte",
    "Source: official value of the land valuation committee (Gutachterausschuss)",
  ],
  inventedLabel: ["Beispielwert", "Sample value"],
  invented: [
    "Beispieldaten – erfundener Wert, kein amtlicher Bodenrichtwert",
    "Sample data – an invented value, not an official land value",
  ],
  cmpLabel: ["Vergleichswert", "Comparable value"],
  cmpUnitBuy: ["je m² Fläche", "per m² of floor space"],
  cmpUnitRent: ["je m² Fläche und Monat", "per m² of floor space and month"],
  cmpExplain: [
    "Median der Angebotspreise vergleichbarer Objekte aus unserem Bestand (ohne erfundene Beispiele).",
    "Median asking price of comparable listings in our own stock (sample listings left out).",
  ],
  none: [
    "Für diese Lage gibt es keine Grundlage für einen Richtwert; wir nennen daher keine Zahl.",
    "There is no basis for a guide value at this location, so we give no number.",
  ],
  rentNone: [
    "Für Mietobjekte nennen wir hier keinen Lagewert, weil es in dieser Lage zu wenige vergleichbare Mietangebote gibt.",
    "We give no location value for this rental, because there are too few comparable rental listings nearby.",
  ],
  stichtag: ["Stichtag", "Reference date"],
  dataSource: ["Datenquelle", "Data source"],
} as const satisfies Record<string, readonly [string, string]>;

/** A text key of the location value. */
export type BaselineKey = keyof typeof TEXT;

/** The text `key` in `l`. */
export function bt(l: Lang, key: BaselineKey): string {
  return TEXT[key][l === "en" ? 1 : 0];
}

/** "1.380 € je m² Grundstücksfläche" (English "€1,380 per m² of land"): a value in euro per m² with its unit. */
export function perSqmText(l: Lang, value: number, unit: BaselineKey): string {
  return `${euroCents(value, l)} ${bt(l, unit)}`;
}

/**
 * The floor-area ratio in words: "Geschossflächenzahl (GFZ) 1,2: Der Wert gilt für Grundstücke, auf denen je 1 m²
 * Grundstück 1,2 m² Geschossfläche gebaut werden dürfen."
 */
export function gfzText(l: Lang, gfz: number): string {
  const n = decimal(gfz, l);
  return l === "en"
    ? `Floor-area ratio (GFZ) ${n}: the value applies to plots on which ${n} m² of floor space may be built per 1 m² of land.`
    : `Geschossflächenzahl (GFZ) ${n}: Der Wert gilt für Grundstücke, auf denen je 1 m² Grundstück ${n} m² Geschossfläche gebaut werden dürfen.`;
}
