/**
 * The social inbox: takes the signed webhook deliveries of Meta's Graph webhooks, stores each new comment or
 * message of a connected page once (with the one listing of the office it names, `catalogue/named_listing.ts`)
 * and records `social.received` in the same transaction; lists an office's entries for the provider server.
 *
 * Replays: an entry is keyed by network + the network's id of it, so a replayed or retried delivery stores
 * nothing and records no second event. Deliveries are not refused by age: Meta retries a failed delivery for up
 * to 36 hours, and the key already makes a replay harmless.
 */
import type { Kysely } from "kysely";
import { namedListing } from "../catalogue/named_listing.ts";
import { officeListingFilter } from "../catalogue/office_listing_filter.ts";
import type { Database } from "../db/schema.ts";
import {
  connectedOffices,
  insertSocialEntry,
  listSocialEntries,
  type SocialArt,
  type SocialEntryRow,
  type SocialNetz,
} from "../db/social.ts";
import { AppError } from "../errors.ts";
import { SOCIAL_NETWORKS } from "../events/catalogue.ts";
import { recordEvent } from "../events/outbox.ts";
import { act, type Action, type AppDeps, SERVICE } from "../deps.ts";
import { pageWindow, type Paging } from "../paging.ts";
import { type InboundItem, readPayload } from "./payload.ts";
import { signatureProblem, verifyTokenMatches } from "./signature.ts";

/** A refusal of the webhook endpoint that is not an {@linkcode AppError} code: status and `{error}` body. */
export interface Refusal {
  ok: false;
  status: 401 | 403;
  error: "invalid_signature" | "forbidden";
}

/** What a delivery did: entries stored, replays skipped, items of unconnected pages, items ignored. */
export interface DeliveryResult {
  ok: true;
  stored: number;
  duplicates: number;
  unconnected: number;
  ignored: number;
}

/** The configured secrets of the endpoint; `not_found` when either is missing (endpoint off). */
function secretsOf(deps: Pick<AppDeps, "config">): { appSecret: string; verifyToken: string } {
  const { socialAppSecret, socialVerifyToken } = deps.config;
  if (!socialAppSecret || !socialVerifyToken) throw new AppError("not_found");
  return { appSecret: socialAppSecret, verifyToken: socialVerifyToken };
}

/**
 * Answers the subscription check (`hub.mode=subscribe`, `hub.verify_token`, `hub.challenge`): the challenge when
 * the token matches, a `forbidden` refusal otherwise; `invalid_request` for a missing mode or challenge.
 */
export function subscriptionCheck(
  deps: Pick<AppDeps, "config">,
  q: { mode?: string | undefined; token?: string | undefined; challenge?: string | undefined },
): { ok: true; challenge: string } | Refusal {
  const { verifyToken } = secretsOf(deps);
  if (q.mode !== "subscribe") {
    throw new AppError("invalid_request", {
      field: "hub.mode",
      reason: "invalid",
      hint: "must be subscribe",
    });
  }
  if (!q.challenge || !/^[\x21-\x7e]{1,256}$/.test(q.challenge)) {
    throw new AppError("invalid_request", {
      field: "hub.challenge",
      reason: "invalid",
      hint: "1 to 256 visible ASCII characters",
    });
  }
  if (!verifyTokenMatches(verifyToken, q.token ?? "")) return { ok: false, status: 403, error: "forbidden" };
  return { ok: true, challenge: q.challenge };
}

/**
 * Takes one webhook delivery: checks `X-Hub-Signature-256` over the raw body first (refusal `invalid_signature`),
 * then parses it (`invalid_request` for bad JSON or shape) and stores its new entries in one transaction.
 */
export async function receiveDelivery(
  deps: AppDeps,
  raw: Uint8Array<ArrayBuffer>,
  signature: string | undefined,
): Promise<DeliveryResult | Refusal> {
  const { appSecret } = secretsOf(deps);
  const problem = await signatureProblem(appSecret, raw, signature);
  if (problem) {
    deps.log.log("warn", "social webhook refused", { reason: problem });
    return { ok: false, status: 401, error: "invalid_signature" };
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch {
    throw new AppError("invalid_request", { field: "body", reason: "not_json" });
  }
  const { items, ignored } = readPayload(body);
  const result = await storeItems(deps, items);
  return { ok: true, ...result, ignored };
}

/** Stores the items of connected pages (one transaction); logs, without content, items of unconnected pages. */
async function storeItems(
  deps: AppDeps,
  items: InboundItem[],
): Promise<{ stored: number; duplicates: number; unconnected: number }> {
  return await act(deps, SERVICE, async (a) => {
    const offices = await officesOf(a.tx, items);
    const r = { stored: 0, duplicates: 0, unconnected: 0 };
    for (const item of items) {
      const officeId = offices.get(`${item.netz}:${item.pageId}`);
      if (!officeId) {
        r.unconnected++;
        deps.log.log("info", "social webhook for an unconnected page", {
          netz: item.netz,
          page_id: item.pageId,
        });
        continue;
      }
      if (await storeItem(a, officeId, item)) r.stored++;
      else r.duplicates++;
    }
    return r;
  });
}

/** The office of each (network, page) of `items`, keyed `netz:pageId`. */
async function officesOf(tx: Kysely<Database>, items: InboundItem[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const netz of SOCIAL_NETWORKS) {
    const pages = [...new Set(items.filter((i) => i.netz === netz).map((i) => i.pageId))];
    for (const [page, office] of await connectedOffices(tx, netz, pages)) out.set(`${netz}:${page}`, office);
  }
  return out;
}

/** Stores one item and records its event; false when the entry exists already (a replay). */
async function storeItem(a: Action, officeId: string, item: InboundItem): Promise<boolean> {
  const listingId = await namedListing(a.tx, officeId, [item.text]);
  const id = await insertSocialEntry(a.tx, { ...item, officeId, listingId, at: a.now });
  if (!id) return false;
  await recordEvent(a, {
    name: "social.received",
    data: {
      eingang_id: id,
      art: item.art,
      netz: item.netz,
      objekt_id: listingId,
      satz: satzOf(item, listingId),
    },
    owner: { office: officeId },
  });
  return true;
}

const NETZ_DE: Record<SocialNetz, string> = { facebook: "Facebook", instagram: "Instagram" };

/** The event's sentence: what arrived where, never its content. */
export function satzOf(item: { art: SocialArt; netz: SocialNetz }, listingId: string | null): string {
  const what = item.art === "comment" ? "Neuer Kommentar" : "Neue Nachricht";
  return `${what} auf ${NETZ_DE[item.netz]}${listingId ? " zu einem Ihrer Objekte" : ""}.`;
}

/** Filter and page of {@linkcode listSocialMessages}. */
export interface SocialMessageQuery extends Paging {
  objekt_id?: string | undefined;
  netz?: SocialNetz | undefined;
  art?: SocialArt | undefined;
}

/** The office's entries, newest first; `not_found` for an `objekt_id` that is not a listing of the office. */
export async function listSocialMessages(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  q: SocialMessageQuery,
): Promise<{ items: SocialEntryRow[]; total: number }> {
  const { page_size, offset } = pageWindow(q);
  const listingId = await officeListingFilter(deps.db.kysely, officeId, q.objekt_id);
  const { rows, total } = await listSocialEntries(
    deps.db,
    officeId,
    { listingId, netz: q.netz, art: q.art },
    { limit: page_size, offset },
  );
  return { items: rows, total };
}
