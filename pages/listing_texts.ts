/**
 * The texts of the listing's photos and details on the pages (issue 31): the gallery, the placeholder, the
 * details and the energy certificate on the public listing page, and the workspace's photo and detail forms.
 * German first, English second, in the catalogue `pages/texts/listing.json`, apart from the shared
 * `pages/texts/site.json` so each part of the pages owns its words.
 */
import { catalogue, type Lang, pick } from "./i18n.ts";
import TEXTS_JSON from "./texts/listing.json" with { type: "json" };

const TEXTS = catalogue(TEXTS_JSON, "pages/texts/listing.json");

/** A key of the listing texts. */
export type ListingTextKey = keyof typeof TEXTS;

/** The listing text `key` in `l`. */
export function lt(l: Lang, key: ListingTextKey): string {
  return pick(TEXTS[key], l);
}

/** A calendar date (`YYYY-MM-DD`) written out: "30. Juni 2032" (English "30 June 2032"). */
export function longDate(l: Lang, date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  return new Intl.DateTimeFormat(l === "en" ? "en-GB" : "de-DE", { dateStyle: "long", timeZone: "UTC" })
    .format(d);
}
