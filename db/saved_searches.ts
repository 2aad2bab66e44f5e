/** SQL of saved searches and their matches. Every read and write of a seeker's searches is scoped to the seeker. */
import { type Kysely, sql } from "kysely";
import type { Listing } from "./listings.ts";
import type { ListingFilter } from "./listing_filter.ts";
import type { Db } from "./connection.ts";
import { filterWhere, PUBLIC_COLUMNS } from "./listings.ts";
import type { Database } from "./schema.ts";

/** A saved search as stored (`filters` is the parsed JSON object). */
export interface SavedSearchRow {
  id: string;
  seeker_id: string;
  name: string | null;
  filters: unknown;
  last_run_at: Date;
  created_at: Date;
}

/** A saved search to insert; `at` is the domain's clock (creation time and first `last_run_at`). */
export interface NewSavedSearch {
  seekerId: string;
  name: string | null;
  filters: Record<string, unknown>;
  at: Date;
}

const COLUMNS = ["id", "seeker_id", "name", "filters", "last_run_at", "created_at"] as const;

function toRow(r: {
  id: string;
  seeker_id: string;
  name: string | null;
  filters: unknown;
  last_run_at: Date | string;
  created_at: Date | string;
}): SavedSearchRow {
  return {
    id: r.id,
    seeker_id: r.seeker_id,
    name: r.name,
    filters: typeof r.filters === "string" ? JSON.parse(r.filters) : r.filters,
    last_run_at: new Date(r.last_run_at),
    created_at: new Date(r.created_at),
  };
}

/**
 * Inserts `s` unless its seeker already has `max` saved searches (then answers undefined). The count and the insert
 * run under a per-seeker advisory lock in one transaction, so concurrent calls never exceed `max`.
 */
export async function insertSavedSearchBelow(
  tx: Kysely<Database>,
  s: NewSavedSearch,
  max: number,
): Promise<SavedSearchRow | undefined> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`saved_searches:${s.seekerId}`}, 0))`.execute(tx);
  const { n } = await tx.selectFrom("saved_searches").select(sql<number>`count(*)::int`.as("n"))
    .where("seeker_id", "=", s.seekerId).executeTakeFirstOrThrow();
  if (n >= max) return undefined;
  const row = await tx.insertInto("saved_searches").values({
    seeker_id: s.seekerId,
    name: s.name,
    filters: sql<string>`${JSON.stringify(s.filters)}::text::jsonb`,
    last_run_at: s.at,
    created_at: s.at,
  }).returning(COLUMNS).executeTakeFirstOrThrow();
  return toRow(row);
}

/** The seeker's saved searches, newest first (`limit` from `offset`), and their total. */
export async function listSavedSearchesOf(
  db: Db,
  seekerId: string,
  limit: number,
  offset: number,
): Promise<{ rows: SavedSearchRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.kysely.selectFrom("saved_searches").select(COLUMNS).where("seeker_id", "=", seekerId)
      .orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).offset(offset).execute(),
    db.kysely.selectFrom("saved_searches").select(sql<number>`count(*)::int`.as("n"))
      .where("seeker_id", "=", seekerId).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(toRow), total: count.n };
}

/** The saved search `id` (a lower-case UUID) when it belongs to `seekerId`, else undefined. */
export async function findSavedSearchOf(
  db: Db,
  seekerId: string,
  id: string,
): Promise<SavedSearchRow | undefined> {
  const row = await db.kysely.selectFrom("saved_searches").select(COLUMNS)
    .where("id", "=", id).where("seeker_id", "=", seekerId).executeTakeFirst();
  return row ? toRow(row) : undefined;
}

/** Deletes the saved search `id` (a lower-case UUID) of `seekerId` with its matches; false when there was none. */
export async function deleteSavedSearchOf(
  tx: Kysely<Database>,
  seekerId: string,
  id: string,
): Promise<boolean> {
  const res = await tx.deleteFrom("saved_searches").where("id", "=", id)
    .where("seeker_id", "=", seekerId).executeTakeFirst();
  return res.numDeletedRows > 0n;
}

/**
 * The listings found by the runs of saved search `searchId` that are still published, newest found first (then
 * publication time and id, descending): `limit` from `offset`, public columns only, and their total.
 */
export async function savedSearchMatches(
  db: Db,
  searchId: string,
  limit: number,
  offset: number,
): Promise<{ items: Listing[]; total: number }> {
  const base = db.kysely.selectFrom("saved_search_matches as m")
    .innerJoin("listings", "listings.id", "m.listing_id")
    .where("m.saved_search_id", "=", searchId)
    .where("listings.status", "=", sql.lit("published"));
  const [items, count] = await Promise.all([
    base.select(PUBLIC_COLUMNS).orderBy("m.found_at", "desc").orderBy("listings.published_at", "desc")
      .orderBy("listings.id", "desc").limit(limit).offset(offset).execute(),
    base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow(),
  ]);
  return { items: items as Listing[], total: count.n };
}

/** Ids of the saved searches whose last run was before `now`, the longest-waiting first. */
export async function dueSavedSearchIds(db: Db, now: Date): Promise<string[]> {
  const rows = await db.kysely.selectFrom("saved_searches").select("id").where("last_run_at", "<", now)
    .orderBy("last_run_at").orderBy("id").execute();
  return rows.map((r) => r.id);
}

/**
 * Locks saved search `id` for this transaction when its last run was before `now` (`for update skip locked`):
 * undefined when another transaction holds it or it has already run up to `now`.
 */
export async function lockDueSavedSearch(
  tx: Kysely<Database>,
  id: string,
  now: Date,
): Promise<SavedSearchRow | undefined> {
  const row = await tx.selectFrom("saved_searches").select(COLUMNS).where("id", "=", id)
    .where("last_run_at", "<", now).forUpdate().skipLocked().executeTakeFirst();
  return row ? toRow(row) : undefined;
}

/**
 * Stores as matches of `searchId` (found at `now`) the listings matching `f` published in (`after`, `now`];
 * listings it had already found are skipped. Answers the number of newly stored matches.
 */
export async function insertNewMatches(
  tx: Kysely<Database>,
  searchId: string,
  f: ListingFilter,
  after: Date,
  now: Date,
): Promise<number> {
  const rows = await tx.insertInto("saved_search_matches")
    .columns(["saved_search_id", "listing_id", "found_at"])
    .expression(
      tx.selectFrom("listings")
        .select([
          sql<string>`${searchId}::uuid`.as("saved_search_id"),
          "id",
          sql<Date>`${now}::timestamptz`.as("found_at"),
        ])
        .where(filterWhere(f))
        .where("published_at", ">", after)
        .where("published_at", "<=", now),
    )
    .onConflict((oc) => oc.doNothing())
    .returning("listing_id").execute();
  return rows.length;
}

/** Sets the last run of saved search `id` to `at`. */
export async function setLastRun(tx: Kysely<Database>, id: string, at: Date): Promise<void> {
  await tx.updateTable("saved_searches").set({ last_run_at: at }).where("id", "=", id).execute();
}
