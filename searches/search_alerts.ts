/**
 * E-mail alerts of saved searches (issue 31): the one place their rules live.
 *
 * - A seeker sets each saved search's alert to `off` (the default), `daily` or `instant` ({@linkcode setSearchAlert}).
 * - The saved-search runs (searches/saved_searches.ts, every 5 minutes) record the alert mail in the run's own
 *   transaction ({@linkcode recordAlertMail}): `instant` after every run that found new matches, `daily` at most
 *   once in 24 hours (counted from the last alert mail, or from switching the alert on) with every match found
 *   since. Only matches still published are listed; none left, no mail. The mail outbox sends it after commit
 *   (auth/mail.ts); an alert switched off meanwhile keeps a recorded mail from being sent.
 * - Content: German with one English hint line; the search's name and filters in words, up to
 *   {@linkcode ALERT_LISTED} new listings (title, place, price, rooms, area, link), a link to all results and to
 *   the account's saved searches. Plain text, nothing about providers.
 * - Each mail ends with a stop line (also `List-Unsubscribe`, one-click) added when it is sent
 *   (`alertMailExtras` of searches/alert_address.ts): `<BASE_URL>/suche-mails/abbestellen/<search id, 32 hex>-<token>`. The token is
 *   20 base32 characters (100 bits) from the platform's random source, stored per search, new each time the alert
 *   is switched on (links of mails before that die), compared in constant time: a link names exactly one search,
 *   so it can be neither guessed nor used for another search. GET shows a confirm page, POST switches the alert
 *   off; stopping twice is fine.
 */
import { z } from "zod";
import { timingSafeEqual } from "../crypto.ts";
import { type SearchFilters, searchFiltersSchema } from "../catalogue/filters.ts";
import { askedPrice, decimal, filtersText } from "../catalogue/german.ts";
import type { Listing } from "../catalogue/listing.ts";
import { insertMail } from "../db/mail.ts";
import {
  type AlertKind,
  alertOf,
  type AlertRow,
  alertsOf,
  markAlerted,
  seekerAddress,
  setAlert,
  stopAlert,
  unmailedMatches,
} from "../db/search_alerts.ts";
import { actingSeeker, type Action, type AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { parseAlertRef } from "./alert_address.ts";
import { MAIL_TOKEN, newMailToken } from "../inquiries/inquiry_address.ts";
import { clip } from "../text.ts";

export type { AlertKind } from "../db/search_alerts.ts";
export { ALERT_STOP_PATH, alertStopUrl } from "./alert_address.ts";

/** The alert settings, in the order the pages offer them. */
export const ALERT_KINDS = ["off", "daily", "instant"] as const satisfies readonly AlertKind[];
/** An alert setting as a form or tool sends it. */
export const alertKindSchema = z.enum(ALERT_KINDS);
/** A daily alert mails at most once in this many ms. */
export const DAILY_ALERT_MS = 24 * 3_600_000;
/** At most this many new listings are listed in one alert mail (the rest are counted). */
export const ALERT_LISTED = 10;
/** The account's page of saved searches. */
export const SAVED_SEARCHES_PAGE = "/konto/suchen";

/** The query string (without `?`) of `/objekte` for `filters`: the set filters as plain text, in contract order. */
export function filtersQuery(filters: SearchFilters): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined) q.set(k, String(v));
  return q.toString();
}

/**
 * Sets the alert of the acting seeker's saved search `id`. Switching it on mails only matches found from now on;
 * a malformed, unknown or another account's id throws `not_found`.
 */
export async function setSearchAlert(a: Action, id: string, alert: AlertKind): Promise<void> {
  const seekerId = actingSeeker(a);
  const done = isUuid(id) &&
    await setAlert(a.tx, { seekerId, id: id.toLowerCase(), alert, token: newMailToken(), since: a.now });
  if (!done) throw new AppError("not_found");
}

/** The alert setting of each of the seeker's saved searches, by id. */
export async function searchAlerts(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
): Promise<Map<string, AlertKind>> {
  return await alertsOf(deps.db, seekerId);
}

/** One listing of an alert mail: title, place and facts, then its link. */
function listingLines(x: Listing, baseUrl: string): string[] {
  const facts = [
    [x.postal_code, x.city].filter(Boolean).join(" "),
    askedPrice(x.asked_price, x.transaction_type),
    x.total_rooms !== null ? `${decimal(x.total_rooms)} Zimmer` : "",
    x.square_meters !== null ? `${decimal(x.square_meters)} m²` : "",
  ].filter(Boolean).join(", ");
  return [
    `- ${x.title ? clip(x.title, 200) : "Objekt ohne Titel"}${facts ? ` – ${facts}` : ""}`,
    `  ${baseUrl}/objekte/${x.id}`,
  ];
}

/** Subject and body (without the stop line) of an alert mail about `total` new matches, `items` listed. */
export function composeAlertMail(
  search: { name: string | null; filters: SearchFilters },
  found: { items: Listing[]; total: number },
  baseUrl: string,
): { subject: string; body: string } {
  const base = baseUrl.replace(/\/+$/, "");
  const hits = found.total === 1 ? "1 neues Angebot" : `${found.total} neue Angebote`;
  const which = search.name ? `„${clip(search.name, 200)}“` : "";
  const more = found.total - found.items.length;
  const lines = [
    "Guten Tag,",
    "",
    `für Ihre gespeicherte Suche ${which ? `${which} ` : ""}(${
      filtersText(search.filters)
    }) gibt es ${hits}:`,
    "",
    ...found.items.flatMap((x) => listingLines(x, base)),
    ...(more > 0 ? [`… und ${more} weitere.`] : []),
    "",
    `Alle Treffer: ${base}/objekte?${filtersQuery(search.filters)}`,
    `Ihre gespeicherten Suchen: ${base}${SAVED_SEARCHES_PAGE}`,
    "",
    "(English: new listings match your saved search; the links above open them.)",
  ];
  return { subject: `${hits} für Ihre Suche${which ? ` ${which}` : ""}`, body: lines.join("\n") };
}

/** Whether `row`'s alert is due at `now`: on, and for a daily alert its last mail at least a day ago. */
function alertDue(row: AlertRow, now: Date): row is AlertRow & { alert_since: Date } {
  if (row.alert === "off" || !row.alert_since) return false;
  return row.alert === "instant" || now.getTime() - row.alert_since.getTime() >= DAILY_ALERT_MS;
}

/**
 * Records the alert mail of saved search `id` within run action `a` when its alert is due and matches found since
 * its last mail are still published; the matches then count as mailed. Returns the mail's id, or null when none was
 * recorded. The commit wakes the mail sender.
 */
export async function recordAlertMail(a: Action, id: string, baseUrl: string): Promise<string | null> {
  const row = await alertOf(a.tx, id);
  if (!row || !alertDue(row, a.now)) return null;
  const found = await unmailedMatches(a.tx, id, row.alert_since, ALERT_LISTED);
  if (found.total === 0) return null;
  const to = await seekerAddress(a.tx, row.seeker_id);
  if (!to) return null;
  const filters = searchFiltersSchema.parse(row.filters);
  const mail = composeAlertMail({ name: row.name, filters }, found, baseUrl);
  const mailId = await insertMail(a.tx, { to, ...mail, savedSearchId: id, nextAttemptAt: a.now });
  await markAlerted(a.tx, id, a.now);
  return mailId;
}

/** The search of stop link `refText` when its token is that search's current alert token (constant time). */
async function searchOfLink(a: Pick<Action, "tx">, refText: string): Promise<AlertRow | undefined> {
  const ref = parseAlertRef(refText);
  if (!ref || !MAIL_TOKEN.test(ref.token)) return undefined;
  const row = await alertOf(a.tx, ref.id);
  return row?.alert_token && timingSafeEqual(row.alert_token, ref.token) ? row : undefined;
}

/**
 * The name of the search a stop link (`<32 hex>-<token>`) stops: `{name}` when it is valid, undefined for a
 * malformed link, an unknown search or a wrong or outdated token (the alert was switched on again since).
 */
export async function alertStopLinkSearch(
  deps: Pick<AppDeps, "db">,
  refText: string,
): Promise<{ name: string | null } | undefined> {
  const row = await searchOfLink({ tx: deps.db.kysely }, refText);
  return row && { name: row.name };
}

/**
 * Switches off the alert of stop link `refText`'s search (also mails recorded but not yet sent); false, changing
 * nothing, for a malformed link, an unknown search or a wrong or outdated token.
 */
export async function stopAlertByLink(a: Action, refText: string): Promise<boolean> {
  const row = await searchOfLink(a, refText);
  if (!row) return false;
  await stopAlert(a.tx, row.id);
  return true;
}
