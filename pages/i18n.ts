/** The pages' texts in German (default) and English (when the browser prefers English). */

/** A page language. */
export type Lang = "de" | "en";

/** The language of a request: English when the browser's first preferred language is English, else German. */
export function langOf(acceptLanguage: string | undefined): Lang {
  const first = (acceptLanguage ?? "").split(",").map((p) => p.split(";")[0]!.trim().toLowerCase())
    .find((p) => p && p !== "*");
  return first?.startsWith("en") ? "en" : "de";
}

const TEXTS = {
  siteName: ["Immobilienkatalog", "Property catalogue"],
  signIn: ["Anmelden", "Sign in"],
  signUp: ["Registrieren", "Sign up"],
  signOut: ["Abmelden", "Sign out"],
  email: ["E-Mail-Adresse", "E-mail address"],
  password: ["Passwort", "Password"],
  passwordHint: ["mindestens 10 Zeichen", "at least 10 characters"],
  name: ["Name", "Name"],
  noAccount: [
    "Noch kein Konto? Suchende können sich hier registrieren.",
    "No account yet? Seekers can sign up here.",
  ],
  haveAccount: ["Schon registriert? Hier anmelden.", "Already registered? Sign in here."],
  badCredentials: ["E-Mail-Adresse oder Passwort ist falsch.", "E-mail address or password is wrong."],
  notVerified: [
    "Ihre E-Mail-Adresse ist noch nicht bestätigt. Wir haben Ihnen den Link erneut geschickt.",
    "Your e-mail address is not confirmed yet. We have sent you the link again.",
  ],
  throttled: [
    "Zu viele Anmeldeversuche. Bitte warten Sie einen Moment.",
    "Too many sign-in attempts. Please wait a moment.",
  ],
  checkMail: [
    "Fast geschafft: Wir haben Ihnen eine E-Mail mit einem Bestätigungslink geschickt (falls die Adresse noch nicht registriert war).",
    "Almost done: we have sent you an e-mail with a confirmation link (if the address was not registered yet).",
  ],
  verified: ["Ihre E-Mail-Adresse ist bestätigt.", "Your e-mail address is confirmed."],
  weakPassword: [
    "Das Passwort muss 10 bis 128 Zeichen haben.",
    "The password must have 10 to 128 characters.",
  ],
  invalidForm: ["Bitte prüfen Sie Ihre Eingaben.", "Please check what you entered."],
  consentTitle: ["Zugriff erlauben?", "Allow access?"],
  consentWants: ["möchte auf Ihr Konto zugreifen.", "wants to access your account."],
  redirectsTo: ["Rücksprung an", "Returns to"],
  rightAsked: ["Erbetenes Recht", "Right asked for"],
  rightLesen: [
    "lesen: Bestand, Anfragen, Besichtigungen und Dokumente Ihres Büros",
    "lesen: your office's stock, enquiries, viewings and documents",
  ],
  rightSuchen: [
    "suchen: Objekte suchen, Anfragen senden, Besichtigungen buchen, Suchaufträge speichern",
    "suchen: search listings, send enquiries, book viewings, save searches",
  ],
  rightOffline: [
    "offline_access: Zugriff bleibt bestehen, bis Sie die App trennen",
    "offline_access: access lasts until you disconnect the app",
  ],
  unverifiedApp: [
    "Achtung: Diese App wurde nicht von uns geprüft. Erlauben Sie den Zugriff nur, wenn Sie der App vertrauen.",
    "Warning: this app has not been verified by us. Allow access only if you trust the app.",
  ],
  noRight: [
    "Ihr Konto hat keines der erbetenen Rechte. Die App erhält keinen Zugriff.",
    "Your account holds none of the rights asked for. The app gets no access.",
  ],
  approve: ["Erlauben", "Allow"],
  deny: ["Ablehnen", "Deny"],
  connectedApps: ["Verbundene Apps", "Connected apps"],
  noApps: ["Keine App ist verbunden.", "No app is connected."],
  app: ["App", "App"],
  right: ["Recht", "Right"],
  connectedAt: ["Verbunden seit", "Connected since"],
  lastUsed: ["Zuletzt genutzt", "Last used"],
  never: ["nie", "never"],
  disconnect: ["Trennen", "Disconnect"],
  disconnected: ["Die App wurde getrennt.", "The app has been disconnected."],
  // --- connected apps: event subscriptions and switches (docs/contract.md §6.3) ---
  disconnectedEvents: [
    "Die App wurde getrennt. Alle Ereignis-Abos dieser Verbindung wurden beendet; die App erhält keine Ereignisse mehr.",
    "The app has been disconnected. All event subscriptions of this connection have been ended; the app receives no more events.",
  ],
  appEventsOf: ["Ereignisse von", "Events of"],
  activeSubscriptions: ["Aktive Abos", "Active subscriptions"],
  noSubscriptions: ["Diese App hat keine aktiven Abos.", "This app has no active subscriptions."],
  eventSwitches: ["Ereignisse für diese App", "Events for this app"],
  filter: ["Filter", "Filter"],
  noFilter: ["ohne Filter", "no filter"],
  deliveryAddress: ["Adresse", "Address"],
  validUntil: ["gültig bis", "valid until"],
  eventIsOn: ["eingeschaltet", "on"],
  eventIsOff: ["ausgeschaltet", "off"],
  switchOff: ["Ausschalten", "Switch off"],
  switchOn: ["Einschalten", "Switch on"],
  disconnectEndsSubscriptions: [
    "Trennen beendet auch alle Abos dieser App.",
    "Disconnecting also ends all subscriptions of this app.",
  ],
  eventSwitchedOff: [
    "Das Ereignis ist für diese App ausgeschaltet. Ihre Abos dieses Ereignisses wurden sofort beendet; die App kann es erst wieder abonnieren, wenn Sie es einschalten.",
    "The event is switched off for this app. Its subscriptions to this event were ended at once; the app cannot subscribe to it again until you switch it on.",
  ],
  eventSwitchedOn: [
    "Das Ereignis ist für diese App wieder eingeschaltet; die App kann es erneut abonnieren.",
    "The event is switched on again for this app; the app may subscribe to it again.",
  ],
  appEventNotFound: [
    "Diese App ist nicht mit Ihrem Konto verbunden, oder sie bietet dieses Ereignis nicht an.",
    "This app is not connected to your account, or it does not offer this event.",
  ],
  evInquiryReceived: ["Neue Anfrage", "New enquiry"],
  evMessageReceived: ["Neue Nachricht in einer Anfrage", "New message in an enquiry"],
  evViewingBooked: ["Besichtigung gebucht", "Viewing booked"],
  evViewingCancelled: ["Besichtigungstermin abgesagt", "Viewing slot given up"],
  evViewingUpcoming: ["Besichtigung steht bevor", "Viewing coming up"],
  evProposalPending: ["Vorschlag wartet auf Freigabe", "Proposal awaiting approval"],
  evFileProcessed: ["Dokument gelesen", "Document read"],
  evSocialReceived: ["Neuer Eingang aus sozialen Netzen", "New social message or comment"],
  evMatchesNew: ["Neue Treffer eines Suchauftrags", "New matches of a saved search"],
  evReplyReceived: ["Antwort auf Ihre Anfrage", "Reply to your enquiry"],
  evViewingChanged: ["Besichtigung geändert", "Viewing changed"],
  apiKeys: ["API-Schlüssel", "API keys"],
  noKeys: ["Sie haben keine API-Schlüssel.", "You have no API keys."],
  keyName: ["Bezeichnung", "Name"],
  createKey: ["Schlüssel erstellen", "Create key"],
  keyCreated: [
    "Ihr neuer Schlüssel. Er wird nur dieses eine Mal angezeigt: Kopieren Sie ihn jetzt.",
    "Your new key. It is shown only this once: copy it now.",
  ],
  revoke: ["Widerrufen", "Revoke"],
  revoked: ["widerrufen", "revoked"],
  keyRevoked: ["Der Schlüssel wurde widerrufen.", "The key has been revoked."],
  created: ["Erstellt", "Created"],
  status: ["Status", "Status"],
  active: ["aktiv", "active"],
  account: ["Konto", "Account"],
  role: ["Rolle", "Role"],
  roleSeeker: ["Suchende(r)", "Seeker"],
  roleProvider: ["Anbieter(in)", "Provider"],
  csrf: [
    "Das Formular ist abgelaufen. Bitte laden Sie die Seite neu.",
    "The form has expired. Please reload the page.",
  ],
  badRequest: ["Diese Anfrage ist ungültig oder abgelaufen.", "This request is invalid or has expired."],
  // --- listing pages and enquiries ---
  listings: ["Objekte", "Listings"],
  searchTitle: ["Objekte suchen", "Search listings"],
  search: ["Suchen", "Search"],
  city: ["Ort", "City"],
  transactionType: ["Vermarktung", "Transaction"],
  propertyType: ["Objektart", "Property type"],
  any: ["alle", "any"],
  buy: ["Kauf", "Buy"],
  rent: ["Miete", "Rent"],
  apartment: ["Wohnung", "Apartment"],
  house: ["Haus", "House"],
  land: ["Grundstück", "Land"],
  commercial: ["Gewerbe", "Commercial"],
  minPrice: ["Preis ab (€)", "Price from (€)"],
  maxPrice: ["Preis bis (€)", "Price up to (€)"],
  minRooms: ["Zimmer ab", "Rooms from"],
  minSqm: ["Fläche ab (m²)", "Area from (m²)"],
  price: ["Preis", "Price"],
  rentPerMonth: ["Kaltmiete pro Monat", "Net rent per month"],
  purchasePrice: ["Kaufpreis", "Purchase price"],
  rooms: ["Zimmer", "Rooms"],
  area: ["Wohnfläche", "Area"],
  postalCode: ["PLZ", "Postcode"],
  unknown: ["unbekannt", "unknown"],
  untitled: ["Objekt ohne Titel", "Untitled listing"],
  beispiel: ["Beispielobjekt", "Sample listing"],
  beispielNote: [
    "Beispielobjekt: ein erfundenes Objekt zur Veranschaulichung, kein echtes Angebot.",
    "Sample listing: an invented object for illustration, not a real offer.",
  ],
  found: ["Treffer", "results"],
  noResults: ["Keine Objekte gefunden.", "No listings found."],
  pageOf: ["Seite", "Page"],
  of: ["von", "of"],
  previous: ["« Zurück", "« Previous"],
  next: ["Weiter »", "Next »"],
  badFilter: ["Bitte prüfen Sie diese Angaben:", "Please check these fields:"],
  badNumber: [
    "eine Zahl ab 0 eingeben, z. B. 250000 oder 2,5",
    "enter a number from 0, e.g. 250000 or 2.5",
  ],
  badChoice: ["bitte einen der angebotenen Werte wählen", "choose one of the offered values"],
  badText: ["höchstens 100 Zeichen, ohne Steuerzeichen", "at most 100 characters, no control characters"],
  badPage: ["eine ganze Zahl ab 1", "a whole number from 1"],
  priceOrder: [
    "Der Preis ab darf nicht höher sein als der Preis bis.",
    "The lowest price must not be above the highest price.",
  ],
  notFoundTitle: ["Nicht gefunden", "Not found"],
  notFound: [
    "Dieses Objekt oder diese Seite gibt es nicht (mehr).",
    "This listing or page does not exist (any more).",
  ],
  backToSearch: ["Zur Objektsuche", "Back to the search"],
  facts: ["Angaben", "Details"],
  location: ["Lage", "Location"],
  showMap: ["Auf OpenStreetMap anzeigen", "Show on OpenStreetMap"],
  noMap: ["Keine Koordinaten angegeben.", "No coordinates given."],
  baselineTitle: ["Lagewert", "Location baseline"],
  baselineBrw: [
    "Bodenrichtwert des Gutachterausschusses (amtlicher Wert, je m² Grundstücksfläche)",
    "Official land value of the expert committee (per m² of land)",
  ],
  baselineCmp: [
    "Mittelwert (getrimmter Median) vergleichbarer Angebote aus unserem Bestand",
    "Trimmed median of comparable listings from our own stock",
  ],
  baselineNone: [
    "Für diese Lage gibt es keine Grundlage für einen Richtwert; wir nennen daher keine Zahl.",
    "There is no basis for a guide value at this location, so we give no number.",
  ],
  source: ["Quelle", "Source"],
  stichtag: ["Stichtag", "Reference date"],
  gfz: ["GFZ", "Floor-area ratio"],
  enquiryTitle: ["Anfrage an den Anbieter", "Enquiry to the provider"],
  message: ["Ihre Nachricht", "Your message"],
  phoneOptional: ["Telefon (freiwillig)", "Phone (optional)"],
  sendEnquiry: ["Anfrage senden", "Send enquiry"],
  sendingAs: ["Sie senden mit Ihrem Konto als", "You send with your account as"],
  providerNote: [
    "Sie sind als Anbieter angemeldet. Anfragen können nur Suchende senden.",
    "You are signed in as a provider. Only seekers can send enquiries.",
  ],
  anonymousNote: [
    "Der Anbieter antwortet an Ihre E-Mail-Adresse. Mit einem Konto sehen Sie Ihre Anfragen auch unter „Meine Anfragen“.",
    "The provider answers to your e-mail address. With an account you also see your enquiries under “My enquiries”.",
  ],
  enquiryInvalid: [
    "Bitte geben Sie Ihren Namen, eine gültige E-Mail-Adresse und eine Nachricht (höchstens 10.000 Zeichen) an; die Telefonnummer höchstens 50 Zeichen.",
    "Please give your name, a valid e-mail address and a message (at most 10,000 characters); the phone number at most 50 characters.",
  ],
  enquiryLimited: [
    "Sie haben gerade zu viele Anfragen gesendet. Diese Anfrage wurde nicht gesendet; bitte versuchen Sie es später noch einmal.",
    "You have sent too many enquiries just now. This enquiry was not sent; please try again later.",
  ],
  enquirySent: [
    "Vielen Dank! Ihre Anfrage wurde an den Anbieter gesendet. Die Antwort kommt an Ihre E-Mail-Adresse.",
    "Thank you! Your enquiry has been sent to the provider. The answer will come to your e-mail address.",
  ],
  enquirySentAccount: [
    "Vielen Dank! Ihre Anfrage wurde an den Anbieter gesendet. Die Antwort sehen Sie hier unter „Meine Anfragen“.",
    "Thank you! Your enquiry has been sent to the provider. You will see the answer here under “My enquiries”.",
  ],
  enquirySentTitle: ["Anfrage gesendet", "Enquiry sent"],
  threadSent: ["Ihre Nachricht wurde gesendet.", "Your message has been sent."],
  myEnquiries: ["Meine Anfragen", "My enquiries"],
  noEnquiries: ["Sie haben noch keine Anfragen gesendet.", "You have not sent any enquiries yet."],
  listing: ["Objekt", "Listing"],
  lastActivity: ["Letzte Aktivität", "Last activity"],
  messages: ["Nachrichten", "Messages"],
  open: ["Öffnen", "Open"],
  statusOpen: ["offen", "open"],
  statusAnswered: ["beantwortet", "answered"],
  statusRejected: ["abgelehnt", "rejected"],
  statusClosed: ["geschlossen", "closed"],
  you: ["Sie", "You"],
  provider: ["Anbieter", "Provider"],
  writeAgain: ["Erneut schreiben", "Write again"],
  sendMessage: ["Nachricht senden", "Send message"],
  messageInvalid: [
    "Bitte schreiben Sie eine Nachricht mit 1 bis 10.000 Zeichen.",
    "Please write a message of 1 to 10,000 characters.",
  ],
  messageLimited: [
    "Sie haben gerade zu viele Nachrichten gesendet. Diese Nachricht wurde nicht gesendet; bitte versuchen Sie es später noch einmal.",
    "You have sent too many messages just now. This message was not sent; please try again later.",
  ],
  threadClosed: [
    "Diese Anfrage ist abgeschlossen; Sie können darin nicht mehr schreiben.",
    "This enquiry is closed; you cannot write in it any more.",
  ],
  enquiryOf: ["Anfrage vom", "Enquiry of"],
  oauthErrorTitle: ["Die App kann nicht verbunden werden", "The app cannot be connected"],
  oauthUnknownApp: [
    "Diese App ist bei uns nicht registriert: Die Anfrage nennt eine unbekannte Client-ID.",
    "This app is not registered with us: the request names an unknown client ID.",
  ],
  oauthUnknownAppHelp: [
    "Starten Sie die Verbindung in der App noch einmal; die App meldet sich dabei neu bei uns an. Hilft das nicht, wenden Sie sich an den Anbieter der App.",
    "Start the connection in the app once more; the app registers with us again. If that does not help, contact the app's maker.",
  ],
  oauthBadRedirect: [
    "Die Rücksprungadresse in der Anfrage ist für diese App nicht registriert. Zu Ihrem Schutz leiten wir Sie nicht dorthin weiter.",
    "The return address in the request is not registered for this app. To protect you, we do not send you there.",
  ],
  oauthDisabledApp: ["Diese App ist gesperrt.", "This app has been blocked."],
  oauthBadRequest: [
    "Die Anfrage der App ist ungültig; wir können sie nicht bearbeiten.",
    "The app's request is invalid; we cannot process it.",
  ],
  oauthErrorHelp: [
    "Schließen Sie dieses Fenster und verbinden Sie die App erneut aus der App heraus. Besteht der Fehler weiter, wenden Sie sich an den Anbieter der App. Ihr Konto ist nicht betroffen.",
    "Close this window and connect the app again from within the app. If the error persists, contact the app's maker. Your account is not affected.",
  ],
  oauthErrorCode: ["Fehlercode", "Error code"],
} as const;

/** A text key. */
export type TextKey = keyof typeof TEXTS;

/** The text `key` in `lang`. */
export function t(lang: Lang, key: TextKey): string {
  return TEXTS[key][lang === "en" ? 1 : 0];
}
