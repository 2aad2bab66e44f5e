/**
 * Inquiries from portals as OpenImmo-Feedback XML (schema 1.2.5 style): every `objekt/interessent` becomes an
 * inquiry with `quelle: "portal"`.
 *
 * Rules:
 * - Bytes are decoded with the encoding the XML declaration names (ISO-8859-1 is common; a UTF-8 or UTF-16 byte
 *   order mark wins; default UTF-8). An unknown encoding, bytes invalid in it, XML that is not well-formed, a
 *   DOCTYPE (entity expansion), another root element or more than {@linkcode MAX_ENTRIES} interessenten:
 *   `invalid_request`, nothing written.
 * - `objekt/oobj_id` is our listing id (UUID) or the reference of exactly one published listing (any office);
 *   none: refused `unknown_listing`, several: `ambiguous_listing`.
 * - Inquirer: `vorname` + `nachname` (else `firma`, else the e-mail), `email`, `tel` (else `handy`); text `anfrage`.
 * - Duplicates: `<sender name>:<int_id>` when the interessent has an `int_id`, else `sha256:<hex>` of (sender name,
 *   oobj_id, e-mail, anfrage) identifies an inquiry; a known one is answered as duplicate and writes nothing.
 * - Each interessent is its own transaction: the answer lists created, duplicate and refused entries (reasons:
 *   unknown_listing, ambiguous_listing, rate_limited, invalid_email, invalid_name, invalid_phone, invalid_message).
 */
import { findIntakeMessage, type IntakeKey, publishedListingsByReference } from "../db/intake.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { NAME_MAX, sendInquiry } from "../inquiries/inquiries.ts";
import { act, type AppDeps, GUEST } from "../deps.ts";
import {
  clean,
  cut,
  inquirerName,
  inquiryText,
  oneLine,
  refusalOf,
  type RefusalReason,
  storedMessageId,
} from "./common.ts";
import { sha256Hex } from "../crypto.ts";

/** Most interessenten accepted in one document. */
export const MAX_ENTRIES = 500;

/** One interessent of a feedback document, with the object it asks about. */
export interface FeedbackInquiry {
  /** Position among all interessenten of the document (0-based). */
  index: number;
  oobjId: string;
  intId: string;
  name: string;
  email: string;
  phone: string;
  text: string;
}

/** A parsed feedback document. */
export interface Feedback {
  sender: string;
  inquiries: FeedbackInquiry[];
}

/** One entry of the answer. */
export interface FeedbackEntry {
  index: number;
  oobj_id: string;
  anfrage_id?: string;
  reason?: RefusalReason;
}

/** The answer: which interessenten became inquiries, were repeats, or were refused (with the reason). */
export interface FeedbackResult {
  created: FeedbackEntry[];
  duplicate: FeedbackEntry[];
  refused: FeedbackEntry[];
}

/** The encoding label of the document: byte order mark, else the XML declaration, else UTF-8. */
export function xmlEncoding(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  const m = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})["']/.exec(head);
  return m ? m[1]! : "utf-8";
}

/** The document as text in its declared encoding; `invalid_request` ("encoding") when that fails. */
export function decodeXml(bytes: Uint8Array): string {
  try {
    return new TextDecoder(xmlEncoding(bytes), { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new AppError("invalid_request", { field: "encoding" });
  }
}

/** `value` as a list (absent: empty). */
function list(value: unknown): unknown[] {
  if (value === undefined || value === null || value === "") return [];
  return Array.isArray(value) ? value : [value];
}

/** The text of element `key` of `node` (cleaned; empty when absent or not text). */
function field(node: unknown, key: string): string {
  if (typeof node !== "object" || node === null) return "";
  const v = (node as Record<string, unknown>)[key];
  return typeof v === "string" || typeof v === "number" ? clean(String(v)) : "";
}

/** The interessenten of one `objekt`, numbered from `start`. */
function inquiriesOf(objekt: unknown, start: number): FeedbackInquiry[] {
  const oobjId = field(objekt, "oobj_id");
  const people = typeof objekt === "object" && objekt !== null
    ? list((objekt as Record<string, unknown>).interessent)
    : [];
  return people.map((p, i) => {
    const email = field(p, "email");
    const person = clean(`${field(p, "vorname")} ${field(p, "nachname")}`);
    return {
      index: start + i,
      oobjId,
      intId: field(p, "int_id"),
      name: person || field(p, "firma"),
      email,
      phone: oneLine(field(p, "tel") || field(p, "handy")),
      text: field(p, "anfrage"),
    };
  });
}

/** The XML parser, loaded on the first document, not at start (docs/architecture.md §11.17). */
type XmlLib = typeof import("fast-xml-parser");

/** The document as objects (element text as strings); `invalid_request` ("xml") when the parser gives up. */
function readXml({ XMLParser }: XmlLib, xml: string): Record<string, unknown> {
  try {
    return new XMLParser({
      ignoreAttributes: true,
      parseTagValue: false,
      trimValues: true,
      htmlEntities: true,
    })
      .parse(xml) as Record<string, unknown>;
  } catch {
    throw new AppError("invalid_request", { field: "xml" });
  }
}

/** Parses a feedback document; `invalid_request` ("xml", "doctype", "openimmo_feedback", "interessent"). */
export async function parseFeedback(xml: string): Promise<Feedback> {
  if (/<!DOCTYPE/i.test(xml)) throw new AppError("invalid_request", { field: "doctype" });
  const lib = await import("fast-xml-parser");
  if (lib.XMLValidator.validate(xml) !== true) throw new AppError("invalid_request", { field: "xml" });
  const doc = readXml(lib, xml);
  const root = doc.openimmo_feedback;
  if (typeof root !== "object" || root === null) {
    throw new AppError("invalid_request", { field: "openimmo_feedback" });
  }
  const inquiries: FeedbackInquiry[] = [];
  for (const objekt of list((root as Record<string, unknown>).objekt)) {
    inquiries.push(...inquiriesOf(objekt, inquiries.length));
    if (inquiries.length > MAX_ENTRIES) throw new AppError("invalid_request", { field: "interessent" });
  }
  const sender = (root as Record<string, unknown>).sender;
  return { sender: field(sender, "name"), inquiries };
}

/** The identity of one interessent: the portal's `int_id`, else a hash of what it sent. */
async function feedbackKey(sender: string, e: FeedbackInquiry): Promise<IntakeKey> {
  const messageId = e.intId
    ? await storedMessageId(`${sender}:${e.intId}`)
    : `sha256:${await sha256Hex(JSON.stringify([sender, e.oobjId, e.email.toLowerCase(), e.text]))}`;
  return { quelle: "portal", messageId };
}

/** A refused interessent. */
class Refused extends Error {
  constructor(readonly reason: RefusalReason) {
    super(reason);
  }
}

/** Our listing id for an `oobj_id`: the UUID itself, else the one published listing with that reference. */
async function listingFor(deps: AppDeps, oobjId: string): Promise<string> {
  if (isUuid(oobjId)) return oobjId.toLowerCase();
  if (!oobjId) throw new Refused("unknown_listing");
  const ids = await publishedListingsByReference(deps.db.kysely, oobjId);
  if (ids.length > 1) throw new Refused("ambiguous_listing");
  if (ids.length === 0) throw new Refused("unknown_listing");
  return ids[0]!;
}

/** Creates (or recognises) the inquiry of one interessent. */
async function receiveOne(deps: AppDeps, sender: string, e: FeedbackInquiry): Promise<
  FeedbackEntry & {
    status: "created" | "duplicate";
  }
> {
  const key = await feedbackKey(sender, e);
  const known = await findIntakeMessage(deps.db.kysely, key);
  if (known) return { status: "duplicate", index: e.index, oobj_id: e.oobjId, anfrage_id: known.inquiryId };
  const listingId = await listingFor(deps, e.oobjId);
  const r = await act(deps, GUEST, (a) =>
    sendInquiry(a, {
      listingId,
      inquirer: {
        seekerId: null,
        name: inquirerName(e.name, e.email),
        email: e.email,
        phone: e.phone || null,
      },
      message: inquiryText(e.text),
      quelle: "portal",
      portalName: cut(oneLine(sender), NAME_MAX) || null,
      dedupe: key,
    }));
  return {
    status: r.duplicate ? "duplicate" : "created",
    index: e.index,
    oobj_id: e.oobjId,
    anfrage_id: r.inquiryId,
  };
}

/**
 * Creates the inquiries of one OpenImmo-Feedback document (raw bytes). Throws `invalid_request` for a document
 * that cannot be read (nothing written); otherwise answers every interessent as created, duplicate or refused.
 */
export async function receiveFeedback(deps: AppDeps, bytes: Uint8Array): Promise<FeedbackResult> {
  if (bytes.byteLength === 0) throw new AppError("invalid_request", { field: "xml" });
  const feedback = await parseFeedback(decodeXml(bytes));
  const result: FeedbackResult = { created: [], duplicate: [], refused: [] };
  for (const e of feedback.inquiries) {
    try {
      const { status, ...entry } = await receiveOne(deps, feedback.sender, e);
      result[status].push(entry);
    } catch (err) {
      const reason = err instanceof Refused ? err.reason : refusalOf(err);
      if (!reason) throw err;
      result.refused.push({ index: e.index, oobj_id: e.oobjId, reason });
    }
  }
  return result;
}
