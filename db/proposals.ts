/**
 * SQL of the service's agent: proposals (`vorschlag`) awaiting a provider's approval, the offices' text templates,
 * and the reads the agent drafts from (inquiry, listing facts, free viewing slots, a processed document). Every
 * function takes the handle to run on (`db.kysely` or the caller's transaction); ids are already valid UUIDs.
 * Raw SQL with explicit row types (the tables are not in `schema.ts`); jsonb is read as text and parsed here, so
 * postgres.js and PGlite answer the same.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";

/** The handle a function runs on: the database or a transaction. */
type Q = Kysely<Database>;

/** What a proposal proposes. */
export type ProposalKind = "reply" | "rejection" | "property_change";
/** Where a proposal stands: waiting, approved (done) or discarded. */
export type ProposalStatus = "offen" | "freigegeben" | "verworfen";
/** Kinds of an office template. */
export type TemplateKind = "reply" | "rejection";
/** One changed field of a property change: its value when proposed and the proposed value. */
export interface FieldChange {
  alt: number | string | null;
  neu: number | string | null;
}

/**
 * A proposal as its office sees it: the query names the columns as the contract does (`vorschlag_id`,
 * `objekt_id`, `anfrage_id`, `datei_id`) and gives the times as ISO 8601 strings (UTC).
 */
export interface ProposalRow {
  vorschlag_id: string;
  vorschlag_art: ProposalKind;
  geht_hinaus: boolean;
  status: ProposalStatus;
  objekt_id: string;
  anfrage_id: string | null;
  datei_id: string | null;
  text: string | null;
  aenderungen: Record<string, FieldChange> | null;
  created_at: string;
  decided_at: string | null;
}

/** A proposal to store. */
export interface NewProposal {
  officeId: string;
  listingId: string;
  inquiryId: string | null;
  fileId: string | null;
  kind: ProposalKind;
  gehtHinaus: boolean;
  text: string | null;
  aenderungen: Record<string, FieldChange> | null;
  at: Date;
}

const COLUMNS = sql`id as vorschlag_id, vorschlag_art, geht_hinaus, status, listing_id as objekt_id,
  inquiry_id as anfrage_id, file_id as datei_id, text, aenderungen::text as aenderungen, created_at, decided_at`;

type RawRow = Omit<ProposalRow, "aenderungen" | "created_at" | "decided_at"> & {
  aenderungen: string | null;
  created_at: Date;
  decided_at: Date | null;
};

function toRow(r: RawRow): ProposalRow {
  return {
    ...r,
    aenderungen: r.aenderungen === null ? null : JSON.parse(r.aenderungen),
    created_at: new Date(r.created_at).toISOString(),
    decided_at: r.decided_at === null ? null : new Date(r.decided_at).toISOString(),
  };
}

/** Stores an open proposal; returns its id. */
export async function insertProposal(q: Q, p: NewProposal): Promise<string> {
  const changes = p.aenderungen === null ? null : JSON.stringify(p.aenderungen);
  const r = await sql<{ id: string }>`insert into proposals
      (office_id, listing_id, inquiry_id, file_id, vorschlag_art, geht_hinaus, text, aenderungen, created_at)
    values (${p.officeId}, ${p.listingId}, ${p.inquiryId}, ${p.fileId}, ${p.kind}, ${p.gehtHinaus}, ${p.text},
      ${changes}::text::jsonb, ${p.at})
    returning id`.execute(q);
  return r.rows[0]!.id;
}

/** The office's proposal `id` (optionally locked `for update`), or undefined. */
export async function findProposal(
  q: Q,
  officeId: string,
  id: string,
  lock = false,
): Promise<ProposalRow | undefined> {
  const r = await sql<RawRow>`select ${COLUMNS} from proposals where id = ${id} and office_id = ${officeId}
    ${lock ? sql`for update` : sql``}`.execute(q);
  return r.rows[0] ? toRow(r.rows[0]) : undefined;
}

/** Filters of the office's proposal list. */
export interface ProposalFilter {
  status?: ProposalStatus | undefined;
  listingId?: string | undefined;
  /** Only the proposals answering this inquiry. */
  inquiryId?: string | undefined;
}

/** The office's proposals, newest first: `limit` rows from `offset`, and the total. */
export async function listProposalRows(
  q: Q,
  officeId: string,
  f: ProposalFilter,
  limit: number,
  offset: number,
): Promise<{ items: ProposalRow[]; total: number }> {
  const where = sql`office_id = ${officeId}
    ${f.status === undefined ? sql`` : sql`and status = ${f.status}`}
    ${f.listingId === undefined ? sql`` : sql`and listing_id = ${f.listingId}`}
    ${f.inquiryId === undefined ? sql`` : sql`and inquiry_id = ${f.inquiryId}`}`;
  const rows = await sql<RawRow>`select ${COLUMNS} from proposals where ${where}
    order by created_at desc, id desc limit ${limit} offset ${offset}`.execute(q);
  const count = await sql<{ n: number }>`select count(*)::int as n from proposals where ${where}`.execute(q);
  return { items: rows.rows.map(toRow), total: count.rows[0]!.n };
}

/**
 * Moves the office's OPEN proposal `id` to `status` (decided by `userId` at `at`; `text`, when given, replaces its
 * text) in one conditional statement: of several concurrent callers exactly one gets the row back; the others (and
 * any later caller) get undefined.
 */
export async function decideProposal(
  q: Q,
  officeId: string,
  id: string,
  d: { status: "freigegeben" | "verworfen"; userId: string; at: Date; text?: string | undefined },
): Promise<ProposalRow | undefined> {
  const r = await sql<RawRow>`update proposals set status = ${d.status}, decided_at = ${d.at},
      decided_by = ${d.userId}, text = coalesce(${d.text ?? null}::text, text)
    where id = ${id} and office_id = ${officeId} and status = 'offen'
    returning ${COLUMNS}`.execute(q);
  return r.rows[0] ? toRow(r.rows[0]) : undefined;
}

/**
 * Discards every OPEN reply and rejection of inquiry `inquiryId` (decided by `userId` at `at`) in one statement;
 * returns their ids. Rows locked by a concurrent approval are waited for and then skipped when no longer open.
 */
export async function discardOpenDrafts(
  q: Q,
  inquiryId: string,
  d: { userId: string; at: Date },
): Promise<string[]> {
  const r = await sql<{ id: string }>`update proposals set status = 'verworfen', decided_at = ${d.at},
      decided_by = ${d.userId}
    where inquiry_id = ${inquiryId} and status = 'offen' and vorschlag_art in ('reply', 'rejection')
    returning id`.execute(q);
  return r.rows.map((row) => row.id);
}

/** Replaces the changes of property change `id`. */
export async function setProposalChanges(
  q: Q,
  id: string,
  aenderungen: Record<string, FieldChange>,
): Promise<void> {
  await sql`update proposals set aenderungen = ${JSON.stringify(aenderungen)}::text::jsonb where id = ${id}`
    .execute(q);
}

/** The office's own template of `art`, or undefined (then the built-in default applies). */
export async function findTemplate(q: Q, officeId: string, art: TemplateKind): Promise<string | undefined> {
  const r = await sql<{ text: string }>`select text from office_templates
    where office_id = ${officeId} and art = ${art}`.execute(q);
  return r.rows[0]?.text;
}

/** Stores the office's own template of `art` (replacing the previous one); `null` removes it. */
export async function saveTemplate(
  q: Q,
  officeId: string,
  art: TemplateKind,
  text: string | null,
  at: Date,
): Promise<void> {
  if (text === null) {
    await sql`delete from office_templates where office_id = ${officeId} and art = ${art}`.execute(q);
    return;
  }
  await sql`insert into office_templates (office_id, art, text, updated_at)
    values (${officeId}, ${art}, ${text}, ${at})
    on conflict (office_id, art) do update set text = excluded.text, updated_at = excluded.updated_at`
    .execute(q);
}

/** The facts a draft is made from: the inquirer's and the office's names and the listing's facts. */
export interface DraftFacts {
  name: string | null;
  officeName: string;
  title: string | null;
  city: string | null;
  postalCode: string | null;
  transactionType: "buy" | "rent" | null;
  askedPrice: number | null;
  totalRooms: number | null;
  squareMeters: number | null;
}

/**
 * What a draft about an inquiry is made from: the inquiry, its listing and office, and the facts of the draft.
 * The query names its columns as the drafts read them, so a source is also the facts of its draft.
 */
export interface DraftSource extends DraftFacts {
  inquiryId: string;
  inquiryStatus: "open" | "answered" | "rejected" | "closed";
  listingId: string;
  officeId: string;
  listingStatus: string;
}

/** The inquiry `inquiryId` with its listing's facts and its office's name, or undefined. */
export async function findDraftSource(q: Q, inquiryId: string): Promise<DraftSource | undefined> {
  const r = await sql<DraftSource>`select i.id as "inquiryId", i.status as "inquiryStatus", i.name,
      l.id as "listingId", i.office_id as "officeId", o.name as "officeName", l.status as "listingStatus",
      l.title, l.city, l.postal_code as "postalCode", l.transaction_type as "transactionType",
      l.asked_price::float8 as "askedPrice", l.total_rooms::float8 as "totalRooms",
      l.square_meters::float8 as "squareMeters"
    from inquiries i join listings l on l.id = i.listing_id join offices o on o.id = i.office_id
    where i.id = ${inquiryId}`.execute(q);
  return r.rows[0];
}

/**
 * The inquiries of listing `listingId` still in conversation (`open` or `answered`) that have no open rejection
 * proposal yet, oldest first.
 */
export async function liveInquiriesWithoutRejection(q: Q, listingId: string): Promise<string[]> {
  const r = await sql<{ id: string }>`select i.id from inquiries i
    where i.listing_id = ${listingId} and i.status in ('open', 'answered')
      and not exists (select 1 from proposals p where p.inquiry_id = i.id
        and p.vorschlag_art = 'rejection' and p.status = 'offen')
    order by i.created_at, i.id`.execute(q);
  return r.rows.map((row) => row.id);
}

/** A free viewing slot: open, starting after now, with places left. */
export interface FreeSlot {
  id: string;
  starts_at: Date;
  ends_at: Date;
  free: number;
}

/** The first `limit` free viewing slots of listing `listingId` after `now`, earliest first. */
export async function freeSlotsOfListing(
  q: Q,
  listingId: string,
  now: Date,
  limit: number,
): Promise<FreeSlot[]> {
  const r = await sql<FreeSlot>`select s.id, s.starts_at, s.ends_at,
      (s.places - (select count(*)::int from viewing_bookings b
        where b.slot_id = s.id and b.status = 'booked'))::int as free
    from viewing_slots s
    where s.listing_id = ${listingId} and s.status = 'open' and s.starts_at > ${now}
      and s.places > (select count(*) from viewing_bookings b where b.slot_id = s.id and b.status = 'booked')
    order by s.starts_at, s.id limit ${limit}`.execute(q);
  return r.rows.map((s) => ({ ...s, starts_at: new Date(s.starts_at), ends_at: new Date(s.ends_at) }));
}

/** A processed document as the agent reads it. */
export interface DocumentSource {
  id: string;
  listing_id: string;
  office_id: string;
  sorte: string;
  status: string;
  angaben: Record<string, unknown>;
}

/** The document `fileId` with its extracted values, when its listing still belongs to the document's office. */
export async function findDocumentSource(q: Q, fileId: string): Promise<DocumentSource | undefined> {
  const r = await sql<Omit<DocumentSource, "angaben"> & { angaben: string | null }>`select f.id, f.listing_id,
      f.office_id, f.sorte, f.status, f.angaben::text as angaben
    from files f join listings l on l.id = f.listing_id and l.office_id = f.office_id
    where f.id = ${fileId}`.execute(q);
  const row = r.rows[0];
  if (!row) return undefined;
  const parsed = row.angaben === null ? {} : JSON.parse(row.angaben);
  return { ...row, angaben: parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {} };
}
