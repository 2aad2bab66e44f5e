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
  notifications: ["Benachrichtigungen", "Notifications"],
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
    "lesen: your office's stock, inquiries, viewings and documents",
  ],
  rightSuchen: [
    "suchen: Objekte suchen, Anfragen senden, Besichtigungen buchen, Suchaufträge speichern",
    "suchen: search listings, send inquiries, book viewings, save searches",
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
  evInquiryReceived: ["Neue Anfrage zu einem Ihrer Objekte", "New inquiry about one of your listings"],
  evMessageReceived: [
    "Ein Interessent hat in einer Anfrage erneut geschrieben",
    "An inquirer wrote again in an inquiry",
  ],
  evViewingBooked: [
    "Ein Interessent hat einen Besichtigungstermin gebucht oder umgebucht",
    "An inquirer booked or moved a viewing slot",
  ],
  evViewingCancelled: [
    "Ein Interessent hat seinen Besichtigungstermin abgesagt",
    "An inquirer gave up their viewing slot",
  ],
  evViewingUpcoming: [
    "Eine Besichtigung steht bevor (einen Tag und eine Stunde vorher)",
    "A viewing is coming up (a day and an hour before)",
  ],
  evProposalPending: [
    "Ein Entwurf des Assistenten wartet auf Ihre Freigabe",
    "A draft of the assistant awaits your approval",
  ],
  evFileProcessed: [
    "Ein Dokument zu einem Objekt wurde ausgelesen",
    "A document on one of your listings has been read",
  ],
  evSocialReceived: [
    "Neuer Kommentar oder neue Nachricht aus Facebook oder Instagram",
    "New comment or message from Facebook or Instagram",
  ],
  evMatchesNew: [
    "Ihr Suchauftrag hat neue passende Objekte gefunden",
    "Your saved search has found new matching listings",
  ],
  evReplyReceived: [
    "Ein Anbieter hat auf Ihre Anfrage geantwortet",
    "A provider has replied to your inquiry",
  ],
  evViewingChanged: [
    "Ein Anbieter hat Ihre Besichtigung verschoben oder abgesagt",
    "A provider moved or cancelled your viewing",
  ],
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
  // --- listing pages and inquiries ---
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
    "keine lesbare Zahl ab 0; bitte z. B. 500.000, 500.000,50 oder 2,5 eingeben",
    "not a readable number from 0; enter e.g. 500,000, 500,000.50 or 2.5",
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
  inquiryTitle: ["Anfrage an den Anbieter", "Inquiry to the provider"],
  message: ["Ihre Nachricht", "Your message"],
  phoneOptional: ["Telefon (freiwillig)", "Phone (optional)"],
  sendInquiry: ["Anfrage senden", "Send inquiry"],
  sendingAs: ["Sie senden mit Ihrem Konto als", "You send with your account as"],
  providerNote: [
    "Sie sind als Anbieter angemeldet. Anfragen können nur Suchende senden.",
    "You are signed in as a provider. Only seekers can send inquiries.",
  ],
  anonymousNote: [
    "Der Anbieter antwortet an Ihre E-Mail-Adresse. Mit einem Konto sehen Sie Ihre Anfragen auch unter „Meine Anfragen“.",
    "The provider answers to your e-mail address. With an account you also see your inquiries under “My inquiries”.",
  ],
  inquiryInvalid: [
    "Bitte geben Sie Ihren Namen, eine gültige E-Mail-Adresse und eine Nachricht (höchstens 10.000 Zeichen) an; die Telefonnummer höchstens 50 Zeichen.",
    "Please give your name, a valid e-mail address and a message (at most 10,000 characters); the phone number at most 50 characters.",
  ],
  inquiryLimited: [
    "Sie haben gerade zu viele Anfragen gesendet. Diese Anfrage wurde nicht gesendet; bitte versuchen Sie es später noch einmal.",
    "You have sent too many inquiries just now. This inquiry was not sent; please try again later.",
  ],
  inquirySent: [
    "Vielen Dank! Ihre Anfrage wurde an den Anbieter gesendet. Die Antwort kommt an Ihre E-Mail-Adresse.",
    "Thank you! Your inquiry has been sent to the provider. The answer will come to your e-mail address.",
  ],
  inquirySentAccount: [
    "Vielen Dank! Ihre Anfrage wurde an den Anbieter gesendet. Die Antwort sehen Sie hier unter „Meine Anfragen“.",
    "Thank you! Your inquiry has been sent to the provider. You will see the answer here under “My inquiries”.",
  ],
  inquirySentTitle: ["Anfrage gesendet", "Inquiry sent"],
  threadSent: ["Ihre Nachricht wurde gesendet.", "Your message has been sent."],
  myInquiries: ["Meine Anfragen", "My inquiries"],
  noInquiries: ["Sie haben noch keine Anfragen gesendet.", "You have not sent any inquiries yet."],
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
    "This inquiry is closed; you cannot write in it any more.",
  ],
  inquiryOf: ["Anfrage vom", "Inquiry of"],
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
  // --- connected apps: what each event means, for people (docs/contract.md §6.6, §6.7) ---
  evdInquiryReceived: [
    "Die App erfährt sofort, wenn jemand über den Katalog, ein Portal oder per E-Mail nach einem Objekt Ihres Büros fragt.",
    "The app learns at once when someone asks about a listing of your office, through the catalogue, a portal or e-mail.",
  ],
  evdMessageReceived: [
    "Die App erfährt, wenn ein Interessent in einer laufenden Anfrage eine weitere Nachricht schreibt.",
    "The app learns when an inquirer writes another message in an ongoing inquiry.",
  ],
  evdViewingBooked: [
    "Die App erfährt, wenn ein Interessent einen Besichtigungstermin bucht oder auf einen anderen Termin wechselt.",
    "The app learns when an inquirer books a viewing slot or moves to another one.",
  ],
  evdViewingCancelled: [
    "Die App erfährt, wenn ein Interessent seinen Termin absagt; die Besichtigung selbst kann bestehen bleiben.",
    "The app learns when an inquirer gives up their slot; the viewing itself may stay.",
  ],
  evdViewingUpcoming: [
    "Die App erinnert Sie etwa einen Tag und etwa eine Stunde vor einer Besichtigung mit angemeldeten Gästen.",
    "The app reminds you about a day and about an hour before a viewing with guests.",
  ],
  evdProposalPending: [
    "Die App erfährt, wenn der Assistent des Dienstes eine Antwort, eine Absage oder eine Objektänderung vorbereitet hat, die Sie freigeben müssen.",
    "The app learns when the service's assistant has prepared a reply, a rejection or a listing change for you to approve.",
  ],
  evdFileProcessed: [
    "Die App erfährt, wenn ein hochgeladenes Exposé oder ein Energieausweis ausgelesen ist.",
    "The app learns when an uploaded brochure or energy certificate has been read.",
  ],
  evdSocialReceived: [
    "Die App erfährt von neuen Kommentaren und Nachrichten auf den verbundenen Facebook- und Instagram-Seiten Ihres Büros.",
    "The app learns about new comments and messages on your office's connected Facebook and Instagram pages.",
  ],
  evdMatchesNew: [
    "Die App erfährt, wenn einer Ihrer gespeicherten Suchaufträge neue passende Objekte findet (einmal je Suchlauf).",
    "The app learns when one of your saved searches finds new matching listings (once per run).",
  ],
  evdReplyReceived: [
    "Die App erfährt, wenn ein Anbieter Ihnen auf eine Anfrage antwortet oder sie ablehnt.",
    "The app learns when a provider answers or declines one of your inquiries.",
  ],
  evdViewingChanged: [
    "Die App erfährt, wenn ein Anbieter eine von Ihnen gebuchte Besichtigung verschiebt oder absagt.",
    "The app learns when a provider moves or cancels a viewing you booked.",
  ],
  eventTechnicalName: ["Technischer Name", "Technical name"],
  // --- header, start page, 404 ---
  menu: ["Menü", "Menu"],
  providerArea: ["Anbieter", "Providers"],
  startTitle: ["Immobilien finden", "Find a home"],
  startLead: [
    "Wohnungen, Häuser, Grundstücke und Gewerbeflächen, die Makler und Anbieter selbst bei uns eintragen. Suchen und anfragen können Sie ohne Konto.",
    "Flats, houses, plots and commercial space that estate agents enter with us themselves. You can search and inquire without an account.",
  ],
  newestListings: ["Neueste Objekte", "Newest listings"],
  allListings: ["Alle Objekte ansehen", "See all listings"],
  startAccount: ["Ihr Konto", "Your account"],
  startAccountText: [
    "Mit einem Konto sehen Sie Ihre Anfragen und Antworten an einem Ort und können Apps verbinden.",
    "With an account you see your inquiries and replies in one place and can connect apps.",
  ],
  apiTitle: ["Für Entwickler: API", "For developers: API"],
  apiRest: [
    "REST: Der Katalog und der Lagewert sind ohne Anmeldung als JSON abrufbar, beschrieben im OpenAPI-Dokument:",
    "REST: the catalogue and the location baseline are open as JSON without sign-in, described in the OpenAPI document:",
  ],
  apiMcp: [
    "MCP: Assistenz-Apps verbinden sich unter /mcp mit einem API-Schlüssel oder per OAuth 2.1 und können suchen, anfragen, Besichtigungen buchen und Suchaufträge speichern.",
    "MCP: assistant apps connect at /mcp with an API key or through OAuth 2.1 and can search, inquire, book viewings and save searches.",
  ],
  apiKeysHint: [
    "API-Schlüssel erstellen Sie nach der Anmeldung unter „API-Schlüssel“.",
    "You create API keys after signing in, under “API keys”.",
  ],
  pageNotFoundTitle: ["Seite nicht gefunden", "Page not found"],
  pageNotFound: [
    "Diese Seite gibt es nicht. Vielleicht hat sich die Adresse geändert oder sie wurde falsch eingegeben.",
    "This page does not exist. The address may have changed or been mistyped.",
  ],
  backHome: ["Zur Startseite", "Back to the start page"],
  // --- search form and inquiry form errors ---
  numberRule: [
    "Zahlen wie 500.000, 500.000,50 oder 2,5; ein Punkt vor genau drei Ziffern trennt Tausender.",
    "Numbers like 500,000, 500,000.50 or 2.5; a separator before exactly three digits separates thousands.",
  ],
  inquiryFieldName: [
    "Name: Bitte geben Sie Ihren Namen in einer Zeile an (höchstens 200 Zeichen).",
    "Name: please give your name on one line (at most 200 characters).",
  ],
  inquiryFieldEmail: [
    "E-Mail-Adresse: Bitte geben Sie eine gültige E-Mail-Adresse an, z. B. name@beispiel.de.",
    "E-mail address: please give a valid e-mail address, e.g. name@example.org.",
  ],
  inquiryFieldPhone: ["Telefon: eine Zeile, bis 50 Zeichen.", "Phone: one line, up to 50 characters."],
  inquiryFieldMessage: [
    "Ihre Nachricht: Bitte schreiben Sie eine Nachricht mit 1 bis 10.000 Zeichen.",
    "Your message: please write a message of 1 to 10,000 characters.",
  ],
} as const;

/** A text key. */
export type TextKey = keyof typeof TEXTS;

/** The text `key` in `lang`. */
export function t(lang: Lang, key: TextKey): string {
  return TEXTS[key][lang === "en" ? 1 : 0];
}
