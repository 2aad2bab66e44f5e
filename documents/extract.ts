/**
 * Pure, deterministic reading of a document's text: what kind of document it is and the `angaben` it states.
 * German forms: decimals with a comma ("112,5"), thousands with a dot ("350.000 €"), dates as "31.12.2034".
 * A value is only reported when the text states it unambiguously next to its label; otherwise it is omitted.
 */
import type { Angaben, FileSorte } from "../db/files.ts";
import { truncate } from "../text.ts";

/** Normalises extracted PDF text: unified spaces, no empty lines, at most `max` characters. */
export function normaliseText(text: string, max = 200_000): string {
  return truncate(text, max).replace(/[\u00a0\u2007\u202f\t]/g, " ").replace(/ {2,}/g, " ")
    .replace(/\s*\n\s*/g, "\n").trim();
}

/**
 * A German (or plain) number: "112,5" → 112.5, "350.000" → 350000, "1.250,50" → 1250.5, "98.5" → 98.5;
 * undefined when `s` is not one.
 */
export function parseGermanNumber(s: string): number | undefined {
  const t = s.trim();
  let n: number;
  if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(t)) n = Number(t.replaceAll(".", "").replace(",", "."));
  else if (/^\d+(,\d+)?$/.test(t)) n = Number(t.replace(",", "."));
  else if (/^\d+\.\d{1,2}$/.test(t)) n = Number(t);
  else return undefined;
  return Number.isFinite(n) ? n : undefined;
}

const NUMBER = String.raw`\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)?`;

const ENERGY_TITLE = /energieausweis\s+f[uü]r\s+(?:nicht)?wohngeb[aä]ude/iu;
const ENERGY_WORD = /energie(?:bedarfs|verbrauchs)?ausweis/iu;
const BROCHURE =
  /expos[eé]|kaufpreis|kaltmiete|wohnfl[aä]che[^\n]*\n?[^\n]*zimmer|zimmer[^\n]*\n?[^\n]*wohnfl[aä]che/iu;

/**
 * What the text says the document is: the title of an energy certificate decides first; then a brochure's marks
 * (Exposé, price or rent, living area with rooms), since brochures must also mention their energy certificate;
 * then the word "Energieausweis"; else neither.
 */
export function classifyText(text: string): FileSorte {
  if (ENERGY_TITLE.test(text)) return "energy_certificate";
  if (BROCHURE.test(text)) return "brochure";
  if (ENERGY_WORD.test(text)) return "energy_certificate";
  return "other";
}

/** The values of `text` read as document kind `sorte` (an "other" document states none). */
export function extractAngaben(text: string, sorte: FileSorte): Angaben {
  if (sorte === "energy_certificate") return energyCertificate(text);
  if (sorte === "brochure") return brochure(text);
  return {};
}

/** Removes the entries whose value is undefined. */
function defined(o: Record<string, string | number | undefined>): Angaben {
  const out: Angaben = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** The values of an energy certificate (GEG form). */
export function energyCertificate(text: string): Angaben {
  const end = endenergie(text);
  return defined({
    ausweisart: end?.art ?? ausweisart(text),
    energieeffizienzklasse: effizienzklasse(text),
    endenergie_kwh_m2a: end?.value,
    energietraeger: energietraeger(text),
    baujahr: baujahr(text),
    gueltig_bis: gueltigBis(text),
  });
}

/** Label → number gap: up to `n` characters without a digit (a line break included). */
const gap = (n: number) => String.raw`[^\d]{0,${n}}?`;
/** Horizontal space only. */
const SP = String.raw`[^\S\n]*`;

/** `bedarf` or `verbrauch` as the certificate's title names it ("Bedarfsausweis", "Energieverbrauchsausweis"). */
function ausweisart(text: string): string | undefined {
  const m = /(bedarfs|verbrauchs)(?:orientierter\s+energie)?ausweis/iu.exec(text);
  if (!m) return undefined;
  return m[1]!.toLowerCase().startsWith("bedarf") ? "bedarf" : "verbrauch";
}

/** The energy efficiency class A+ … H (the letter is case-sensitive: "des Gebäudes" is no class). */
function effizienzklasse(text: string): string | undefined {
  const m =
    /effizienzklasse(?:[^\S\n]+(?:des|dieses)[^\S\n]+geb[aä]udes)?[^\S\n]*:?\s*(A\+|[A-H])(?![\p{L}\d+])/iu
      .exec(text);
  const c = m?.[1];
  return c && c === c.toUpperCase() ? c : undefined;
}

/**
 * The final energy demand or consumption in kWh/(m²·a): the first number with that unit after the label; its
 * label also tells which kind of certificate it is (the one whose value is filled in).
 */
function endenergie(text: string): { art: string; value: number } | undefined {
  const m = new RegExp(
    String.raw`endenergie(bedarf|verbrauch)${gap(80)}(${NUMBER})${SP}kWh${SP}/${SP}\(?${SP}m${SP}[²2]`,
    "iu",
  ).exec(text);
  if (!m) return undefined;
  const n = parseGermanNumber(m[2]!);
  if (n === undefined || n >= 10_000) return undefined;
  return { art: m[1]!.toLowerCase(), value: n };
}

/** Canonical names of the main energy carriers with the words that name them. */
const CARRIERS: Array<[string, RegExp]> = [
  ["Wärmepumpe", /w[aä]rmepumpe/iu],
  ["Fernwärme", /fern-?\s?w[aä]rme|nahw[aä]rme/iu],
  ["Holz/Pellets", /pellet|holz|hackschnitzel/iu],
  ["Öl", /heiz[oö]l|(?<!\p{L})[oö]l(?!\p{L})/iu],
  ["Gas", /erdgas|fl[uü]ssiggas|(?<!\p{L})gas(?!\p{L})/iu],
  ["Strom", /strom/iu],
  ["Solar", /solar/iu],
  ["Kohle", /kohle/iu],
];

/** The canonical carrier named earliest in `s`, or undefined. */
function carrierIn(s: string): string | undefined {
  let best: { name: string; at: number } | undefined;
  for (const [name, re] of CARRIERS) {
    const at = s.search(re);
    if (at >= 0 && (!best || at < best.at)) best = { name, at };
  }
  return best?.name;
}

/** The main energy carrier by its canonical name (label line, else the next line); else the stated text. */
function energietraeger(text: string): string | undefined {
  const m = /energietr[aä]ger([^\n]*)(?:\n([^\n]*))?/iu.exec(text);
  if (!m) return undefined;
  const line = m[1]!;
  const found = carrierIn(line) ?? carrierIn(m[2] ?? "");
  if (found) return found;
  const stated = line.includes(":") ? line.slice(line.indexOf(":") + 1).trim() : "";
  return stated.length > 0 ? truncate(stated, 60) : undefined;
}

/** The year of construction (of the building; the first one stated). */
function baujahr(text: string): number | undefined {
  const m = /baujahr(?:\s+(?:des\s+)?geb[aä]ude[s]?)?\s*:?\s*(\d{4})(?!\d)/iu.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  return y >= 1000 && y <= 2100 ? y : undefined;
}

/** The ISO date (YYYY-MM-DD) of "gültig bis 31.12.2034"; undefined when it is no real date. */
function gueltigBis(text: string): string | undefined {
  const m = /g[uü]ltig\s+bis\s*:?\s*(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4})(?!\d)/iu.exec(text);
  if (!m) return undefined;
  const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) {
    return undefined;
  }
  return date.toISOString().slice(0, 10);
}

/** The values of a brochure (Exposé): rooms, living area, price when stated. */
export function brochure(text: string): Angaben {
  return defined({ zimmer: zimmer(text), wohnflaeche_m2: wohnflaeche(text), preis_eur: preis(text) });
}

/** The number of rooms: "3,5 Zimmer", "3-Zimmer-Wohnung" or "Zimmer: 4" (not "Schlafzimmer: 2"). */
function zimmer(text: string): number | undefined {
  const count = String.raw`\d{1,2}(?:[.,]5)?`;
  const m = new RegExp(String.raw`(?<![\d.,])(${count})${SP}-?${SP}Zimmer`, "iu").exec(text) ??
    new RegExp(String.raw`(?<!\p{L})Zimmer(?:anzahl)?${SP}:?\s*(${count})(?![\d.,])`, "iu").exec(text);
  const n = m ? parseGermanNumber(m[1]!) : undefined;
  return n !== undefined && n > 0 && n <= 99 ? n : undefined;
}

/** The living area in m²: "Wohnfläche: ca. 84,5 m²" or "84,5 m² Wohnfläche". */
function wohnflaeche(text: string): number | undefined {
  const unit = String.raw`${SP}(?:m²|m2|qm)`;
  const m = new RegExp(String.raw`Wohnfl[aä]che${gap(30)}(${NUMBER})${unit}`, "iu").exec(text) ??
    new RegExp(String.raw`(${NUMBER})${unit}${SP}Wohnfl[aä]che`, "iu").exec(text);
  const n = m ? parseGermanNumber(m[1]!) : undefined;
  return n !== undefined && n > 0 && n < 100_000 ? n : undefined;
}

/** The price in euros after a price label (not a price per m²), with € / EUR / Euro before or after it. */
function preis(text: string): number | undefined {
  const label = String
    .raw`(?<!\p{L})(?:Kaufpreis|Angebotspreis|Kaltmiete|Warmmiete|Gesamtmiete|Mietpreis|Miete|Preis)`;
  const cur = String.raw`(?:€|EUR(?!\p{L})|Euro(?!\p{L}))`;
  const notPerUnit = String.raw`(?!${SP}(?:/|pro\s|je\s))`;
  const m = new RegExp(String.raw`${label}${gap(30)}(${NUMBER})${SP}${cur}${notPerUnit}`, "iu").exec(text) ??
    new RegExp(String.raw`${label}[^\d€]{0,30}?${cur}${SP}(${NUMBER})(?![\d.,])${notPerUnit}`, "iu").exec(
      text,
    );
  const n = m ? parseGermanNumber(m[1]!) : undefined;
  return n !== undefined && n >= 0 ? n : undefined;
}
