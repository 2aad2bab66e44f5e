/**
 * The service's agent as it reacts to what the other domains announce (`Happening` in deps.ts): each reaction runs
 * inside the action that announced it, so a proposal (and its `proposal.pending` event) commits
 * together with that action or not at all. The announcing domains do not import the agent; the composition
 * passes {@linkcode agentReactions} as `deps.reactions`.
 *
 * Rules (deterministic, no outside AI service):
 * - Every new inquiry (any `quelle`) gets a draft reply from the listing's facts, its free viewing slots and the
 *   office's reply template (`geht_hinaus` true).
 * - When the office writes in an inquiry's thread itself (a reply or a rejection, by hand or by approving one
 *   draft), every other open draft reply or rejection of that inquiry is discarded in the same action
 *   (`verworfen`, decided by the person who wrote): a draft answers the thread as it was, and one more click must
 *   not send a second answer.
 * - When a listing is withdrawn or reserved, each of its inquiries still in conversation (`open` or `answered`)
 *   without an open rejection proposal gets one (`geht_hinaus` true).
 * - A processed brochure whose rooms, living area or price differ from the listing, or fill an empty field, gets
 *   one property change with exactly those fields (`geht_hinaus` false). An energy certificate's values have no
 *   listing field (docs/contract.md §2.1), so they propose nothing.
 * - `proposal.pending` is owned by the listing's office. Its origin is the app whose call triggered the hook (the
 *   agent acts inside that call), so the app is not sent what its own call caused; null for pages and jobs.
 */
import {
  discardOpenDrafts,
  type DraftSource,
  type FieldChange,
  findDocumentSource,
  findDraftSource,
  findTemplate,
  freeSlotsOfListing,
  insertProposal,
  liveInquiriesWithoutRejection,
  type ProposalKind,
} from "../db/proposals.ts";
import { findOfficeListingRow } from "../db/office_listings.ts";
import type { Action, Reactions } from "../deps.ts";
import { recordEvent } from "../events/outbox.ts";
import { rejectionDraft, replyDraft, SLOTS_IN_REPLY, type Unavailability } from "./drafts.ts";
import { documentChanges } from "./document_changes.ts";
import { clip } from "../text.ts";

/**
 * The agent's reactions: a draft reply per new inquiry, its open drafts closed when the office wrote itself,
 * rejections for a listing gone, changes from documents.
 */
export const agentReactions: Reactions = {
  async react(a, h) {
    if (h.kind === "inquiry_received") return await proposeForInquiry(a, h.inquiryId);
    if (h.kind === "office_wrote") {
      return await discardOpenDrafts(a.tx, h.inquiryId, { userId: h.userId, at: a.now });
    }
    if (h.kind === "listing_unavailable") return await proposeRejections(a, h.listingId, h.why);
    return await proposeForDocument(a, h.fileId);
  },
};

/** Prepares a draft reply to the new inquiry `inquiryId` (any `quelle`), awaiting the provider's approval. */
export async function proposeForInquiry(
  a: Action,
  inquiryId: string,
): Promise<string[]> {
  const src = await findDraftSource(a.tx, inquiryId);
  if (!src) return [];
  const template = await findTemplate(a.tx, src.officeId, "reply");
  const slots = await freeSlotsOfListing(a.tx, src.listingId, a.now, SLOTS_IN_REPLY);
  const text = replyDraft(
    template,
    src,
    slots.map((s) => ({ start: s.starts_at, end: s.ends_at, free: s.free })),
  );
  return [await proposeMessage(a, "reply", { src, inquiryId, text })];
}

/** Stores a proposal to send `text` (a reply or a rejection) in the inquiry `inquiryId` of `src`'s listing. */
function proposeMessage(
  a: Action,
  kind: "reply" | "rejection",
  m: { src: DraftSource; inquiryId: string; text: string },
): Promise<string> {
  const { src, inquiryId, text } = m;
  return propose(a, { kind, officeId: src.officeId, listingId: src.listingId, title: src.title }, {
    inquiryId,
    fileId: null,
    text,
    aenderungen: null,
  });
}

/**
 * Prepares a rejection for each inquiry of listing `listingId` still in conversation that has none open yet,
 * because the listing is now `why` (withdrawn or reserved). Returns the ids of the new proposals.
 */
export async function proposeRejections(
  a: Action,
  listingId: string,
  why: Unavailability,
): Promise<string[]> {
  const made: string[] = [];
  for (const inquiryId of await liveInquiriesWithoutRejection(a.tx, listingId)) {
    const src = (await findDraftSource(a.tx, inquiryId))!;
    const template = await findTemplate(a.tx, src.officeId, "rejection");
    const text = rejectionDraft(template, src, why);
    made.push(await proposeMessage(a, "rejection", { src, inquiryId, text }));
  }
  return made;
}

/** Prepares a property change when the processed document `fileId` contradicts or completes its listing. */
export async function proposeForDocument(
  a: Action,
  fileId: string,
): Promise<string[]> {
  const doc = await findDocumentSource(a.tx, fileId);
  if (!doc || doc.status !== "processed") return [];
  const listing = await findOfficeListingRow(a.tx, doc.office_id, doc.listing_id);
  if (!listing) return [];
  const aenderungen = documentChanges(doc.sorte, doc.angaben, listing);
  if (Object.keys(aenderungen).length === 0) return [];
  const id = await propose(
    a,
    {
      kind: "property_change",
      officeId: doc.office_id,
      listingId: doc.listing_id,
      title: listing.title,
    },
    { inquiryId: null, fileId, text: null, aenderungen },
  );
  return [id];
}

const SATZ: Record<ProposalKind, (about: string) => string> = {
  reply: (about) => `Antwortentwurf zur Anfrage zu ${about} wartet auf Freigabe.`,
  rejection: (about) => `Absage zur Anfrage zu ${about} wartet auf Freigabe.`,
  property_change: (about) => `Änderung an ${about} aus einem Dokument wartet auf Freigabe.`,
};

/** The listing's title quoted for a `satz`, shortened so the sentence stays short. */
function about(title: string | null): string {
  if (!title) return "einem Objekt";
  return `„${clip(title, 120)}“`;
}

/** Stores an open proposal and records its `proposal.pending`; returns its id. */
async function propose(
  a: Action,
  what: { kind: ProposalKind; officeId: string; listingId: string; title: string | null },
  content: {
    inquiryId: string | null;
    fileId: string | null;
    text: string | null;
    aenderungen: Record<string, FieldChange> | null;
  },
): Promise<string> {
  const gehtHinaus = what.kind !== "property_change";
  const id = await insertProposal(a.tx, {
    officeId: what.officeId,
    listingId: what.listingId,
    kind: what.kind,
    gehtHinaus,
    ...content,
    at: a.now,
  });
  await recordEvent(a, {
    name: "proposal.pending",
    data: {
      vorschlag_id: id,
      vorschlag_art: what.kind,
      geht_hinaus: gehtHinaus,
      anfrage_id: content.inquiryId,
      objekt_id: what.listingId,
      satz: SATZ[what.kind](about(what.title)),
    },
    owner: { office: what.officeId },
  });
  return id;
}
