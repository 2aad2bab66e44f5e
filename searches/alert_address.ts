/**
 * The stop link of alert mails of saved searches (searches/search_alerts.ts):
 * `<BASE_URL>/suche-mails/abbestellen/<search id, 32 hex>-<token>`, its parsing, and what an alert mail gets when it
 * is sent (auth/mail.ts). Pure functions: the mail sender imports them without the app's state.
 */
import { isUuid } from "../ids.ts";

/** Where the stop page lives: `${ALERT_STOP_PATH}/<search id, 32 hex>-<token>`. */
export const ALERT_STOP_PATH = "/suche-mails/abbestellen";

/** The stop link of saved search `id`'s alert under `baseUrl`. */
export function alertStopUrl(baseUrl: string, id: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${ALERT_STOP_PATH}/${id.replaceAll("-", "").toLowerCase()}-${token}`;
}

/** The search id and token of a stop link's last part (`<32 hex>-<token>`), or undefined when malformed. */
export function parseAlertRef(text: string): { id: string; token: string } | undefined {
  const m = /^([0-9a-f]{32})-([a-z2-7]{20})$/.exec(text);
  if (!m) return undefined;
  const h = m[1]!;
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return isUuid(id) ? { id, token: m[2]! } : undefined;
}

/** What an alert mail gets when it is sent: its stop URL and the stop line of its text (no reply address). */
export function alertMailExtras(
  cfg: { baseUrl: string },
  e: { savedSearchId: string; stopToken: string },
): { replyTo: undefined; stopUrl: string; footer: string } {
  const url = alertStopUrl(cfg.baseUrl, e.savedSearchId, e.stopToken);
  return {
    replyTo: undefined,
    stopUrl: url,
    footer: [
      "",
      "-- ",
      `Keine E-Mails mehr zu dieser Suche: ${url}`,
      `(No more e-mails about this saved search: ${url})`,
    ].join("\n"),
  };
}
