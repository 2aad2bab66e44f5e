/**
 * Which listing fields a processed document contradicts or completes. Only values that have a listing field of
 * docs/contract.md §2.1 count: a brochure's `zimmer` → total_rooms, `wohnflaeche_m2` → square_meters, `preis_eur` →
 * asked_price. An energy certificate's values (class, demand, carrier, year, validity) have no listing field and
 * propose nothing. A value is proposed only when it is valid for the field (the stock's own input rules, rounded
 * to the column's precision) and differs from the listing's value or fills an empty field.
 */
import { listingFieldsShape } from "../catalogue/office_listings.ts";
import type { FieldChange } from "../db/proposals.ts";
import type { ListingColumns } from "../db/listings.ts";

/** The listing fields a document may change. */
export const DOCUMENT_FIELDS = ["total_rooms", "square_meters", "asked_price"] as const;

/** A listing field a document may change. */
export type DocumentField = (typeof DOCUMENT_FIELDS)[number];

/** The `angaben` key that feeds each field, and the field's decimal places. */
const SOURCES: Record<DocumentField, { key: string; decimals: number }> = {
  total_rooms: { key: "zimmer", decimals: 1 },
  square_meters: { key: "wohnflaeche_m2", decimals: 2 },
  asked_price: { key: "preis_eur", decimals: 2 },
};

/** `v` as a number for `field` (number or decimal string, comma allowed), rounded; undefined when not valid. */
export function fieldValue(field: DocumentField, v: unknown): number | undefined {
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (typeof v === "string" && /^\s*\d+(?:[.,]\d+)?\s*$/.test(v)) n = Number(v.trim().replace(",", "."));
  if (n === undefined || !Number.isFinite(n)) return undefined;
  const f = 10 ** SOURCES[field].decimals;
  const rounded = Math.round(n * f) / f;
  return listingFieldsShape[field].safeParse(rounded).success ? rounded : undefined;
}

/** The changes `angaben` of a document propose for `listing` (empty when nothing differs). */
export function documentChanges(
  sorte: string,
  angaben: Record<string, unknown>,
  listing: Pick<ListingColumns, DocumentField>,
): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  if (sorte === "energy_certificate") return changes;
  for (const field of DOCUMENT_FIELDS) {
    const neu = fieldValue(field, angaben[SOURCES[field].key]);
    if (neu === undefined) continue;
    const alt = listing[field];
    if (alt === null || Math.abs(alt - neu) > 1e-9) changes[field] = { alt, neu };
  }
  return changes;
}
