/**
 * SQL of documents on listings (table `files`, migration 0010): the stored PDF with its hash and the result of the
 * job that reads it. Every read for a provider is scoped to one office. The content travels as Base64 text and is
 * converted in SQL, and timestamps and jsonb are normalised here, so postgres.js and PGlite answer the same.
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";

type Q = Kysely<Database>;

/** A document's claimed or recognised kind. */
export type FileSorte = "brochure" | "energy_certificate" | "other";
/** Where the job stands with a document. */
export type FileStatus = "pending" | "processed" | "failed";
/** Why a document could not be read. */
export type FileFehler = "not_pdf" | "encrypted" | "empty" | "no_text" | "unreadable";
/** Values read from a document. */
export type Angaben = Record<string, string | number>;

/** A document as listed (never its content). */
export interface FileRow {
  id: string;
  listing_id: string;
  office_id: string;
  name: string;
  sorte: FileSorte;
  size_bytes: number;
  sha256: string;
  status: FileStatus;
  fehler: FileFehler | null;
  angaben: Angaben;
  erkannte_sorte: FileSorte | null;
  hinweis: string | null;
  uploaded_at: Date;
  processed_at: Date | null;
}

/** A new document to store. */
export interface NewFile {
  listingId: string;
  officeId: string;
  name: string;
  sorte: FileSorte;
  /** The content as canonical standard Base64. */
  contentBase64: string;
  sizeBytes: number;
  sha256: string;
  originClientId: string | null;
  originApiKeyId: string | null;
  at: Date;
}

/** What the job found out about a document. */
export type FileResult =
  | { status: "processed"; angaben: Angaben; erkannteSorte: FileSorte; hinweis: string | null }
  | { status: "failed"; fehler: FileFehler };

/** A finished document with what its event needs. */
export interface FinishedFile {
  id: string;
  listing_id: string;
  office_id: string;
  sorte: FileSorte;
  listing_title: string | null;
  origin_client_id: string | null;
  origin_api_key_id: string | null;
}

/** A file still to be read: its kind, bytes, office and the app that uploaded it. */
export interface PendingFile {
  sorte: FileSorte;
  content: Uint8Array;
  office_id: string;
  origin_client_id: string | null;
  origin_api_key_id: string | null;
}

const VIEW_COLUMNS = sql`f.id::text as id, f.listing_id::text as listing_id, f.office_id::text as office_id,
  f.name, f.sorte, f.size_bytes::int as size_bytes, f.sha256, f.status, f.fehler, f.angaben::text as angaben,
  f.erkannte_sorte, f.hinweis, f.uploaded_at, f.processed_at`;

type RawFileRow = Omit<FileRow, "angaben" | "uploaded_at" | "processed_at"> & {
  angaben: string;
  uploaded_at: Date | string;
  processed_at: Date | string | null;
};

/** Converts a raw row (jsonb as text, driver-specific dates) into a {@linkcode FileRow}. */
function fileRow(r: RawFileRow): FileRow {
  return {
    ...r,
    angaben: JSON.parse(r.angaben) as Angaben,
    uploaded_at: new Date(r.uploaded_at),
    processed_at: r.processed_at === null ? null : new Date(r.processed_at),
  };
}

/** Whether `listingId` is a listing (any status) of `officeId`; locks it against deletion until commit. */
export async function lockOfficeListing(q: Q, officeId: string, listingId: string): Promise<boolean> {
  const r = await sql<{ id: string }>`select id::text as id from listings
    where id = ${listingId} and office_id = ${officeId} for share`.execute(q);
  return r.rows.length > 0;
}

/** Whether `listingId` is a listing (any status) of `officeId`. */
export async function isOfficeListing(q: Q, officeId: string, listingId: string): Promise<boolean> {
  const r = await sql<{ id: string }>`select id::text as id from listings
    where id = ${listingId} and office_id = ${officeId}`.execute(q);
  return r.rows.length > 0;
}

/** Stores `f` unless the listing already has a file with its hash; returns the new id, or null for a duplicate. */
export async function insertFile(q: Q, f: NewFile): Promise<string | null> {
  const r = await sql<
    { id: string }
  >`insert into files (listing_id, office_id, name, sorte, content, size_bytes,
      sha256, origin_client_id, origin_api_key_id, uploaded_at, due_at)
    values (${f.listingId}, ${f.officeId}, ${f.name}, ${f.sorte}, decode(${f.contentBase64}, 'base64'),
      ${f.sizeBytes}, ${f.sha256}, ${f.originClientId}, ${f.originApiKeyId}, ${f.at}, now())
    on conflict (listing_id, sha256) do nothing
    returning id::text as id`.execute(q);
  return r.rows[0]?.id ?? null;
}

/** The file of `officeId` with id `fileId`, or undefined. */
export async function findOfficeFile(q: Q, officeId: string, fileId: string): Promise<FileRow | undefined> {
  const r = await sql<RawFileRow>`select ${VIEW_COLUMNS} from files f
    where f.id = ${fileId} and f.office_id = ${officeId}`.execute(q);
  return r.rows[0] ? fileRow(r.rows[0]) : undefined;
}

/** The file of `listingId` with hash `sha256`, or undefined. */
export async function findFileByHash(q: Q, listingId: string, sha256: string): Promise<FileRow | undefined> {
  const r = await sql<RawFileRow>`select ${VIEW_COLUMNS} from files f
    where f.listing_id = ${listingId} and f.sha256 = ${sha256}`.execute(q);
  return r.rows[0] ? fileRow(r.rows[0]) : undefined;
}

/** Which files of an office to list. */
export interface FileFilter {
  officeId: string;
  listingId?: string | undefined;
  status?: FileStatus | undefined;
}

/** `limit` files of the filter from `offset`, newest first (id as tiebreak), and how many there are. */
export async function listOfficeFiles(
  db: Db,
  f: FileFilter,
  limit: number,
  offset: number,
): Promise<{ items: FileRow[]; total: number }> {
  const where = sql`f.office_id = ${f.officeId}
    ${f.listingId === undefined ? sql`` : sql`and f.listing_id = ${f.listingId}`}
    ${f.status === undefined ? sql`` : sql`and f.status = ${f.status}`}`;
  const [items, total] = await Promise.all([
    sql<RawFileRow>`select ${VIEW_COLUMNS} from files f where ${where}
      order by f.uploaded_at desc, f.id desc limit ${limit} offset ${offset}`.execute(db.kysely),
    sql<{ n: number }>`select count(*)::int as n from files f where ${where}`.execute(db.kysely),
  ]);
  return { items: items.rows.map(fileRow), total: total.rows[0]?.n ?? 0 };
}

/** The content (bytes) and claimed kind of the pending file `fileId`, or undefined when it is not pending. */
export async function pendingFileContent(
  db: Db,
  fileId: string,
): Promise<PendingFile | undefined> {
  const r = await sql<
    Omit<PendingFile, "content"> & { content: string }
  >`select sorte, encode(content, 'base64') as content, office_id::text as office_id, origin_client_id,
      origin_api_key_id::text as origin_api_key_id
    from files where id = ${fileId} and status = 'pending'`.execute(db.kysely);
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    ...row,
    content: Uint8Array.from(atob(row.content.replace(/\s+/g, "")), (c) => c.charCodeAt(0)),
  };
}

/**
 * Stores the job's result on `fileId` if it is still pending (a conditional update: of two concurrent jobs only
 * one gets a row back); returns what the event needs, or undefined when the file was already finished.
 */
export async function finishFile(
  q: Q,
  fileId: string,
  result: FileResult,
  at: Date,
): Promise<FinishedFile | undefined> {
  const ok = result.status === "processed";
  const r = await sql<FinishedFile>`update files f set status = ${result.status},
      fehler = ${ok ? null : result.fehler},
      angaben = ${JSON.stringify(ok ? result.angaben : {})}::text::jsonb,
      erkannte_sorte = ${ok ? result.erkannteSorte : null},
      hinweis = ${ok ? result.hinweis : null},
      processed_at = ${at}
    from listings l
    where f.id = ${fileId} and f.status = 'pending' and l.id = f.listing_id
    returning f.id::text as id, f.listing_id::text as listing_id, f.office_id::text as office_id, f.sorte,
      l.title as listing_title, f.origin_client_id, f.origin_api_key_id::text as origin_api_key_id`.execute(
    q,
  );
  return r.rows[0];
}

/**
 * Claims up to `limit` pending files that are due (database clock): each is due again `leaseMs` later, so a reader
 * that dies leaves it to the next one; of several instances only one claims a given file at a time. Returns their
 * ids, earliest due first.
 */
export async function claimDueFiles(db: Db, leaseMs: number, limit: number): Promise<string[]> {
  const r = await sql<{ id: string }>`update files set due_at = now() + ${leaseMs} * interval '1 millisecond'
    where id = any (array(select id from files where status = 'pending' and due_at <= now()
      order by due_at limit ${limit} for update skip locked))
    returning id::text as id`.execute(db.kysely);
  return r.rows.map((x) => x.id);
}

/** Gives back claimed files `ids` still pending (a stopping reader): due again now. */
export async function releaseFiles(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`update files set due_at = now()
    where id = any (array(select value::uuid from jsonb_array_elements_text(${
    JSON.stringify(ids)
  }::text::jsonb)))
      and status = 'pending'`.execute(db.kysely);
}
