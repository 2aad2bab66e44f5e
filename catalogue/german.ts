/** The German words and number formats every text rendering of listings and filters uses (one place). */
import type { Listing } from "./listing.ts";

/** German names of the property types of spec 2.1. */
export const PROPERTY_TYPE_DE: Record<NonNullable<Listing["property_type"]>, string> = {
  apartment: "Wohnung",
  house: "Haus",
  land: "Grundstück",
  commercial: "Gewerbeobjekt",
};

/** Euro amounts without cents, German style ("485.000 €"). */
export const euro = new Intl.NumberFormat("de-DE", {
  style: "currency",
  currency: "EUR",
  maximumFractionDigits: 0,
});

/** Numbers with up to two decimals, German style ("3,5"). */
export const num = new Intl.NumberFormat("de-DE", { maximumFractionDigits: 2 });

/** "Wohnung zum Kauf in 50823 Köln": the kind, the deal and the place of a listing. */
export function kindDealPlace(l: Listing): { kind: string; deal: string; place: string } {
  return {
    kind: l.property_type ? PROPERTY_TYPE_DE[l.property_type] : "Objekt",
    deal: l.transaction_type === "buy" ? " zum Kauf" : l.transaction_type === "rent" ? " zur Miete" : "",
    place: [l.postal_code, l.city].filter(Boolean).join(" "),
  };
}
