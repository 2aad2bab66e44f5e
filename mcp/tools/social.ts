/** MCP tools of the provider server: the social inbox (`list_social_messages`), a thin adapter over social/. */
import { z } from "zod";
import { officeOf } from "../../auth/principal.ts";
import { pageOf, pagingFields } from "../../catalogue/listing.ts";
import type { SocialEntryRow } from "../../db/social.ts";
import type { AppDeps } from "../../deps.ts";
import { SOCIAL_KINDS, SOCIAL_NETWORKS } from "../../events/catalogue.ts";
import { listSocialMessages } from "../../social/inbox.ts";
import { addTool, READ_ONLY, type ToolTarget } from "./define.ts";

const ART_DE = { comment: "Kommentar", message: "Nachricht" } as const;

const entrySchema = z.object({
  id: z.string().describe("Entry id (eingang_id of social.received)."),
  netz: z.enum(SOCIAL_NETWORKS),
  art: z.enum(SOCIAL_KINDS),
  page_id: z.string().describe("The connected page (Facebook) or account (Instagram) it arrived on."),
  page_name: z.string().nullable(),
  post_id: z.string().nullable().describe("The post or media a comment is on; null for messages."),
  author_id: z.string().nullable().describe("The author's id in the network."),
  author_name: z.string().nullable().describe("Name or username the network sent; null for messages."),
  text: z.string().describe("The text as received (empty for a message with only attachments)."),
  objekt_id: z.string().nullable().describe("The listing named by link or reference; null when none."),
  received_at: z.string().describe("ISO 8601."),
});

/** The output shape of one entry. */
function entryData(e: SocialEntryRow): z.infer<typeof entrySchema> {
  return {
    id: e.id,
    netz: e.netz,
    art: e.art,
    page_id: e.pageId,
    page_name: e.pageName,
    post_id: e.postId,
    author_id: e.authorId,
    author_name: e.authorName,
    text: e.text,
    objekt_id: e.listingId,
    received_at: e.receivedAt.toISOString(),
  };
}

/** A short German text of a list page. */
function listText(items: SocialEntryRow[], total: number, page: number): string {
  if (items.length === 0) return total === 0 ? "Keine Eingänge." : `Keine Eingänge auf Seite ${page}.`;
  const lines = items.map((e) =>
    `- [${e.receivedAt.toISOString()}] ${ART_DE[e.art]} (${e.netz}) von ${
      e.authorName ?? e.authorId ?? "?"
    }: ` +
    `${e.text}${e.listingId ? ` (Objekt ${e.listingId})` : ""} (ID ${e.id})`
  );
  return [`${total} Eingang/Eingänge, Seite ${page}:`, ...lines].join("\n");
}

/** Registers the social tools of the provider server: list_social_messages. */
export function registerSocialTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "list_social_messages",
    title: "Soziale Netze: Eingänge / Social inbox",
    description:
      "Listet Kommentare und Nachrichten aus den verbundenen Facebook- und Instagram-Seiten Ihres " +
      "Büros, neueste zuerst, mit Text und dem Objekt, das per Link oder Referenz genannt wurde; optional nur zu " +
      "einem Objekt (objekt_id), einem Netz (netz) oder einer Art (art). Lists the comments and messages from your " +
      "office's connected Facebook and Instagram pages, newest first, with their text and the listing named by " +
      "link or reference; optionally only of one listing (objekt_id), network (netz) or kind (art). Returns " +
      "{items, total, page, page_size}; use it after a social.received event.",
    input: z.object({
      objekt_id: z.string().max(100).optional().describe("Objekt-ID / listing id (UUID)."),
      netz: z.enum(SOCIAL_NETWORKS).optional().describe("facebook or instagram."),
      art: z.enum(SOCIAL_KINDS).optional().describe("comment or message."),
      ...pagingFields,
    }),
    output: pageOf(entrySchema),
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const r = await listSocialMessages(deps, officeOf(principal), args);
    return {
      data: { items: r.items.map(entryData), total: r.total, page: args.page, page_size: args.page_size },
      text: listText(r.items, r.total, args.page),
    };
  });
}
