/**
 * Reads the JSON body of a Meta Graph webhook (`object` page or instagram) into inbox items: comments added on a
 * page's posts (`feed` / `comments` changes) and messages (`messaging`). Everything else — edits, removals,
 * reactions, other objects, the page's own comments and echoes of its own messages — is ignored.
 */
import { z } from "zod";
import { AppError } from "../errors.ts";
import type { SocialArt, SocialNetz } from "../db/social.ts";
import { hasControlCharacter, truncate } from "../text.ts";

/** Longest text stored; longer texts are cut (the network already delivered them, refusing would only retry). */
export const TEXT_MAX = 20_000;
const NAME_MAX = 300;

/** One comment or message of a webhook body. */
export interface InboundItem {
  netz: SocialNetz;
  art: SocialArt;
  /** The page (Facebook) or account (Instagram) it arrived on: `entry[].id`. */
  pageId: string;
  /** `comment_id`, the Instagram comment's `id`, or the message's `mid`. */
  externalId: string;
  postId: string | null;
  authorId: string | null;
  authorName: string | null;
  text: string;
}

/** A webhook body read: its items and how many changes or messages were ignored. */
export interface ReadPayload {
  items: InboundItem[];
  ignored: number;
}

/** The shape of a page id (also checked by `social_pages`). */
export const PAGE_ID = /^[0-9A-Za-z_.-]{1,100}$/;
const extId = z.string().min(1).max(300).refine((s) => !hasControlCharacter(s));
const envelope = z.object({ object: z.string(), entry: z.array(z.unknown()).max(1000) });
const entrySchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(PAGE_ID)),
  changes: z.array(z.unknown()).max(1000).optional(),
  messaging: z.array(z.unknown()).max(1000).optional(),
});
const feedComment = z.object({
  field: z.literal("feed"),
  value: z.object({
    item: z.literal("comment"),
    verb: z.literal("add"),
    comment_id: extId,
    post_id: extId.optional(),
    message: z.string().optional(),
    from: z.object({ id: extId, name: z.string().optional() }).optional(),
  }),
});
const instagramComment = z.object({
  field: z.literal("comments"),
  value: z.object({
    id: extId,
    text: z.string().optional(),
    from: z.object({ id: extId, username: z.string().optional() }).optional(),
    media: z.object({ id: extId }).optional(),
  }),
});
const messagingSchema = z.object({
  sender: z.object({ id: extId }),
  message: z.object({ mid: extId, text: z.string().optional(), is_echo: z.boolean().optional() }),
});

/** The network of a webhook `object`, or undefined for objects the inbox does not take. */
function netzOf(object: string): SocialNetz | undefined {
  return object === "page" ? "facebook" : object === "instagram" ? "instagram" : undefined;
}

/** Reads `body`; throws `invalid_request` when it is not `{object, entry: [...]}`. */
export function readPayload(body: unknown): ReadPayload {
  const env = envelope.safeParse(body);
  if (!env.success) {
    throw new AppError("invalid_request", {
      field: "body",
      reason: "invalid",
      hint: "expected {object, entry: [...]}",
    });
  }
  const netz = netzOf(env.data.object);
  const out: ReadPayload = { items: [], ignored: 0 };
  for (const raw of env.data.entry) {
    const entry = entrySchema.safeParse(raw);
    if (!netz || !entry.success) {
      out.ignored++;
      continue;
    }
    const { id: pageId, changes = [], messaging = [] } = entry.data;
    for (const c of changes) push(out, commentOf(netz, pageId, c));
    for (const m of messaging) push(out, messageOf(netz, pageId, m));
  }
  return out;
}

function push(out: ReadPayload, item: InboundItem | undefined): void {
  if (item) out.items.push(item);
  else out.ignored++;
}

/** A comment added by someone other than the page itself, else undefined. */
function commentOf(netz: SocialNetz, pageId: string, change: unknown): InboundItem | undefined {
  if (netz === "facebook") {
    const c = feedComment.safeParse(change);
    if (!c.success || c.data.value.from?.id === pageId) return undefined;
    const v = c.data.value;
    return item(netz, "comment", pageId, v.comment_id, v.post_id, v.from?.id, v.from?.name, v.message);
  }
  const c = instagramComment.safeParse(change);
  if (!c.success || c.data.value.from?.id === pageId) return undefined;
  const v = c.data.value;
  return item(netz, "comment", pageId, v.id, v.media?.id, v.from?.id, v.from?.username, v.text);
}

/** A message sent to the page (not an echo of the page's own), else undefined. */
function messageOf(netz: SocialNetz, pageId: string, event: unknown): InboundItem | undefined {
  const m = messagingSchema.safeParse(event);
  if (!m.success || m.data.message.is_echo || m.data.sender.id === pageId) return undefined;
  const { sender, message } = m.data;
  return item(netz, "message", pageId, message.mid, undefined, sender.id, undefined, message.text);
}

function item(
  netz: SocialNetz,
  art: SocialArt,
  pageId: string,
  externalId: string,
  postId: string | undefined,
  authorId: string | undefined,
  authorName: string | undefined,
  text: string | undefined,
): InboundItem {
  return {
    netz,
    art,
    pageId,
    externalId,
    postId: postId ?? null,
    authorId: authorId ?? null,
    authorName: authorName ? truncate(clean(authorName), NAME_MAX) || null : null,
    text: truncate(clean(text ?? ""), TEXT_MAX),
  };
}

/** `s` without NUL characters (Postgres text cannot hold them). */
function clean(s: string): string {
  return s.replaceAll("\u0000", "");
}
