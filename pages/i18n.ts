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
} as const;

/** A text key. */
export type TextKey = keyof typeof TEXTS;

/** The text `key` in `lang`. */
export function t(lang: Lang, key: TextKey): string {
  return TEXTS[key][lang === "en" ? 1 : 0];
}
