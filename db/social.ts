/**
 * SQL of the social inbox: connected pages (`social_pages`) and received comments and messages
 * (`social_entries`). Every read of entries is scoped to one office; ids given here are already valid UUIDs.
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";

/** The handle a function runs on: the database or a transaction. */
type Q = Kysely<Database>;

/** A social network of the inbox. */
export type SocialNetz = "facebook" | "instagram";
/** A kind of inbox entry. */
export type SocialArt = "comment" | "message";

/** What connecting a page did: the office it belonged to before (null when it was not connected). */
export interface ConnectResult {
  previousOfficeId: string | null;
}

/** Connects page `pageId` of `netz` to `officeId` (moving it from another office); one transaction. */
export async function connectPage(
  db: Db,
  p: { netz: SocialNetz; pageId: string; officeId: string; name: string | null; at: Date },
): Promise<ConnectResult> {
  return await db.kysely.transaction().execute(async (tx) => {
    const before = await sql<{ office_id: string }>`
      select office_id::text as office_id from social_pages
      where netz = ${p.netz} and page_id = ${p.pageId} for update`.execute(tx);
    await sql`
      insert into social_pages (netz, page_id, office_id, name, connected_at)
      values (${p.netz}, ${p.pageId}, ${p.officeId}, ${p.name}, ${p.at})
      on conflict (netz, page_id) do update
        set office_id = excluded.office_id, name = coalesce(excluded.name, social_pages.name),
            connected_at = excluded.connected_at`.execute(tx);
    return { previousOfficeId: before.rows[0]?.office_id ?? null };
  });
}

/**
 * Removes the connection of page `pageId` of `netz` (only when it belongs to `officeId`, if given); returns the
 * office it belonged to, or null when nothing was removed.
 */
export async function disconnectPage(
  db: Db,
  netz: SocialNetz,
  pageId: string,
  officeId?: string,
): Promise<string | null> {
  const ofOffice = officeId ? sql`and office_id = ${officeId}` : sql``;
  const r = await sql<{ office_id: string }>`
    delete from social_pages where netz = ${netz} and page_id = ${pageId} ${ofOffice}
    returning office_id::text as office_id`.execute(db.kysely);
  return r.rows[0]?.office_id ?? null;
}

/** The offices the given pages of `netz` are connected to (page id → office id); unconnected pages are absent. */
export async function connectedOffices(
  q: Q,
  netz: SocialNetz,
  pageIds: string[],
): Promise<Map<string, string>> {
  if (pageIds.length === 0) return new Map();
  const r = await sql<{ page_id: string; office_id: string }>`
    select page_id, office_id::text as office_id from social_pages
    where netz = ${netz} and page_id in (${sql.join(pageIds)})`.execute(q);
  return new Map(r.rows.map((row) => [row.page_id, row.office_id]));
}

/** A new inbox entry. */
export interface NewSocialEntry {
  officeId: string;
  netz: SocialNetz;
  art: SocialArt;
  externalId: string;
  pageId: string;
  postId: string | null;
  authorId: string | null;
  authorName: string | null;
  text: string;
  listingId: string | null;
  at: Date;
}

/** Inserts an entry unless one with the same network and external id exists; returns the new id or undefined. */
export async function insertSocialEntry(q: Q, e: NewSocialEntry): Promise<string | undefined> {
  const r = await sql<{ id: string }>`
    insert into social_entries
      (office_id, netz, art, external_id, page_id, post_id, author_id, author_name, text, listing_id, received_at)
    values (${e.officeId}, ${e.netz}, ${e.art}, ${e.externalId}, ${e.pageId}, ${e.postId}, ${e.authorId},
      ${e.authorName}, ${e.text}, ${e.listingId}, ${e.at})
    on conflict (netz, external_id) do nothing
    returning id::text as id`.execute(q);
  return r.rows[0]?.id;
}

/** One stored entry with the name of its page. */
export interface SocialEntryRow {
  id: string;
  netz: SocialNetz;
  art: SocialArt;
  pageId: string;
  pageName: string | null;
  postId: string | null;
  authorId: string | null;
  authorName: string | null;
  text: string;
  listingId: string | null;
  receivedAt: Date;
}

/** Which entries of an office to list. */
export interface SocialEntryFilter {
  listingId?: string | undefined;
  netz?: SocialNetz | undefined;
  art?: SocialArt | undefined;
}

/** One page of the office's entries, newest first, and the number of all that match. */
export async function listSocialEntries(
  db: Db,
  officeId: string,
  f: SocialEntryFilter,
  paging: { limit: number; offset: number },
): Promise<{ rows: SocialEntryRow[]; total: number }> {
  const where = sql.join(
    [
      sql`e.office_id = ${officeId}`,
      ...(f.listingId ? [sql`e.listing_id = ${f.listingId}`] : []),
      ...(f.netz ? [sql`e.netz = ${f.netz}`] : []),
      ...(f.art ? [sql`e.art = ${f.art}`] : []),
    ],
    sql` and `,
  );
  const count = await sql<{ n: number }>`select count(*)::int as n from social_entries e where ${where}`
    .execute(db.kysely);
  const r = await sql<SocialEntryRow>`
    select e.id::text as id, e.netz, e.art, e.page_id as "pageId", p.name as "pageName", e.post_id as "postId",
      e.author_id as "authorId", e.author_name as "authorName", e.text, e.listing_id::text as "listingId",
      e.received_at as "receivedAt"
    from social_entries e
    left join social_pages p on p.netz = e.netz and p.page_id = e.page_id and p.office_id = e.office_id
    where ${where}
    order by e.received_at desc, e.id desc
    limit ${paging.limit} offset ${paging.offset}`.execute(db.kysely);
  return { rows: r.rows, total: count.rows[0]?.n ?? 0 };
}
