/**
 * The texts of the listing's photos and details on the pages (issue 31): the gallery, the placeholder, the
 * details and the energy certificate on the public listing page, and the workspace's photo and detail forms.
 * German first, English second. Kept apart from `i18n.ts` so each part of the pages owns its words.
 */
import type { Lang } from "./i18n.ts";

const TEXTS = {
  photos: ["Fotos", "Photos"],
  photoCount: ["Fotos", "photos"],
  photoOf: ["Foto", "Photo"],
  openPhoto: ["Foto in voller Größe öffnen", "Open the photo at full size"],
  noPhoto: ["Kein Foto", "No photo"],
  description: ["Beschreibung", "Description"],
  moreFacts: ["Weitere Angaben", "More details"],
  warmRent: ["Warmmiete", "Rent incl. heating"],
  serviceCharges: ["Nebenkosten", "Service charges"],
  deposit: ["Kaution", "Deposit"],
  floor: ["Etage", "Floor"],
  groundFloor: ["Erdgeschoss", "ground floor"],
  upperFloor: [". Obergeschoss", "floor"],
  basement: [". Untergeschoss", "basement level"],
  constructionYear: ["Baujahr", "Year of construction"],
  availableFrom: ["Verfügbar ab", "Available from"],
  perMonth: ["/Monat", "/month"],
  energy: ["Energieausweis", "Energy certificate"],
  energyType: ["Art des Energieausweises", "Kind of certificate"],
  bedarf: ["Bedarfsausweis", "energy demand certificate"],
  verbrauch: ["Verbrauchsausweis", "energy consumption certificate"],
  energyValueBedarf: ["Endenergiebedarf", "Final energy demand"],
  energyValueVerbrauch: ["Endenergieverbrauch", "Final energy consumption"],
  energyClass: ["Energieeffizienzklasse", "Energy efficiency class"],
  energyCarrier: ["Wesentlicher Energieträger", "Main energy carrier"],
  validUntil: ["Gültig bis", "Valid until"],
  noEnergy: [
    "Der Anbieter hat keine Daten eines Energieausweises angegeben.",
    "The provider has not given any energy certificate data.",
  ],
  // The workspace's photo and detail forms.
  managePhotos: ["Fotos verwalten", "Manage photos"],
  photosOf: ["Fotos", "Photos"],
  uploadPhotos: ["Fotos hochladen", "Upload photos"],
  choosePhotos: ["Fotos auswählen (JPEG, PNG oder WebP)", "Choose photos (JPEG, PNG or WebP)"],
  uploadHint: [
    "Mehrere auf einmal möglich: bis 20 Fotos, je höchstens 15 MB und 40 Megapixel, zusammen höchstens 64 MB; " +
    "höchstens 50 Fotos je Objekt. Metadaten wie der GPS-Standort werden entfernt. Das erste Foto ist das " +
    "Titelbild.",
    "Several at once: up to 20 photos, each at most 15 MB and 40 megapixels, together at most 64 MB; at most 50 " +
    "photos per listing. Metadata such as the GPS position is removed. The first photo is the title image.",
  ],
  noPhotos: ["Noch keine Fotos.", "No photos yet."],
  titleImage: ["Titelbild", "Title image"],
  makeTitle: ["Als Titelbild", "Make title image"],
  moveUp: ["Nach vorn", "Move up"],
  moveDown: ["Nach hinten", "Move down"],
  altText: ["Alternativtext (was zeigt das Foto?)", "Alt text (what does the photo show?)"],
  saveAlt: ["Text speichern", "Save text"],
  deletePhoto: ["Löschen …", "Delete …"],
  confirmDelete: ["Dieses Foto endgültig löschen?", "Delete this photo for good?"],
  deleteNow: ["Ja, Foto löschen", "Yes, delete the photo"],
  backToListing: ["Zurück zum Objekt", "Back to the listing"],
  photoProblem: ["Es wurde nichts gespeichert.", "Nothing was saved."],
  refused_empty: ["die Datei ist leer", "the file is empty"],
  refused_too_large: ["größer als 15 MB", "larger than 15 MB"],
  refused_unsupported_type: [
    "kein JPEG-, PNG- oder WebP-Bild (am Inhalt erkannt, nicht am Namen)",
    "not a JPEG, PNG or WebP image (told by its content, not its name)",
  ],
  refused_too_many_pixels: ["mehr als 40 Megapixel", "more than 40 megapixels"],
  refused_unreadable: ["beschädigt oder unvollständig", "damaged or incomplete"],
  noneChosen: ["Bitte wählen Sie mindestens ein Foto.", "Please choose at least one photo."],
  tooManyAtOnce: ["Höchstens 20 Fotos auf einmal.", "At most 20 photos at once."],
  tooManyPhotos: ["Ein Objekt hat höchstens 50 Fotos.", "A listing has at most 50 photos."],
  badAltText: [
    "Alternativtext: höchstens 300 Zeichen in einer Zeile.",
    "Alt text: at most 300 characters on one line.",
  ],
  tooLargeUpload: [
    "Die Fotos sind zusammen größer als 64 MB. Bitte laden Sie sie in mehreren Schritten hoch.",
    "The photos are larger than 64 MB together. Please upload them in several steps.",
  ],
  imagesUnavailable: [
    "Fotos können gerade nicht verarbeitet werden. Bitte versuchen Sie es später erneut.",
    "Photos cannot be processed right now. Please try again later.",
  ],
} as const;

/** A key of the listing texts. */
export type ListingTextKey = keyof typeof TEXTS;

/** The listing text `key` in `l`. */
export function lt(l: Lang, key: ListingTextKey): string {
  return TEXTS[key][l === "en" ? 1 : 0];
}

/** A calendar date (`YYYY-MM-DD`) written out: "30. Juni 2032" (English "30 June 2032"). */
export function longDate(l: Lang, date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  return new Intl.DateTimeFormat(l === "en" ? "en-GB" : "de-DE", { dateStyle: "long", timeZone: "UTC" })
    .format(d);
}
