/**
 * Proposals (`vorschlag`) of the service's agent as a provider office handles them: list, read, approve (as
 * proposed or edited) and discard; and the office's own text templates of drafts. MCP tools call these functions.
 *
 * Rules:
 * - A proposal belongs to one office; another office's id, an unknown id and a malformed id all answer
 *   `not_found`.
 * - Approving does exactly what the proposal proposes, once: a reply sends the text to the inquirer
 *   (`replyToInquiry`), a rejection rejects the inquiry with the text (`rejectInquiry`), a property change writes
 *   the proposed values into the listing (`updateListing`). Only an open (`offen`) proposal can be approved or
 *   discarded; afterwards it is `freigegeben` or `verworfen` and every further approve or discard answers
 *   `conflict` and sends nothing, also when two arrive at the same time.
 * - Every approval is one action (one transaction): the proposal row is locked and its status checked, then the listing is
 *   written (property change) or the message is sent through the inquiry module's rules (reply, rejection, with
 *   their events), and the proposal is marked approved. When sending fails (e.g. the inquiry was rejected
 *   meanwhile: `conflict`) nothing is written and the proposal stays open; a crash sends nothing.
 * - Discarding sends nothing and changes nothing else.
 * - A reply or rejection the office writes itself (or another draft it approves) discards the inquiry's other open
 *   drafts in the same action (`agent/hooks.ts`), so no stale draft can send a second answer.
 */
import { z } from "zod";
import { listingFieldsShape, updateListing } from "../catalogue/office_listings.ts";
import { officeListingFilter } from "../catalogue/office_listing_filter.ts";
import { lockInquiry } from "../db/inquiries.ts";
import {
  decideProposal,
  type FieldChange,
  findProposal,
  findTemplate,
  listProposalRows,
  type ProposalRow,
  type ProposalStatus,
  saveTemplate,
  setProposalChanges,
  type TemplateKind,
} from "../db/proposals.ts";
import { AppError } from "../errors.ts";
import { PROPOSAL_KINDS } from "../events/catalogue.ts";
import { idOrNotFound } from "../ids.ts";
import { pageWindow, type Paging } from "../paging.ts";
import { MESSAGE_MAX } from "../inquiries/inquiries.ts";
import { rejectInquiry, replyToInquiry } from "../inquiries/messages.ts";
import { actingOffice, actingProvider, type Action, type AppDeps } from "../deps.ts";
import { DOCUMENT_FIELDS, type DocumentField } from "./document_changes.ts";
import { DEFAULT_REJECTION_TEMPLATE, DEFAULT_REPLY_TEMPLATE, TEMPLATE_MAX } from "./drafts.ts";

/** The statuses of a proposal: waiting, approved (done), discarded. */
export const PROPOSAL_STATUSES = ["offen", "freigegeben", "verworfen"] as const;
/** The kinds of an office template. */
export const TEMPLATE_KINDS = ["reply", "rejection"] as const;

const iso = z.string().describe("ISO 8601 timestamp (UTC).");
const changeValue = z.union([z.number(), z.string()]).nullable();

/** One proposal as its office sees it. */
export const proposalSchema = z.object({
  vorschlag_id: z.string().describe("Proposal id (UUID)."),
  vorschlag_art: z.enum(PROPOSAL_KINDS).describe("reply, rejection or property_change."),
  geht_hinaus: z.boolean().describe("Whether approving sends something to the inquirer."),
  status: z.enum(PROPOSAL_STATUSES).describe("offen (waiting), freigegeben (approved, done), verworfen."),
  objekt_id: z.string().describe("The listing it concerns."),
  anfrage_id: z.string().nullable().describe("The inquiry a reply or rejection answers; null otherwise."),
  datei_id: z.string().nullable().describe("The document a property change comes from; null otherwise."),
  text: z.string().nullable().describe("The message of a reply or rejection; null for a property change."),
  aenderungen: z.record(z.string(), z.object({ alt: changeValue, neu: changeValue })).nullable().describe(
    "A property change: listing field → {alt: value when proposed, neu: proposed value}; null otherwise.",
  ),
  created_at: iso,
  decided_at: iso.nullable().describe("When it was approved or discarded; null while open."),
});

/** A proposal as its office sees it. */
export type Proposal = z.infer<typeof proposalSchema>;

/** Filters and paging of the office's proposal list. */
export interface ProposalQuery extends Paging {
  status?: ProposalStatus | undefined;
  objekt_id?: string | undefined;
  /** Only the proposals answering this inquiry (a malformed id answers `not_found`). */
  anfrage_id?: string | undefined;
}

/**
 * The office's proposals, newest first, optionally of one status and one listing; an `objekt_id` that is not a
 * listing of this office answers `not_found`.
 */
export async function listProposals(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  q: ProposalQuery,
): Promise<{ items: Proposal[]; total: number }> {
  const { page_size, offset } = pageWindow(q);
  const listingId = await officeListingFilter(deps.db.kysely, officeId, q.objekt_id);
  return await listProposalRows(
    deps.db.kysely,
    officeId,
    {
      status: q.status,
      listingId,
      inquiryId: q.anfrage_id === undefined ? undefined : idOrNotFound(q.anfrage_id),
    },
    page_size,
    offset,
  );
}

/** One proposal of the office; `not_found` unless it is theirs. */
export async function getProposal(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  id: string,
): Promise<Proposal> {
  const row = await findProposal(deps.db.kysely, officeId, idOrNotFound(id));
  if (!row) throw new AppError("not_found");
  return row;
}

/** What the provider changes before approving: the text of a reply or rejection, or a property change's values. */
export interface ProposalEdit {
  text?: string | undefined;
  aenderungen?: Record<string, number | null> | undefined;
}

/** The result of an approval: the proposal afterwards and the message sent (null for a property change). */
export interface Approval {
  proposal: Proposal;
  nachricht_id: string | null;
}

/**
 * Approves the office's open proposal `id` and does exactly what it proposes, once (see the module rules); with
 * `edit` the edited text or values are sent or written instead (and kept on the proposal). `not_found` unless the
 * proposal is the office's; `conflict` when it is not open (nothing is sent); `invalid_request` for an edit that
 * does not fit the proposal.
 */
export async function approveProposal(a: Action, id: string, edit?: ProposalEdit): Promise<Approval> {
  const provider = actingProvider(a);
  const pid = idOrNotFound(id);
  const seen = await findProposal(a.tx, provider.officeId, pid);
  if (!seen) throw new AppError("not_found");
  // The inquiry before the proposal: the order a reply by hand takes them in (its reaction discards the drafts),
  // so the two never wait for each other.
  if (seen.anfrage_id) await lockInquiry(a.tx, { officeId: provider.officeId }, seen.anfrage_id);
  const p = (await findProposal(a.tx, provider.officeId, pid, true))!;
  if (p.status !== "offen") throw new AppError("conflict", { reason: "proposal_decided" });
  if (p.vorschlag_art === "property_change") return await approveChange(a, p, edit && editedChanges(p, edit));
  return await approveMessage(a, p, edit && editedText(edit));
}

/** The edited text of a reply or rejection; `invalid_request` without one or with values. */
function editedText(edit: ProposalEdit): string {
  if (edit.aenderungen !== undefined) {
    throw new AppError("invalid_request", { field: "aenderungen", reason: "not_a_change" });
  }
  const text = edit.text?.trim() ?? "";
  if (text.length === 0 || text.length > MESSAGE_MAX || text.includes("\u0000")) {
    throw new AppError("invalid_request", { field: "text" });
  }
  return text;
}

/** The proposal's changes with the edited values; `invalid_request` for a field it does not name or a bad value. */
function editedChanges(p: ProposalRow, edit: ProposalEdit): Record<string, FieldChange> {
  if (edit.text !== undefined) {
    throw new AppError("invalid_request", { field: "text", reason: "not_a_message" });
  }
  if (edit.aenderungen === undefined || Object.keys(edit.aenderungen).length === 0) {
    throw new AppError("invalid_request", { field: "aenderungen" });
  }
  const changes = { ...p.aenderungen! };
  for (const [field, neu] of Object.entries(edit.aenderungen)) {
    const known = changes[field];
    const valid = (DOCUMENT_FIELDS as readonly string[]).includes(field) &&
      listingFieldsShape[field as DocumentField].safeParse(neu).success;
    if (!known || !valid) throw new AppError("invalid_request", { field: `aenderungen.${field}` });
    changes[field] = { alt: known.alt, neu };
  }
  return changes;
}

/** Approves the locked, open property change `p`: writes the listing (edited values if given), marks it approved. */
async function approveChange(
  a: Action,
  p: ProposalRow,
  edited: Record<string, FieldChange> | undefined,
): Promise<Approval> {
  const provider = actingProvider(a);
  const changes = edited ?? p.aenderungen!;
  const fields = Object.fromEntries(Object.entries(changes).map(([field, c]) => [field, c.neu]));
  await updateListing(a, p.objekt_id, fields);
  if (edited) await setProposalChanges(a.tx, p.vorschlag_id, edited);
  const done = await decideProposal(a.tx, provider.officeId, p.vorschlag_id, {
    status: "freigegeben",
    userId: provider.userId,
    at: a.now,
  });
  return { proposal: done!, nachricht_id: null };
}

/**
 * Approves the locked, open reply or rejection `p`: sends the message (reply or rejection of the inquiry, with its
 * events and mail; the edited text if given) and marks it approved. A failure (e.g. the inquiry was rejected
 * meanwhile: `conflict`) rolls the whole action back: the proposal stays open and nothing is sent; a concurrent
 * approve waits for the proposal's lock and then finds it decided (`conflict`).
 */
async function approveMessage(a: Action, p: ProposalRow, text: string | undefined): Promise<Approval> {
  const provider = actingProvider(a);
  // Decided before sending: the message closes the inquiry's other open drafts (agent/hooks.ts), not this one.
  const done = await decideProposal(a.tx, provider.officeId, p.vorschlag_id, {
    status: "freigegeben",
    userId: provider.userId,
    at: a.now,
    text,
  });
  const send = p.vorschlag_art === "reply" ? replyToInquiry : rejectInquiry;
  const sent = await send(a, p.anfrage_id!, text ?? p.text!);
  return { proposal: done!, nachricht_id: sent.messageId };
}

/** Discards the office's open proposal `id` (nothing is sent); `not_found` unless theirs; `conflict` when not open. */
export async function discardProposal(a: Action, id: string): Promise<Proposal> {
  const provider = actingProvider(a);
  const pid = idOrNotFound(id);
  const done = await decideProposal(a.tx, provider.officeId, pid, {
    status: "verworfen",
    userId: provider.userId,
    at: a.now,
  });
  if (done) return done;
  if (!await findProposal(a.tx, provider.officeId, pid)) throw new AppError("not_found");
  throw new AppError("conflict", { reason: "proposal_decided" });
}

/** An office's template of one kind: its text and whether it is the office's own (else the built-in default). */
export interface Template {
  art: TemplateKind;
  text: string;
  eigene: boolean;
}

const DEFAULTS: Record<TemplateKind, string> = {
  reply: DEFAULT_REPLY_TEMPLATE,
  rejection: DEFAULT_REJECTION_TEMPLATE,
};

/** The template the agent uses for the office's drafts of kind `art`. */
export async function getTemplate(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  art: TemplateKind,
): Promise<Template> {
  const own = await findTemplate(deps.db.kysely, officeId, art);
  return { art, text: own ?? DEFAULTS[art], eigene: own !== undefined };
}

/**
 * Sets the office's own template of kind `art` for future drafts (`null` returns to the built-in default); a text
 * that is empty, longer than {@linkcode TEMPLATE_MAX} or holds NUL answers `invalid_request`.
 */
export async function setTemplate(a: Action, art: TemplateKind, text: string | null): Promise<Template> {
  const officeId = actingOffice(a);
  const t = text === null ? null : text.trim();
  if (t !== null && (t.length === 0 || t.length > TEMPLATE_MAX || t.includes("\u0000"))) {
    throw new AppError("invalid_request", { field: "text" });
  }
  await saveTemplate(a.tx, officeId, art, t, a.now);
  const own = await findTemplate(a.tx, officeId, art);
  return { art, text: own ?? DEFAULTS[art], eigene: own !== undefined };
}
