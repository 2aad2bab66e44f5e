/**
 * The texts of the delivery part of the connected-apps page (docs/contract.md §5.7, §6.4): a subscription's
 * delivery state, its recent attempts, "send again" and "reactivate", in German and English. Kept here, next to
 * the page, instead of in the shared `pages/i18n.ts`.
 */
import type { Lang } from "./i18n.ts";

const TEXTS = {
  deliveryActive: ["Zustellung aktiv", "Delivery active"],
  deliverySuspended: ["Zustellung ausgesetzt", "Delivery suspended"],
  lastDelivery: ["Letzte Zustellung", "Last delivery"],
  noDeliveryYet: ["noch keine", "none yet"],
  lastError: ["Letzter Fehler", "Last error"],
  failingSince: ["Fehler seit", "Failing since"],
  suspendedExplain: [
    "Der vierte Zustellversuch eines Ereignisses ist fehlgeschlagen. Neue Ereignisse werden aufbewahrt, aber nicht gesendet, bis die App das Abo erneuert oder Sie die Zustellung hier reaktivieren. Dann werden die aufbewahrten Ereignisse der letzten 24 Stunden nachgeliefert: jedes einmal, in ihrer Reihenfolge, höchstens zehn pro Sekunde.",
    "The fourth delivery attempt of an event failed. New events are kept but not sent until the app renews the subscription or you reactivate delivery here. The kept events of the last 24 hours are then sent: each once, in their order, at most ten per second.",
  ],
  keptEvents: ["Aufbewahrte Ereignisse", "Kept events"],
  resendingEvents: ["Werden nachgeliefert", "Being sent again"],
  reactivate: ["Zustellung reaktivieren", "Reactivate delivery"],
  reactivated: [
    "Die Zustellung ist wieder aktiv. Die aufbewahrten Ereignisse der letzten 24 Stunden werden nachgeliefert.",
    "Delivery is active again. The kept events of the last 24 hours are being sent.",
  ],
  alreadyActive: ["Die Zustellung war bereits aktiv.", "Delivery was already active."],
  recentAttempts: ["Letzte Zustellversuche", "Recent delivery attempts"],
  noAttempts: ["Noch keine Zustellversuche.", "No delivery attempts yet."],
  colTime: ["Zeit", "Time"],
  colEvent: ["Ereignis", "Event"],
  colAttempt: ["Versuch", "Attempt"],
  colResult: ["Ergebnis", "Result"],
  colDuration: ["Dauer", "Duration"],
  outcome_delivered: ["zugestellt", "delivered"],
  outcome_retry: ["wird wiederholt", "will be retried"],
  outcome_failed: ["fehlgeschlagen", "failed"],
  outcome_gone: ["410: Abo beendet", "410: subscription ended"],
  outcome_dropped: ["nicht gesendet", "not sent"],
  cat_connection_refused: ["Verbindung abgelehnt", "connection refused"],
  cat_timeout: ["keine Antwort in 10 s", "no answer within 10 s"],
  cat_tls_error: ["TLS-Fehler", "TLS error"],
  cat_http_4xx: ["Fehlerantwort 4xx", "error answer 4xx"],
  cat_http_5xx: ["Serverfehler 5xx", "server error 5xx"],
  resend: ["Erneut senden", "Send again"],
  resent: [
    "Das Ereignis wird erneut gesendet (bis zu vier Versuche).",
    "The event is being sent again (up to four attempts).",
  ],
  resendRefused: [
    "Dieses Ereignis kann nicht erneut gesendet werden: Es gehört nicht zu einem Ihrer aktiven Abos, seine Zustellung ist nicht fehlgeschlagen, oder es ist älter als 24 Stunden.",
    "This event cannot be sent again: it does not belong to one of your active subscriptions, its delivery did not fail, or it is older than 24 hours.",
  ],
  resendSuspended: [
    "Die Zustellung dieses Abos ist ausgesetzt. Reaktivieren Sie sie: Dann werden alle aufbewahrten Ereignisse nachgeliefert.",
    "Delivery of this subscription is suspended. Reactivate it: all kept events are then sent.",
  ],
  subscriptionNotFound: [
    "Dieses Abo gibt es in Ihrem Konto nicht (mehr).",
    "This subscription does not exist in your account (any more).",
  ],
} as const;

/** A text key of the delivery part of the connected-apps page. */
export type DeliveryTextKey = keyof typeof TEXTS;

/** The text `key` in `lang`. */
export function td(lang: Lang, key: DeliveryTextKey): string {
  return TEXTS[key][lang === "en" ? 1 : 0];
}
