/**
 * The texts of finding on the search page and the listing page (sorting, place search, radius, price per m², the
 * pager and the empty state) in German and English. Kept here, next to the pages that use them, instead of in the
 * shared `pages/i18n.ts`.
 */
import type { SortOrder } from "../catalogue/sort.ts";
import type { Lang } from "./i18n.ts";

const TEXTS = {
  place: ["Ort oder PLZ", "Place or postcode"],
  postalCode: ["PLZ", "Postcode"],
  radius: ["Umkreis", "Radius"],
  radiusNone: ["nur dieser Ort", "this place only"],
  sort: ["Sortierung", "Sort by"],
  newest: ["Neueste zuerst", "Newest first"],
  price_asc: ["Preis aufsteigend", "Price, lowest first"],
  price_desc: ["Preis absteigend", "Price, highest first"],
  area_desc: ["Größte Fläche zuerst", "Largest area first"],
  area_asc: ["Kleinste Fläche zuerst", "Smallest area first"],
  price_per_sqm_asc: ["Preis je m² aufsteigend", "Price per m², lowest first"],
  buyPerSqm: ["Kaufpreis je m²", "Purchase price per m²"],
  rentPerSqm: ["Kaltmiete je m²", "Net rent per m²"],
  pricePerSqm: ["Preis je m²", "Price per m²"],
  badPostalCode: ["fünf Ziffern, z. B. 60311", "five digits, e.g. 60311"],
  badRadius: ["bitte einen Umkreis aus der Liste wählen", "please choose a radius from the list"],
  badSort: ["bitte eine Sortierung aus der Liste wählen", "please choose an order from the list"],
  badCoordinate: ["keine gültige Koordinate", "not a valid coordinate"],
  radiusNeedsPlace: [
    "Für eine Umkreissuche bitte einen Ort oder eine PLZ angeben.",
    "For a radius search, please give a place or a postcode.",
  ],
  coordinatesNeedRadius: [
    "Koordinaten gelten nur mit einem Umkreis.",
    "Coordinates need a radius.",
  ],
  noCentre: [
    "Zu diesem Ort haben wir keine Objekte mit Koordinaten, darum ist keine Umkreissuche möglich.",
    "We have no listings with coordinates at this place, so a radius search is not possible.",
  ],
  searchWithoutRadius: ["Ohne Umkreis suchen", "Search without radius"],
  around: ["im Umkreis von", "within"],
  aroundPoint: ["um die Koordinaten", "around the coordinates"],
  takenPlace: ["Gezeigt für", "Showing results for"],
  choosePlace: ["Welchen Ort meinen Sie?", "Which place do you mean?"],
  didYouMean: ["Meinten Sie …?", "Did you mean …?"],
  listingsCount: ["Objekte", "listings"],
  listingCount: ["Objekt", "listing"],
  unknownPlace: ["Diesen Ort finden wir nicht", "We cannot find this place"],
  noResults: ["Keine Objekte gefunden.", "No listings found."],
  helpTitle: ["So finden Sie mehr:", "To find more:"],
  widenRadius: ["Umkreis auf {km} km erweitern", "Widen the radius to {km} km"],
  onlyPlace: ["Nur nach Ort suchen (andere Filter entfernen)", "Search by place only (remove other filters)"],
  clearFilters: ["Alle Filter zurücksetzen", "Clear all filters"],
  pastLast: [
    "Seite {page} gibt es nicht: Die Suche hat {total} Treffer auf {last} Seiten.",
    "There is no page {page}: the search has {total} results on {last} pages.",
  ],
  toLastPage: ["Zur letzten Seite ({last})", "Go to the last page ({last})"],
  pages: ["Seiten", "Pages"],
  first: ["Erste Seite", "First page"],
  last: ["Letzte Seite", "Last page"],
  currentPage: ["aktuelle Seite", "current page"],
} as const;

/** A key of the finding texts. */
export type FindKey = keyof typeof TEXTS;

/** The finding text `key` in `lang`, with `{name}` placeholders filled from `vars`. */
export function ft(lang: Lang, key: FindKey, vars: Record<string, string | number> = {}): string {
  const text: string = TEXTS[key][lang === "en" ? 1 : 0];
  return text.replace(/\{(\w+)\}/g, (m, name: string) => name in vars ? String(vars[name]) : m);
}

/** The label of a sort order. */
export function sortLabel(lang: Lang, s: SortOrder): string {
  return ft(lang, s);
}

/** The label of a listing's price per m²: purchase, rent, or neither known. */
export function perSqmLabel(lang: Lang, transaction: "buy" | "rent" | null): string {
  return ft(
    lang,
    transaction === "buy" ? "buyPerSqm" : transaction === "rent" ? "rentPerSqm" : "pricePerSqm",
  );
}
