/**
 * The texts of the account-mail pages (confirmation link, password reset) in German and English. Kept here, next
 * to the pages that use them, instead of in the shared `pages/i18n.ts`.
 */
import { type Lang, t, type TextKey } from "./i18n.ts";

const TEXTS = {
  notVerifiedSent: [
    "Ihre E-Mail-Adresse ist noch nicht bestätigt. Wir haben Ihnen soeben einen neuen Bestätigungslink geschickt.",
    "Your e-mail address is not confirmed yet. We have just sent you a new confirmation link.",
  ],
  notVerifiedLimited: [
    "Ihre E-Mail-Adresse ist noch nicht bestätigt. Wir haben Ihnen vor Kurzem bereits einen Bestätigungslink geschickt und senden erst in einigen Minuten wieder einen. Bitte sehen Sie in Ihrem Postfach (auch im Spam-Ordner) nach.",
    "Your e-mail address is not confirmed yet. We sent you a confirmation link a short while ago and will send another only in a few minutes. Please look in your inbox (and the spam folder).",
  ],
  linkInvalidTitle: ["Link ungültig oder abgelaufen", "Link invalid or expired"],
  verifyLinkInvalid: [
    "Dieser Bestätigungslink ist ungültig oder abgelaufen. Ihre E-Mail-Adresse wurde damit nicht bestätigt. Fordern Sie hier einen neuen Link an.",
    "This confirmation link is invalid or has expired. Your e-mail address has not been confirmed with it. Ask for a new link here.",
  ],
  resendTitle: ["Neuen Bestätigungslink anfordern", "Ask for a new confirmation link"],
  sendNewLink: ["Neuen Link senden", "Send a new link"],
  resendDone: [
    "Wenn zu dieser Adresse ein Konto gehört, das noch nicht bestätigt ist, haben wir soeben einen neuen Bestätigungslink dorthin geschickt. Er ist 24 Stunden gültig.",
    "If this address belongs to an account that is not confirmed yet, we have just sent a new confirmation link to it. It is valid for 24 hours.",
  ],
  mailLimited: [
    "Für diese Adresse wurde eben erst ein Link angefordert. Bitte sehen Sie in Ihrem Postfach nach oder versuchen Sie es in einigen Minuten erneut (höchstens fünf Links am Tag).",
    "A link was asked for this address only a moment ago. Please look in your inbox or try again in a few minutes (at most five links a day).",
  ],
  forgotLink: ["Passwort vergessen?", "Forgot your password?"],
  forgotTitle: ["Passwort vergessen", "Forgot your password"],
  forgotIntro: [
    "Geben Sie die E-Mail-Adresse Ihres Kontos ein. Wir schicken Ihnen einen Link, mit dem Sie ein neues Passwort festlegen.",
    "Enter your account's e-mail address. We will send you a link to set a new password.",
  ],
  forgotDone: [
    "Wenn zu dieser Adresse ein Konto gehört, haben wir soeben einen Link dorthin geschickt. Er ist eine Stunde gültig und kann einmal benutzt werden.",
    "If this address belongs to an account, we have just sent a link to it. It is valid for one hour and can be used once.",
  ],
  newPasswordTitle: ["Neues Passwort festlegen", "Set a new password"],
  newPassword: ["Neues Passwort", "New password"],
  newPasswordAgain: ["Neues Passwort wiederholen", "New password again"],
  savePassword: ["Passwort speichern", "Save password"],
  passwordsDiffer: [
    "Die beiden Passwörter stimmen nicht überein.",
    "The two passwords do not match.",
  ],
  resetLinkInvalid: [
    "Dieser Link zum Festlegen eines neuen Passworts ist ungültig, abgelaufen oder wurde schon benutzt. Ihr Passwort ist unverändert. Fordern Sie hier einen neuen Link an.",
    "This link to set a new password is invalid, has expired or has already been used. Your password is unchanged. Ask for a new link here.",
  ],
  passwordChanged: [
    "Ihr Passwort ist geändert. Alle Sitzungen Ihres Kontos wurden beendet; bitte melden Sie sich mit dem neuen Passwort an. Verbundene Apps und API-Schlüssel bleiben bestehen: Prüfen Sie nach der Anmeldung unter „Verbundene Apps“ und „API-Schlüssel“, ob Sie alle kennen.",
    "Your password has been changed. Every session of your account has ended; please sign in with the new password. Connected apps and API keys stay: after signing in, check under “Connected apps” and “API keys” that you know all of them.",
  ],
} as const satisfies Record<string, readonly [string, string]>;

/** A key of the account-mail texts. */
export type AccountTextKey = keyof typeof TEXTS;

/** The account-mail text `key` in language `l`. */
export function accountText(l: Lang, key: AccountTextKey): string {
  return TEXTS[key][l === "en" ? 1 : 0];
}

/** Whether `key` is one of the account-mail texts (and not a key of `pages/i18n.ts`). */
export function isAccountTextKey(key: string): key is AccountTextKey {
  return Object.hasOwn(TEXTS, key);
}

/** A text of `pages/i18n.ts` or of the account-mail table. */
export type PageMsg = TextKey | AccountTextKey;

/** The text `key` of either table in language `l`. */
export function pageText(l: Lang, key: PageMsg): string {
  return isAccountTextKey(key) ? accountText(l, key) : t(l, key);
}
