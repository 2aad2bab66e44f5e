/**
 * MCP tools of the provider server for the proposals of the service's agent: list_proposals, get_proposal,
 * approve_proposal, edit_and_approve_proposal, discard_proposal, and set_proposal_template for the office's own
 * draft texts. Thin adapters over `agent/proposals.ts`.
 */
import { z } from "zod";
import { officeOf } from "../../auth/principal.ts";
import { actAs } from "./acting.ts";
import { pageOf, pagingFields } from "../../catalogue/listing.ts";
import {
  type Approval,
  approveProposal,
  discardProposal,
  getProposal,
  listProposals,
  type Proposal,
  PROPOSAL_STATUSES,
  proposalSchema,
  setTemplate,
  TEMPLATE_KINDS,
} from "../../agent/proposals.ts";
import { TEMPLATE_MAX } from "../../agent/drafts.ts";
import { MESSAGE_MAX } from "../../inquiries/inquiries.ts";
import type { AppDeps } from "../../deps.ts";
import { ADDS, addTool, READ_ONLY, type ToolTarget, UPDATES } from "./define.ts";

const ART_DE: Record<Proposal["vorschlag_art"], string> = {
  reply: "Antwortentwurf",
  rejection: "Absage",
  property_change: "Objektänderung",
};

const STATUS_DE: Record<Proposal["status"], string> = {
  offen: "offen",
  freigegeben: "freigegeben",
  verworfen: "verworfen",
};

const idArg = z.string().max(100).describe("Vorschlags-ID / proposal id (vorschlag_id, UUID).");

const approvalSchema = z.object({
  vorschlag: proposalSchema,
  nachricht_id: z.string().nullable().describe(
    "The message sent to the inquirer; null for a property change.",
  ),
});

/** A short German line for one proposal of a list. */
function line(p: Proposal): string {
  const about = p.anfrage_id ? `Anfrage ${p.anfrage_id}` : `Objekt ${p.objekt_id}`;
  return `- ${ART_DE[p.vorschlag_art]} (${STATUS_DE[p.status]}) zu ${about}` +
    `${p.geht_hinaus ? ", geht an die anfragende Person" : ""} (ID ${p.vorschlag_id})`;
}

/** A short German text of one proposal with what it proposes. */
function proposalText(p: Proposal, lead?: string): string {
  const what = p.text !== null
    ? `Text:\n${p.text}`
    : Object.entries(p.aenderungen ?? {}).map(([f, c]) =>
      `- ${f}: ${c.alt ?? "(leer)"} → ${c.neu ?? "(leer)"}`
    )
      .join("\n");
  return [lead ?? null, line(p).slice(2), what].filter((s): s is string => s !== null).join("\n");
}

/** The text of an approval. */
function approvalText(a: Approval): string {
  const lead = a.nachricht_id
    ? `Freigegeben und gesendet (Nachricht ${a.nachricht_id}).`
    : "Freigegeben: Objekt geändert.";
  return proposalText(a.proposal, lead);
}

/** Registers the proposals tools of the provider server. */
export function registerProposalTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "list_proposals",
    title: "Vorschläge des Assistenten / Agent proposals",
    description:
      "Listet die Vorschläge des Assistenten des Dienstes für Ihr Büro, neueste zuerst: Antwortentwürfe auf " +
      "neue Anfragen, Absagen bei zurückgezogenen oder reservierten Objekten und Objektänderungen aus Dokumenten. " +
      "Optional nur ein Status (offen, freigegeben, verworfen) oder ein Objekt (objekt_id). Nichts davon geht " +
      "ohne Ihre Freigabe hinaus. / Lists the proposals the service's agent prepared for your office, newest " +
      "first: draft replies to new inquiries, rejections when a listing is withdrawn or reserved, and property " +
      "changes from documents. Optionally of one status or one listing (objekt_id). Nothing goes out without your " +
      "approval. Returns {items, total, page, page_size}.",
    input: z.object({
      status: z.enum(PROPOSAL_STATUSES).optional().describe("offen, freigegeben or verworfen."),
      objekt_id: z.string().max(100).optional().describe("Only proposals about this listing of your office."),
      ...pagingFields,
    }),
    output: pageOf(proposalSchema),
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const r = await listProposals(deps, officeOf(principal), args);
    const data = { ...r, page: args.page, page_size: args.page_size };
    const text = r.items.length === 0
      ? "Keine Vorschläge."
      : [`${r.total} Vorschlag/Vorschläge, Seite ${args.page}:`, ...r.items.map(line)].join("\n");
    return { data, text };
  });

  addTool(server, deps, {
    name: "get_proposal",
    title: "Vorschlag lesen / Read proposal",
    description:
      "Liefert einen Vorschlag des Assistenten mit dem vorgeschlagenen Text (Antwort, Absage) oder den " +
      "Feldänderungen (alt → neu). / Returns one proposal of the service's agent with its proposed text (reply, " +
      "rejection) or field changes (alt → neu); use it after proposal.pending.",
    input: z.object({ vorschlag_id: idArg }),
    output: proposalSchema,
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const p = await getProposal(deps, officeOf(principal), args.vorschlag_id);
    return { data: p, text: proposalText(p) };
  });

  addTool(server, deps, {
    name: "approve_proposal",
    title: "Vorschlag freigeben / Approve proposal",
    description:
      "Gibt einen offenen Vorschlag frei und führt genau ihn einmal aus: Antwortentwurf → Antwort an die " +
      "anfragende Person; Absage → Anfrage abgelehnt mit dem Text; Objektänderung → Felder des Objekts geändert. " +
      "Ein schon freigegebener oder verworfener Vorschlag: conflict, nichts wird gesendet. / Approves an open " +
      "proposal and does exactly what it proposes, once: a reply is sent to the inquirer, a rejection rejects the " +
      "inquiry with its text, a property change writes the listing's fields. A proposal already approved or " +
      "discarded answers conflict and nothing is sent. Returns the proposal and the message id.",
    input: z.object({ vorschlag_id: idArg }),
    output: approvalSchema,
    annotations: ADDS,
  }, async (args, principal) => {
    const a = await actAs(deps, principal, (a) => approveProposal(a, args.vorschlag_id));
    return { data: { vorschlag: a.proposal, nachricht_id: a.nachricht_id }, text: approvalText(a) };
  });

  addTool(server, deps, {
    name: "edit_and_approve_proposal",
    title: "Vorschlag ändern und freigeben / Edit and approve proposal",
    description:
      "Wie approve_proposal, aber mit Ihrer Änderung: text ersetzt den Text einer Antwort oder Absage; " +
      "aenderungen ersetzt Werte einer Objektänderung (nur Felder, die der Vorschlag nennt; null leert ein Feld). " +
      "Passt die Änderung nicht zum Vorschlag: invalid_request. / Like approve_proposal, with your edit: text " +
      "replaces the text of a reply or rejection; aenderungen replaces values of a property change (only fields " +
      "the proposal names; null clears a field). An edit that does not fit the proposal answers invalid_request.",
    input: z.object({
      vorschlag_id: idArg,
      text: z.string().min(1).max(MESSAGE_MAX).optional().describe("New text of a reply or rejection."),
      aenderungen: z.record(z.string().max(50), z.number().nullable()).optional().describe(
        'Property change: field → new value (e.g. {"asked_price": 350000}).',
      ),
    }),
    output: approvalSchema,
    annotations: ADDS,
  }, async ({ vorschlag_id, ...edit }, principal) => {
    const a = await actAs(deps, principal, (a) => approveProposal(a, vorschlag_id, edit));
    return { data: { vorschlag: a.proposal, nachricht_id: a.nachricht_id }, text: approvalText(a) };
  });

  addTool(server, deps, {
    name: "discard_proposal",
    title: "Vorschlag verwerfen / Discard proposal",
    description:
      "Verwirft einen offenen Vorschlag; es wird nichts gesendet und nichts geändert. Nicht offen: conflict. " +
      "/ Discards an open proposal; nothing is sent or changed. Not open: conflict. Returns the proposal.",
    input: z.object({ vorschlag_id: idArg }),
    output: proposalSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  }, async (args, principal) => {
    const p = await actAs(deps, principal, (a) => discardProposal(a, args.vorschlag_id));
    return { data: p, text: proposalText(p, "Vorschlag verworfen; nichts wurde gesendet.") };
  });

  addTool(server, deps, {
    name: "set_proposal_template",
    title: "Vorlage für Entwürfe / Draft template",
    description:
      "Setzt die Vorlage Ihres Büros für künftige Antwortentwürfe (reply) oder Absagen (rejection); null " +
      "stellt die eingebaute Vorlage wieder her. Platzhalter: {anrede}, {name}, {titel}, {ort}, {preis}, " +
      "{zimmer}, {flaeche}, {fakten}, {termine} (freie Besichtigungstermine), {buero}, {verfuegbarkeit} (Absage). " +
      "/ Sets your office's template for future draft replies or rejections; null restores the built-in one. " +
      "Placeholders as listed. Returns the template now in use.",
    input: z.object({
      art: z.enum(TEMPLATE_KINDS).describe("reply or rejection."),
      text: z.string().min(1).max(TEMPLATE_MAX).nullable().describe(
        "Template text; null for the built-in one.",
      ),
    }),
    output: z.object({ art: z.enum(TEMPLATE_KINDS), text: z.string(), eigene: z.boolean() }),
    annotations: UPDATES,
  }, async (args, principal) => {
    const t = await actAs(deps, principal, (a) => setTemplate(a, args.art, args.text));
    return { data: t, text: `Vorlage ${t.eigene ? "gespeichert" : "zurückgesetzt"}:\n${t.text}` };
  });
}
