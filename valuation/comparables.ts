/**
 * Comparables: the trimmed median of euro per m² over the service's own published listings.
 *
 * Rule: segment by transaction (kauf → buy, miete → rent) and property type (none given: apartments and houses),
 * area from narrow to wide (the PLZ, then the city); euro per m² = asked_price / square_meters over listings with
 * both values plausible; never sample listings (`beispiel: true`); 10 % trimmed per tail; the median of what
 * remains; at least {@linkcode MIN_VALUES} values after trimming, else no answer.
 */

/** Share of values cut from each tail before taking the median. */
export const TRIM_SHARE = 0.1;
/** Fewest values that must remain after trimming. */
export const MIN_VALUES = 5;
/** At most this many of the newest listings of an area are used. */
export const MAX_SAMPLE = 5000;

/** Plausible euro per m² by transaction and property type; values outside are dropped as data errors. */
export function plausibleRange(
  transaction: "buy" | "rent",
  propertyType: string | undefined,
): { min: number; max: number } {
  if (transaction === "rent") return propertyType === "land" ? { min: 0.01, max: 50 } : { min: 1, max: 150 };
  return propertyType === "land" ? { min: 1, max: 20_000 } : { min: 50, max: 50_000 };
}

/** The 10 % trimmed median of `values`, or undefined when fewer than five values remain after trimming. */
export function trimmedMedian(values: readonly number[]): { median: number; used: number } | undefined {
  const sorted = values.filter(Number.isFinite).toSorted((a, b) => a - b);
  const cut = Math.floor(sorted.length * TRIM_SHARE);
  const kept = sorted.slice(cut, sorted.length - cut);
  if (kept.length < MIN_VALUES) return undefined;
  const mid = Math.floor(kept.length / 2);
  const median = kept.length % 2 ? kept[mid]! : (kept[mid - 1]! + kept[mid]!) / 2;
  return { median, used: kept.length };
}
