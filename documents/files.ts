/**
 * Documents on listings (issue 7 item 2): the one place their rules live; the provider's MCP tools and
 * `get_property` call these functions.
 *
 * Rules:
 * - A provider uploads a PDF to a listing of its own office (any status) as standard Base64 (whitespace ignored),
 *   with a file name (1–200 characters, no control characters) and `sorte`, the provider's claim of what it is.
 *   Malformed Base64 is `invalid_request`; more than {@linkcode FILE_MAX_BYTES} decoded bytes is
 *   `payload_too_large` (the whole MCP request must stay within the 512 KB body limit anyway). Nothing is written
 *   then. A listing of another office, an unknown one and a malformed id all answer `not_found`.
 * - The file is stored in Postgres with its SHA-256 hash, once per listing: uploading the same bytes to the same
 *   listing again answers the file already stored (its name, kind and result stay as they were; `neu: false`)
 *   instead of storing and reading it twice. The same bytes on another listing are another file.
 * - After commit the upload asks the queue to read it (`documents/processing.ts`); until then it is `pending`.
 *   No content of a file is ever returned by these functions.
 */
import { sha256Hex } from "../crypto.ts";
import { z } from "zod";
import {
  type FileRow,
  type FileStatus,
  findFileByHash,
  findOfficeFile,
  insertFile,
  isOfficeListing,
  listOfficeFiles,
  lockOfficeListing,
} from "../db/files.ts";
import type { Db } from "../db/connection.ts";
import { AppError } from "../errors.ts";
import { hasControlCharacter } from "../text.ts";
import { FILE_SORTS } from "../events/catalogue.ts";
import { idOrNotFound } from "../ids.ts";
import { actingOffice, type Action, type AppDeps } from "../deps.ts";

/** Largest accepted file: 380 KiB decoded (its Base64 plus the MCP envelope stays within the 512 KB body limit). */
export const FILE_MAX_BYTES = 380 * 1024;
/** Longest file name in characters. */
export const FILE_NAME_MAX = 200;
/** How many files `get_property` shows per listing (newest first); `list_files` pages through all. */
export const LISTING_FILES_MAX = 100;

/** Where the job stands with a file. */
export const FILE_STATUSES = ["pending", "processed", "failed"] as const;
/** Why a file could not be read. */
export const FILE_ERRORS = ["not_pdf", "encrypted", "empty", "no_text", "unreadable"] as const;

/** One document as the provider sees it (never its content). */
export const fileSchema = z.object({
  datei_id: z.string().describe("File id (UUID)."),
  objekt_id: z.string().describe("The listing it belongs to."),
  name: z.string().describe("File name as uploaded."),
  sorte: z.enum(FILE_SORTS).describe("The kind claimed at upload."),
  status: z.enum(FILE_STATUSES).describe("pending: not read yet; processed: read; failed: see fehler."),
  fehler: z.enum(FILE_ERRORS).nullable().describe(
    "Why it could not be read: not_pdf, encrypted, empty, no_text (e.g. image only), unreadable; else null.",
  ),
  angaben: z.record(z.string(), z.union([z.string(), z.number()])).describe(
    "Values read from it (energy certificate: ausweisart, energieeffizienzklasse, endenergie_kwh_m2a, " +
      "energietraeger, baujahr, gueltig_bis; brochure: zimmer, wohnflaeche_m2, preis_eur); what was not found " +
      "is omitted; empty while pending or failed.",
  ),
  erkannte_sorte: z.enum(FILE_SORTS).nullable().describe("What the text says it is (null unless processed)."),
  hinweis: z.string().nullable().describe("A German note when the text contradicts the claimed sorte."),
  groesse_bytes: z.number().int(),
  sha256: z.string().describe("Hex SHA-256 of the file."),
  hochgeladen_am: z.string().describe("ISO 8601."),
  verarbeitet_am: z.string().nullable().describe("ISO 8601; null while pending."),
});

/** One document as the provider sees it. */
export type FileView = z.infer<typeof fileSchema>;

/** The documents of a listing with their processing result, newest first. */
export const listingFilesSchema = z.array(fileSchema);

/** The provider's view of a stored row. */
export function fileView(r: FileRow): FileView {
  return {
    datei_id: r.id,
    objekt_id: r.listing_id,
    name: r.name,
    sorte: r.sorte,
    status: r.status,
    fehler: r.fehler,
    angaben: r.angaben,
    erkannte_sorte: r.erkannte_sorte,
    hinweis: r.hinweis,
    groesse_bytes: r.size_bytes,
    sha256: r.sha256,
    hochgeladen_am: r.uploaded_at.toISOString(),
    verarbeitet_am: r.processed_at?.toISOString() ?? null,
  };
}

/** The documents of the office's listing `listingId`, newest first (at most {@linkcode LISTING_FILES_MAX}). */
export async function listingFiles(db: Db, officeId: string, listingId: string): Promise<FileView[]> {
  const r = await listOfficeFiles(db, { officeId, listingId }, LISTING_FILES_MAX, 0);
  return r.items.map(fileView);
}

/** A file to upload. */
export interface UploadInput {
  objektId: string;
  name: string;
  sorte: (typeof FILE_SORTS)[number];
  /** The file as standard Base64. */
  inhalt: string;
}

/** The bytes of standard Base64 `b64` (whitespace ignored) and its canonical form; `invalid_request` otherwise. */
export function decodeBase64(b64: string): { bytes: Uint8Array<ArrayBuffer>; canonical: string } {
  const s = b64.replace(/\s+/g, "");
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    throw new AppError("invalid_request", { field: "inhalt", reason: "not_base64" });
  }
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return { bytes, canonical: s };
}

/** The file name trimmed; `invalid_request` when empty, too long or with control characters. */
function fileName(name: string): string {
  const n = name.trim();
  if (n.length === 0 || n.length > FILE_NAME_MAX || hasControlCharacter(n)) {
    throw new AppError("invalid_request", { field: "name" });
  }
  return n;
}

/**
 * Stores the file on the office's listing and queues it for reading; answers the stored file (`neu: false` when
 * the listing already had these bytes). Throws `not_found`, `invalid_request` or `payload_too_large`, writing
 * nothing then.
 */
export async function uploadFile(a: Action, input: UploadInput): Promise<{ file: FileView; neu: boolean }> {
  const officeId = actingOffice(a);
  const listingId = idOrNotFound(input.objektId);
  const name = fileName(input.name);
  // Cheap guard before decoding (Base64 with line breaks is about 1.4 times the bytes).
  if (input.inhalt.length > FILE_MAX_BYTES * 2) throw tooLarge();
  const { bytes, canonical } = decodeBase64(input.inhalt);
  if (bytes.length > FILE_MAX_BYTES) throw tooLarge();
  const sha256 = await sha256Hex(bytes);
  const tx = a.tx;
  if (!(await lockOfficeListing(tx, officeId, listingId))) throw new AppError("not_found");
  const id = await insertFile(tx, {
    listingId,
    officeId,
    name,
    sorte: input.sorte,
    contentBase64: canonical,
    sizeBytes: bytes.length,
    sha256,
    originClientId: a.origin && "clientId" in a.origin ? a.origin.clientId : null,
    originApiKeyId: a.origin && "apiKeyId" in a.origin ? a.origin.apiKeyId : null,
    at: a.now,
  });
  const row = id ? await findOfficeFile(tx, officeId, id) : await findFileByHash(tx, listingId, sha256);
  if (!row) throw new Error("stored file not found");
  return { file: fileView(row), neu: id !== null };
}

function tooLarge(): AppError {
  return new AppError("payload_too_large", { field: "inhalt", reason: "too_long", limit: FILE_MAX_BYTES });
}

/** What `listFiles` returns: a page of the office's files. */
export interface FilePage {
  items: FileView[];
  total: number;
  page: number;
  page_size: number;
}

/**
 * The office's files, newest first: of one listing (`not_found` when it is not the office's) or of all its
 * listings, optionally of one status.
 */
export async function listFiles(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  opts: { objektId?: string | undefined; status?: FileStatus | undefined; page: number; page_size: number },
): Promise<FilePage> {
  let listingId: string | undefined;
  if (opts.objektId !== undefined) {
    listingId = idOrNotFound(opts.objektId);
    if (!(await isOfficeListing(deps.db.kysely, officeId, listingId))) throw new AppError("not_found");
  }
  const r = await listOfficeFiles(
    deps.db,
    { officeId, listingId, status: opts.status },
    opts.page_size,
    (opts.page - 1) * opts.page_size,
  );
  return { items: r.items.map(fileView), total: r.total, page: opts.page, page_size: opts.page_size };
}
