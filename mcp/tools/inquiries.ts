/**
 * MCP tools of inquiries (`anfrage`) and their messages, thin adapters over `inquiries/inquiries.ts`.
 * Seeker server: send_inquiry, list_inquiries, get_inquiry, send_message. Provider server: list_inquiries,
 * get_inquiry, reply_to_inquiry, reject_inquiry.
 */
import { z } from "zod";
import { officeOf, seekerOf } from "../../auth/principal.ts";
import { actAs } from "./acting.ts";
import { pageOf, pagingFields } from "../../catalogue/listing.ts";
import {
  getOfficeInquiry,
  getSeekerInquiry,
  INQUIRY_STATUSES,
  type InquirySummary,
  type InquiryThread,
  listOfficeInquiries,
  listSeekerInquiries,
  MESSAGE_MAX,
  PHONE_MAX,
  seekerInquirer,
  sendInquiry,
} from "../../inquiries/inquiries.ts";
import { rejectInquiry, replyToInquiry, sendSeekerMessage } from "../../inquiries/messages.ts";
import type { Action, AppDeps } from "../../deps.ts";
import { ADDS, addTool, READ_ONLY, type ToolTarget } from "./define.ts";

const QUELLEN = ["service", "portal", "email"] as const;

const STATUS_DE: Record<(typeof INQUIRY_STATUSES)[number], string> = {
  open: "offen",
  answered: "beantwortet",
  rejected: "abgelehnt",
  closed: "geschlossen",
};

const idArg = (what: string) => z.string().max(100).describe(`${what} (UUID).`);
const messageArg = z.string().min(1).max(MESSAGE_MAX).describe(
  "Nachrichtentext / message text (1–10000 characters).",
);

const summarySchema = z.object({
  id: z.string().describe("Inquiry id (anfrage_id)."),
  listing_id: z.string(),
  listing_title: z.string().nullable(),
  status: z.enum(INQUIRY_STATUSES),
  quelle: z.enum(QUELLEN),
  created_at: z.string().describe("ISO 8601."),
  updated_at: z.string().describe("ISO 8601."),
  message_count: z.number().int(),
  last_message_at: z.string().describe("ISO 8601."),
});

const threadSchema = summarySchema.extend({
  name: z.string().nullable().describe("Name of the inquirer."),
  email: z.string().describe("E-mail address of the inquirer."),
  phone: z.string().nullable().describe("Phone number of the inquirer."),
  messages: z.array(z.object({
    id: z.string().describe("Message id (nachricht_id)."),
    sender: z.enum(["seeker", "provider"]),
    body: z.string(),
    created_at: z.string().describe("ISO 8601."),
  })).describe("Every message of the thread, oldest first."),
});

const listSchema = pageOf(summarySchema);

const messageResult = z.object({
  inquiry_id: z.string(),
  message_id: z.string(),
  status: z.enum(INQUIRY_STATUSES).describe("Status of the inquiry afterwards."),
});

/** A short German line for one inquiry of a list. */
function summaryLine(s: InquirySummary): string {
  const title = s.listing_title ? `„${s.listing_title}“` : s.listing_id;
  return `- ${title}: ${
    STATUS_DE[s.status]
  }, ${s.message_count} Nachricht(en), zuletzt ${s.last_message_at}` +
    ` (ID ${s.id})`;
}

/** A short German text of a list page. */
function listText(r: { items: InquirySummary[]; total: number; page: number }): string {
  if (r.items.length === 0) return r.total === 0 ? "Keine Anfragen." : `Keine Anfragen auf Seite ${r.page}.`;
  return [`${r.total} Anfrage(n), Seite ${r.page}:`, ...r.items.map(summaryLine)].join("\n");
}

/** A short German text of a whole thread. */
function threadText(t: InquiryThread, withContact: boolean): string {
  const head = `Anfrage ${t.id} zu ${t.listing_title ? `„${t.listing_title}“` : t.listing_id}: ` +
    `${STATUS_DE[t.status]}.`;
  const contact = withContact ? [`Von: ${[t.name, t.email, t.phone].filter(Boolean).join(", ")}`] : [];
  const lines = t.messages.map((m) =>
    `[${m.created_at}] ${m.sender === "seeker" ? "Suchende(r)" : "Anbieter"}: ${m.body}`
  );
  return [head, ...contact, ...lines].join("\n");
}

/** Registers the seeker server's inquiry tools: send_inquiry, list_inquiries, get_inquiry, send_message. */
export function registerSeekerInquiryTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "send_inquiry",
    title: "Anfrage senden / Send inquiry",
    description:
      "Sendet eine Anfrage zu einem veröffentlichten Objekt an den Anbieter, mit Name und E-Mail Ihres " +
      "Kontos (Telefon optional). Grenzen: 5 Anfragen je Person in 10 Minuten, 5 je E-Mail in 24 Stunden, 30 je " +
      "Objekt in einer Stunde; darüber rate_limited und nichts wird gesendet. Liefert die Anfrage-ID. " +
      "Sends an inquiry about a published listing to its provider with your account's name and e-mail (phone " +
      "optional). Limits: 5 per person in 10 minutes, 5 per e-mail in 24 hours, 30 per listing per hour; beyond " +
      "them rate_limited and nothing is sent. Returns the inquiry id; follow it with get_inquiry.",
    input: z.object({
      listing_id: idArg("Objekt-ID / listing id"),
      message: messageArg,
      phone: z.string().max(PHONE_MAX).optional().describe("Telefonnummer / phone number (optional)."),
    }),
    output: z.object({ inquiry_id: z.string(), message_id: z.string(), listing_id: z.string() }),
    annotations: ADDS,
  }, async (args, principal) => {
    const inquirer = await seekerInquirer(deps, seekerOf(principal), args.phone ?? null);
    const r = await actAs(deps, principal, (a) =>
      sendInquiry(a, {
        listingId: args.listing_id,
        inquirer,
        message: args.message,
      }));
    return {
      data: { inquiry_id: r.inquiryId, message_id: r.messageId, listing_id: args.listing_id.toLowerCase() },
      text: `Anfrage gesendet (ID ${r.inquiryId}). Der Anbieter antwortet in dieser Anfrage.`,
    };
  });

  addTool(server, deps, {
    name: "list_inquiries",
    title: "Eigene Anfragen / My inquiries",
    description: "Listet Ihre eigenen Anfragen, neueste zuerst, mit Status und Zahl der Nachrichten. " +
      "Lists your own inquiries, newest first, with status and message count; returns {items, total, page, " +
      "page_size}. Read a whole thread with get_inquiry.",
    input: z.object(pagingFields),
    output: listSchema,
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const r = await listSeekerInquiries(deps, seekerOf(principal), args);
    const data = { ...r, page: args.page, page_size: args.page_size };
    return { data, text: listText(data) };
  });

  addTool(server, deps, {
    name: "get_inquiry",
    title: "Anfrage lesen / Read inquiry",
    description: "Liefert eine Ihrer Anfragen mit dem ganzen Verlauf (alle Nachrichten, älteste zuerst). " +
      "Returns one of your inquiries with its whole thread (every message, oldest first); use it after a " +
      "reply.received event.",
    input: z.object({ inquiry_id: idArg("Anfrage-ID / inquiry id") }),
    output: threadSchema,
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const t = await getSeekerInquiry(deps, seekerOf(principal), args.inquiry_id);
    return { data: t, text: threadText(t, false) };
  });

  addMessageTool(server, deps, {
    name: "send_message",
    title: "Nachricht senden / Send message",
    description:
      "Schreibt eine weitere Nachricht in eine Ihrer Anfragen; die Anfrage ist danach wieder offen. " +
      "Abgelehnte oder geschlossene Anfragen nehmen keine Nachricht mehr an (conflict). " +
      "Writes another message in one of your inquiries; the inquiry is open again afterwards. Rejected or " +
      "closed inquiries take no more messages (conflict). Returns the message id.",
  }, { write: sendSeekerMessage, status: "open", said: "Nachricht gesendet" });
}

/** Registers the provider server's inquiry tools: list_inquiries, get_inquiry, reply_to_inquiry, reject_inquiry. */
export function registerProviderInquiryTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "list_inquiries",
    title: "Anfragen des Büros / Office inquiries",
    description:
      "Listet die Anfragen zu Objekten Ihres Büros, neueste zuerst; optional nur zu einem Objekt " +
      "(listing_id) oder mit einem Status. Lists the inquiries about your office's listings, newest first; " +
      "optionally of one listing (listing_id) or one status. Returns {items, total, page, page_size}; read a " +
      "thread with get_inquiry.",
    input: z.object({
      listing_id: idArg("Objekt-ID / listing id").optional(),
      status: z.enum(INQUIRY_STATUSES).optional().describe("open, answered, rejected or closed."),
      ...pagingFields,
    }),
    output: listSchema,
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const r = await listOfficeInquiries(deps, officeOf(principal), args);
    // The tool's items are its schema's fields (the workspace's list has more).
    const data = listSchema.parse({ ...r, page: args.page, page_size: args.page_size });
    return { data, text: listText(data) };
  });

  addTool(server, deps, {
    name: "get_inquiry",
    title: "Anfrage lesen / Read inquiry",
    description:
      "Liefert eine Anfrage Ihres Büros mit Name, E-Mail und Telefon der anfragenden Person und dem " +
      "ganzen Verlauf. Returns one inquiry of your office with the inquirer's name, e-mail and phone and the " +
      "whole thread (oldest first); use it after inquiry.received or message.received.",
    input: z.object({ inquiry_id: idArg("Anfrage-ID / inquiry id") }),
    output: threadSchema,
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const t = threadSchema.parse(await getOfficeInquiry(deps, officeOf(principal), args.inquiry_id));
    return { data: t, text: threadText(t, true) };
  });

  addMessageTool(server, deps, {
    name: "reply_to_inquiry",
    title: "Anfrage beantworten / Reply to inquiry",
    description:
      "Beantwortet eine Anfrage Ihres Büros mit einer Nachricht; Status danach beantwortet. Offene " +
      "Entwürfe des Assistenten zu dieser Anfrage werden dabei verworfen. Abgelehnte oder geschlossene Anfragen: " +
      "conflict. Replies to an inquiry of your office with a message; status afterwards answered. The " +
      "assistant's open drafts for this inquiry are discarded with it. Rejected or closed inquiries: conflict. " +
      "Returns the message id.",
  }, { write: replyToInquiry, status: "answered", said: "Antwort gesendet" });

  addTool(server, deps, {
    name: "reject_inquiry",
    title: "Anfrage ablehnen / Reject inquiry",
    description:
      "Lehnt eine Anfrage Ihres Büros ab, optional mit einer Nachricht an die anfragende Person; danach " +
      "nimmt die Anfrage keine Nachrichten mehr an. Rejects an inquiry of your office, optionally with a message " +
      "to the inquirer; afterwards the inquiry takes no more messages, and the assistant's open drafts for it " +
      "are discarded. Rejecting again answers conflict. " +
      "Returns the status and the message id (null without a message).",
    input: z.object({
      inquiry_id: idArg("Anfrage-ID / inquiry id"),
      message: messageArg.optional(),
    }),
    output: z.object({
      inquiry_id: z.string(),
      message_id: z.string().nullable(),
      status: z.literal("rejected"),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) => rejectInquiry(a, args.inquiry_id, args.message));
    return {
      data: {
        inquiry_id: args.inquiry_id.toLowerCase(),
        message_id: r.messageId,
        status: "rejected" as const,
      },
      text: r.messageId ? "Anfrage abgelehnt, Nachricht gesendet." : "Anfrage abgelehnt.",
    };
  });
}

/** How a message tool writes: the domain write, the inquiry's status afterwards, and what it says it did. */
interface MessageWrite {
  write: (a: Action, inquiryId: string, body: string) => Promise<{ messageId: string }>;
  status: "open" | "answered";
  said: string;
}

/** Registers a tool that writes one message into an inquiry and returns its id with the inquiry's new status. */
function addMessageTool(
  server: ToolTarget,
  deps: AppDeps,
  tool: { name: string; title: string; description: string },
  how: MessageWrite,
): void {
  addTool(server, deps, {
    ...tool,
    input: z.object({ inquiry_id: idArg("Anfrage-ID / inquiry id"), message: messageArg }),
    output: messageResult,
    annotations: ADDS,
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) => how.write(a, args.inquiry_id, args.message));
    return {
      data: { inquiry_id: args.inquiry_id.toLowerCase(), message_id: r.messageId, status: how.status },
      text: `${how.said} (ID ${r.messageId}).`,
    };
  });
}
