/**
 * The words of the location value for people, German and English, shared by the listing page
 * (`pages/baseline_box.tsx`) and the MCP tool's text (`mcp/tools/catalogue.ts`): what the number is per m² of
 * (land for a land value, never the flat's price), the floor-area ratio in words, the rental case in one sentence,
 * and where the data come from.
 */
import { decimal, euroCents, type NumberLang as Lang } from "../catalogue/german.ts";
import WORDS from "./baseline_words.json" with { type: "json" };

/** The words, German and English (`valuation/baseline_words.json`), checked on import to be two texts each. */
const TEXT = WORDS as unknown as { readonly [k in keyof typeof WORDS]: readonly [string, string] };
for (const [key, texts] of Object.entries(WORDS)) {
  if (texts.length !== 2) {
    throw new Error(`valuation/baseline_words.json: "${key}" must be [German, English]`);
  }
}

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
