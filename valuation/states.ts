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

/**
 * The bounding box of every state as `[minLat, minLng, maxLat, maxLng]`, rounded outwards to 0.01°, from the
 * state borders of `data/state_borders.json` (coastal and lake waters included).
 */
export const STATE_BOUNDS: Readonly<Record<StateCode, readonly [number, number, number, number]>> = {
  BW: [47.53, 7.51, 49.8, 10.5],
  BY: [47.27, 8.97, 50.57, 13.84],
  BE: [52.33, 13.08, 52.68, 13.77],
  BB: [51.35, 11.26, 53.56, 14.77],
  HB: [53.01, 8.48, 53.62, 9],
  HH: [53.39, 8.1, 54.03, 10.33],
  HE: [49.39, 7.77, 51.66, 10.24],
  MV: [53.11, 10.59, 54.89, 14.42],
  NI: [51.29, 6.34, 54.14, 11.6],
  NW: [50.32, 5.86, 52.54, 9.47],
  RP: [48.96, 6.11, 50.95, 8.51],
  SL: [49.11, 6.35, 49.64, 7.41],
  SN: [50.17, 11.87, 51.69, 15.05],
  ST: [50.93, 10.56, 53.05, 13.19],
  SH: [53.35, 7.52, 55.1, 11.68],
  TH: [50.2, 9.87, 51.65, 12.66],
};
