/**
 * SQL of the e-mail alerts of saved searches (searches/search_alerts.ts): a search's alert setting and stop token,
 * the facts an alert mail needs, and the matches not mailed yet. Every write of a seeker's search is scoped to the
 * seeker; ids given here are lower-case UUIDs.
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import { type Listing, PUBLIC_COLUMNS } from "./listings.ts";
import type { Database } from "./schema.ts";

/** The handle a function runs on: the database or a transaction. */
type Q = Kysely<Database>;

/** How often a saved search mails its new matches. */
export type AlertKind = "off" | "daily" | "instant";

/** A saved search's alert as stored. */
export interface AlertRow {
  id: string;
  seeker_id: string;
  name: string | null;
  filters: unknown;
  alert: AlertKind;
  alert_token: string | null;
  alert_since: Date | null;
}

/** The alert settings of the seeker's saved searches, by id. */
export async function alertsOf(db: Db, seekerId: string): Promise<Map<string, AlertKind>> {
  const rows = await db.kysely.selectFrom("saved_searches").select(["id", "alert"])
    .where("seeker_id", "=", seekerId).execute();
  return new Map(rows.map((r) => [r.id, r.alert]));
}

/**
 * Sets the alert of the seeker's saved search `id`. Switching it on from off stores a new `token` (earlier stop links
 * die) and `since`; changing between daily and instant keeps both; off keeps the token (a stop link of an earlier
 * mail still opens its page). False when the seeker has no such search.
 */
export async function setAlert(
  tx: Q,
  s: { seekerId: string; id: string; alert: AlertKind; token: string; since: Date },
): Promise<boolean> {
  const switchedOn = sql<boolean>`alert = 'off'`;
  const r = await tx.updateTable("saved_searches").set(
    s.alert === "off" ? { alert: "off", alert_since: null } : {
      alert: s.alert,
      alert_token: sql<string>`case when ${switchedOn} then ${s.token} else alert_token end`,
      alert_since: sql<Date>`case when ${switchedOn} then ${s.since}::timestamptz else alert_since end`,
    },
  ).where("id", "=", s.id).where("seeker_id", "=", s.seekerId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The alert of saved search `id` (any seeker's: the stop link), or undefined when there is no such search. */
export async function alertOf(q: Q, id: string): Promise<AlertRow | undefined> {
  return await q.selectFrom("saved_searches")
    .select(["id", "seeker_id", "name", "filters", "alert", "alert_token", "alert_since"])
    .where("id", "=", id).executeTakeFirst();
}

/** Switches the alert of saved search `id` off (its stop link used; the token stays until switched on again). */
export async function stopAlert(q: Q, id: string): Promise<void> {
  await q.updateTable("saved_searches").set({ alert: "off", alert_since: null })
    .where("id", "=", id).execute();
}

/** The e-mail address of seeker `seekerId`, or undefined when the account is gone. */
export async function seekerAddress(q: Q, seekerId: string): Promise<string | undefined> {
  const row = await q.selectFrom("users").select("email").where("id", "=", seekerId).executeTakeFirst();
  return row?.email;
}

/**
 * The matches of saved search `searchId` found after `since` that are still published, newest found first: at most
 * `limit` of them (public columns) and their total.
 */
export async function unmailedMatches(
  q: Q,
  searchId: string,
  since: Date,
  limit: number,
): Promise<{ items: Listing[]; total: number }> {
  const base = q.selectFrom("saved_search_matches as m")
    .innerJoin("listings", "listings.id", "m.listing_id")
    .where("m.saved_search_id", "=", searchId)
    .where("m.found_at", ">", since)
    .where("listings.status", "=", sql.lit("published"));
  // One after the other: `q` is usually a transaction, one connection.
  const items = await base.select(PUBLIC_COLUMNS).orderBy("m.found_at", "desc")
    .orderBy("listings.published_at", "desc").orderBy("listings.id", "desc").limit(limit).execute();
  const count = await base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow();
  return { items: items as Listing[], total: count.n };
}

/** Moves the alert of saved search `id` on: matches found up to `at` count as mailed. */
export async function markAlerted(q: Q, id: string, at: Date): Promise<void> {
  await q.updateTable("saved_searches").set({ alert_since: at }).where("id", "=", id).execute();
}
