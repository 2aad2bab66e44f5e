/**
 * Reading attribute values of land-value files: numbers (decimal point, decimal comma, German thousands),
 * dates (ISO, `DD.MM.YYYY`, dBase dates), the use and development codes in their state-specific spellings, and
 * bounded texts. Each reader throws a `bad_value` problem naming the file's own attribute name.
 */
import { fail } from "../brw_errors.ts";
import { type Attribute, blank, type Scalar } from "./feature.ts";

function badValue(a: Attribute, expected: string): never {
  const v = a.value instanceof Date ? a.value.toISOString() : String(a.value);
  return fail({ code: "bad_value", field: a.name, value: v.slice(0, 80), expected });
}

/** A number ≥ 0 from `1250`, `"1250.5"`, `"1250,5"` or `"1.250,5"`; null when blank. */
export function numberOf(a: Attribute | undefined): number | null {
  if (a === undefined || blank(a.value)) return null;
  if (typeof a.value === "number") {
    if (Number.isFinite(a.value) && a.value >= 0) return a.value;
    return badValue(a, "a number ≥ 0");
  }
  const s = String(a.value).trim();
  const german = /^\d{1,3}(\.\d{3})+,\d+$/.test(s) ? s.replace(/\./g, "").replace(",", ".") : undefined;
  const normalised = german ?? (/^\d*,\d+$|^\d+,\d*$/.test(s) ? s.replace(",", ".") : s);
  const n = /^[+]?(\d+(\.\d*)?|\.\d+)$/.test(normalised) ? Number(normalised) : NaN;
  return Number.isFinite(n) ? n : badValue(a, "a number ≥ 0");
}

/** A floor-area ratio: null when blank or 0 (not given), else 0 < GFZ ≤ 50. */
export function ratioOf(a: Attribute | undefined): number | null {
  const n = numberOf(a);
  if (n === null || n === 0) return null;
  return n <= 50 ? n : badValue(a!, "a floor-area ratio 0 < GFZ ≤ 50");
}

/** A Stichtag `YYYY-MM-DD` from `YYYY-MM-DD[T…]`, `DD.MM.YYYY`, `YYYYMMDD` or a dBase `Date`; null when blank. */
export function dateOf(a: Attribute | undefined): string | null {
  if (a === undefined || blank(a.value)) return null;
  const v: Scalar = a.value;
  let out: string | undefined;
  if (v instanceof Date) {
    // dBase dates are read as local midnight: take the local calendar day.
    out = Number.isNaN(v.getTime()) ? undefined : [
      String(v.getFullYear()).padStart(4, "0"),
      String(v.getMonth() + 1).padStart(2, "0"),
      String(v.getDate()).padStart(2, "0"),
    ].join("-");
  } else {
    const s = String(v).trim();
    const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*|Z)?$/.exec(s);
    const german = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
    const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
    const [y, m, d] = iso
      ? [iso[1], iso[2], iso[3]]
      : german
      ? [german[3], german[2], german[1]]
      : compact
      ? [compact[1], compact[2], compact[3]]
      : [];
    if (y && m && d) out = `${y}-${m.padStart(2, "0")}-${d.padStart(2, "0")}`;
  }
  const t = out ? new Date(`${out}T00:00:00Z`) : undefined;
  if (!out || !t || Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== out) {
    return badValue(a, "a date (YYYY-MM-DD or DD.MM.YYYY)");
  }
  if (out < "1960-01-01" || out > "2100-12-31") return badValue(a, "a date between 1960 and 2100");
  return out;
}

/** A trimmed text of at most `max` characters; null when blank. */
export function textOf(a: Attribute | undefined, max: number): string | null {
  if (a === undefined || blank(a.value)) return null;
  const s = (a.value instanceof Date ? a.value.toISOString().slice(0, 10) : String(a.value)).trim();
  return s.length <= max ? s : badValue(a, `a text of at most ${max} characters`);
}

/** An official municipality key (AGS, 2 to 12 digits); a JSON number regains its leading zero. */
export function municipalityKeyOf(a: Attribute | undefined): string | null {
  if (a === undefined || blank(a.value)) return null;
  const s = typeof a.value === "number" ? String(a.value).padStart(8, "0") : textOf(a, 12)!;
  return /^\d{2,12}$/.test(s) ? s : badValue(a, "a numeric municipality key");
}

/** BR_Art_Nutzung codes of the AdV code list (BRM) and the VBORIS abbreviation each stands for. */
const USE_CODES: Readonly<Record<string, string>> = {
  "1100": "W",
  "1110": "WS",
  "1120": "WR",
  "1130": "WA",
  "1140": "WB",
  "1200": "M",
  "1210": "MD",
  "1220": "MDW",
  "1230": "MI",
  "1240": "MK",
  "1250": "MU",
  "1300": "G",
  "1310": "GE",
  "1320": "GI",
  "1400": "S",
  "1410": "SE",
  "1420": "SO",
  "1500": "GB",
  "2000": "LW",
  "2100": "A",
  "2200": "GR",
  "2300": "EGA",
  "2400": "SK",
  "2500": "WG",
  "2600": "KUP",
  "2700": "UN",
  "2800": "F",
  "3010": "PG",
  "3020": "KGA",
  "3030": "FGA",
  "3040": "CA",
  "3050": "SPO",
  "3060": "SG",
  "3070": "FH",
  "3080": "WF",
  "3090": "FP",
  "3100": "PP",
  "3110": "LG",
  "3120": "AB",
  "3130": "GF",
  "3140": "SN",
};

/** Words of spelled-out uses and their abbreviation, checked in this order. */
const USE_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/wohn/i, "W"],
  [/misch|gemischt|kern|dorf|urban/i, "M"],
  [/gewerb|industri/i, "G"],
  [/sonder/i, "SO"],
  [/gemeinbedarf/i, "GB"],
  [/acker/i, "A"],
  [/grünland|gruenland/i, "GR"],
  [/landwirt/i, "LW"],
  [/forst|wald/i, "F"],
];

/** Development states (Entwicklungszustand): codes of BRM and spelled-out names → B, R, E, LF, SF. */
const DEVELOPMENT_CODES: Readonly<Record<string, string>> = {
  "1000": "B",
  "2000": "R",
  "3000": "E",
  "4000": "LF",
  "5000": "SF",
};

const DEVELOPMENT_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/baureif/i, "B"],
  [/rohbau/i, "R"],
  [/bauerwartung/i, "E"],
  [/land-|forst|landwirt/i, "LF"],
  [/sonstig/i, "SF"],
];

/** How a coded value is written: codes by number, words, abbreviations (patterns with one group), what it is. */
interface CodeList {
  codes: Readonly<Record<string, string>>;
  words: ReadonlyArray<readonly [RegExp, string]>;
  /** The abbreviation in parentheses at the end, and leading the text. */
  inParens: RegExp;
  leading: RegExp;
  /** A text that matches nothing is kept (upper case) up to this length, else refused. */
  maxKept: number;
  /** What the value is, for the error. */
  what: string;
}

/** A code list whose abbreviations are 1 to `letters` capital letters. */
function codeList(
  codes: CodeList["codes"],
  words: CodeList["words"],
  letters: number,
  keep: Pick<CodeList, "maxKept" | "what">,
): CodeList {
  const abbreviation = `([A-Z]{1,${letters}})`;
  const inParens = new RegExp(`\\(${abbreviation}\\)\\s*$`);
  const leading = new RegExp(`^${abbreviation}(?:$|[\\s,;:/-])`);
  return { codes, words, inParens, leading, ...keep };
}

const USE_LIST = codeList(USE_CODES, USE_WORDS, 4, { maxKept: 20, what: "a use code (NUTA)" });
const DEVELOPMENT_LIST = codeList(DEVELOPMENT_CODES, DEVELOPMENT_WORDS, 2, {
  maxKept: 10,
  what: "a development state (B, R, E, LF, SF)",
});

/** A coded value: by code number, abbreviation in parentheses, leading abbreviation, word; null when blank. */
function codedValueOf(a: Attribute | undefined, list: CodeList): string | null {
  const s = textOf(a, 200);
  if (s === null) return null;
  const found = list.codes[s.replace(/\.0+$/, "")] ?? list.inParens.exec(s)?.[1] ??
    list.leading.exec(s)?.[1] ??
    list.words.find(([re]) => re.test(s))?.[1];
  return found ?? (s.length <= list.maxKept ? s.toUpperCase() : badValue(a!, list.what));
}

/**
 * The VBORIS use abbreviation of a use as a state writes it: `W`, `WA`, `"Wohnbaufläche (W)"`, `"W Wohnbaufläche"`,
 * a BR_Art_Nutzung code `1100`, or a spelled-out use; null when blank, the text itself (upper case, ≤ 20) when
 * nothing matches.
 */
export function useCodeOf(a: Attribute | undefined): string | null {
  return codedValueOf(a, USE_LIST);
}

/**
 * The development state as B, R, E, LF or SF from `B`, `"B Baureifes Land"`, `"Baureifes Land (B)"`, a code
 * `1000`, or the name; null when blank; other short codes upper case as they are.
 */
export function developmentOf(a: Attribute | undefined): string | null {
  return codedValueOf(a, DEVELOPMENT_LIST);
}
