/**
 * The 16 German federal states (Länder): two-letter codes and German names.
 *
 * @module
 */

/** Two-letter code of a German federal state (the ISO 3166-2:DE suffix). */
export type StateCode =
  | "BW"
  | "BY"
  | "BE"
  | "BB"
  | "HB"
  | "HH"
  | "HE"
  | "MV"
  | "NI"
  | "NW"
  | "RP"
  | "SL"
  | "SN"
  | "ST"
  | "SH"
  | "TH";

/** German name of every state, keyed by its code. */
export const STATE_NAMES: Record<StateCode, string> = {
  BW: "Baden-Württemberg",
  BY: "Bayern",
  BE: "Berlin",
  BB: "Brandenburg",
  HB: "Bremen",
  HH: "Hamburg",
  HE: "Hessen",
  MV: "Mecklenburg-Vorpommern",
  NI: "Niedersachsen",
  NW: "Nordrhein-Westfalen",
  RP: "Rheinland-Pfalz",
  SL: "Saarland",
  SN: "Sachsen",
  ST: "Sachsen-Anhalt",
  SH: "Schleswig-Holstein",
  TH: "Thüringen",
};

/** All 16 state codes, in the order of `STATE_NAMES`. */
export const STATE_CODES: readonly StateCode[] = Object.keys(STATE_NAMES) as StateCode[];

/** True when `s` is one of the 16 state codes. */
export function isStateCode(s: string): s is StateCode {
  return Object.hasOwn(STATE_NAMES, s);
}

/** States whose expert committees do not release their land values for reuse (docs/contract.md §3.3). */
export const NON_RELEASING_STATES: ReadonlySet<StateCode> = new Set<StateCode>(["BW", "SL", "SH", "BY"]);

/** The state of a municipality key (AGS/ARS): its first two digits 01 … 16 → state code. */
export const STATE_BY_KEY_PREFIX: Readonly<Record<string, StateCode>> = {
  "01": "SH",
  "02": "HH",
  "03": "NI",
  "04": "HB",
  "05": "NW",
  "06": "HE",
  "07": "RP",
  "08": "BW",
  "09": "BY",
  "10": "SL",
  "11": "BE",
  "12": "BB",
  "13": "MV",
  "14": "SN",
  "15": "ST",
  "16": "TH",
};
