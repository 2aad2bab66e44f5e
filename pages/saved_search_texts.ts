/**
 * The words of the saved-search pages and the account start page (German, English), and a saved search's filters
 * in words.
 */
import type { SearchFilters } from "../catalogue/filters.ts";
import { decimal, euroCents } from "../catalogue/german.ts";
import type { AlertKind } from "../searches/search_alerts.ts";
import { type Lang, t } from "./i18n.ts";

const TEXT = {
  saveSearch: ["Suche speichern", "Save search"],
  saveSearchHint: [
    "Speichern Sie diese Suche und erhalten Sie neue Angebote per E-Mail.",
    "Save this search and get new listings by e-mail.",
  ],
  saveSearchSignIn: [
    "Zum Speichern melden Sie sich an; Ihre Filter bleiben erhalten.",
    "Sign in to save it; your filters are kept.",
  ],
  newSearchTitle: ["Suche speichern", "Save search"],
  searchName: ["Name der Suche (freiwillig)", "Name of the search (optional)"],
  filters: ["Filter", "Filters"],
  alertLabel: ["E-Mail bei neuen Angeboten", "E-mail about new listings"],
  alert_off: ["Keine E-Mail", "No e-mail"],
  alert_daily: ["Täglich (höchstens eine E-Mail am Tag)", "Daily (at most one e-mail a day)"],
  alert_instant: ["Sofort (bei jedem neuen Angebot)", "Instantly (for every new listing)"],
  alertShort_off: ["aus", "off"],
  alertShort_daily: ["täglich", "daily"],
  alertShort_instant: ["sofort", "instantly"],
  save: ["Speichern", "Save"],
  mySearches: ["Meine Suchen", "My saved searches"],
  noSearches: [
    "Sie haben noch keine Suche gespeichert. Suchen Sie unter „Objekte“ und wählen Sie „Suche speichern“.",
    "You have not saved a search yet. Search under “Listings” and choose “Save search”.",
  ],
  name: ["Name", "Name"],
  alert: ["E-Mail", "E-mail"],
  showResults: ["Treffer anzeigen", "Show results"],
  delete: ["Löschen", "Delete"],
  deleteTitle: ["Suche löschen", "Delete search"],
  deleteAsk: [
    "Möchten Sie diese Suche löschen? Sie erhalten dann auch keine E-Mails mehr zu ihr.",
    "Delete this search? You will get no more e-mails about it either.",
  ],
  deleteButton: ["Ja, löschen", "Yes, delete"],
  cancel: ["Abbrechen", "Cancel"],
  saved: ["Die Suche ist gespeichert.", "The search is saved."],
  deleted: ["Die Suche ist gelöscht.", "The search is deleted."],
  alertSaved: ["Die E-Mail-Einstellung ist gespeichert.", "The e-mail setting is saved."],
  unnamed: ["Suche ohne Namen", "Unnamed search"],
  tooMany: [
    "Sie haben schon 20 gespeicherte Suchen. Löschen Sie eine, um diese zu speichern.",
    "You already have 20 saved searches. Delete one to save this one.",
  ],
  noFilter: [
    "Bitte wählen Sie mindestens einen Filter, bevor Sie die Suche speichern.",
    "Please choose at least one filter before saving the search.",
  ],
  badFilters: [
    "Diese Filter sind ungültig. Bitte suchen Sie erneut und speichern Sie dann.",
    "These filters are not valid. Please search again, then save.",
  ],
  badName: [
    "Name der Suche: höchstens 200 Zeichen, eine Zeile.",
    "Name of the search: at most 200 characters, one line.",
  ],
  stopTitle: ["Keine E-Mails mehr zu dieser Suche", "No more e-mails about this search"],
  stopAsk: [
    "Möchten Sie keine E-Mails mehr zu Ihrer gespeicherten Suche erhalten?",
    "Do you want to stop e-mails about your saved search?",
  ],
  stopButton: ["Keine E-Mails mehr senden", "Stop these e-mails"],
  stopped: [
    "Erledigt: Sie erhalten keine E-Mails mehr zu dieser Suche. Die Suche selbst bleibt gespeichert.",
    "Done: you will get no more e-mails about this search. The search itself stays saved.",
  ],
  linkInvalidTitle: ["Link ungültig", "Link not valid"],
  linkInvalid: [
    "Dieser Link ist ungültig oder veraltet. Ihre E-Mail-Einstellungen finden Sie unter „Meine Suchen“.",
    "This link is not valid or out of date. Your e-mail settings are under “My saved searches”.",
  ],
  seekersOnly: [
    "Suchen speichern können nur Suchende. Sie sind als Anbieter angemeldet.",
    "Only seekers can save searches. You are signed in as a provider.",
  ],
  notFound: ["Diese Suche gibt es nicht (mehr).", "This search does not exist (any more)."],
  badOrigin: ["Die Anfrage kam nicht von dieser Seite.", "The request did not come from this site."],
  accountTitle: ["Mein Konto", "My account"],
  welcome: ["Willkommen", "Welcome"],
  latestInquiries: ["Meine letzten Anfragen", "My latest inquiries"],
  allInquiries: ["Alle Anfragen", "All inquiries"],
  noInquiriesYet: [
    "Noch keine Anfragen. Auf jeder Objektseite können Sie den Anbieter fragen.",
    "No inquiries yet. You can ask the provider on every listing page.",
  ],
  moreInAccount: ["Weitere Einstellungen", "More settings"],
  startSearch: ["Objekte suchen", "Search listings"],
  anyPlace: ["überall", "anywhere"],
  from: ["ab", "from"],
  upTo: ["bis", "up to"],
  roomsFrom: ["Zimmer ab", "rooms from"],
  areaFrom: ["Fläche ab", "area from"],
} as const satisfies Record<string, readonly [string, string]>;

/** A text key of these pages. */
export type SavedSearchKey = keyof typeof TEXT;

/** The text `key` in `l`. */
export function st(l: Lang, key: SavedSearchKey): string {
  return TEXT[key][l === "en" ? 1 : 0];
}

/** The long and short words of alert setting `k`. */
export function alertWords(l: Lang, k: AlertKind): { long: string; short: string } {
  return { long: st(l, `alert_${k}`), short: st(l, `alertShort_${k}`) };
}

/** A saved search's filters in words: "Köln · Miete · Wohnung · bis 1.200 € · Zimmer ab 3 · Fläche ab 60 m²". */
export function filtersInWords(l: Lang, f: SearchFilters): string {
  const parts = [
    f.city ?? st(l, "anyPlace"),
    f.transaction_type && t(l, f.transaction_type),
    f.property_type && t(l, f.property_type),
    f.min_price !== undefined && `${st(l, "from")} ${euroCents(f.min_price, l)}`,
    f.max_price !== undefined && `${st(l, "upTo")} ${euroCents(f.max_price, l)}`,
    f.min_rooms !== undefined && `${st(l, "roomsFrom")} ${decimal(f.min_rooms, l)}`,
    f.min_sqm !== undefined && `${st(l, "areaFrom")} ${decimal(f.min_sqm, l)} m²`,
  ];
  return parts.filter((p): p is string => typeof p === "string" && p !== "").join(" · ");
}
