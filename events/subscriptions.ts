/**
 * The event calls of docs/contract.md §6.1 as domain functions: events/list, events/subscribe (with address verification,
 * renewal, secret rotation and the limits of §6.2, §8) and events/unsubscribe. Every refusal is an
 * {@linkcode EventCallError} with the code and `data` of docs/contract.md §8.4; nothing is written before every check passed.
 */
import { z } from "zod";
import type { Right } from "../auth/principal.ts";
import type { Principal } from "../auth/principal.ts";
import {
  countLive,
  endSubscriptions,
  inquiryOfOffice,
  inquiryOfSeeker,
  insertSubscription,
  isOptedOut,
  listingOfOffice,
  liveSubscription,
  lockApp,
  renewSubscription,
  savedSearchOfSeeker,
  type SubscriptionIdentity,
  type SubscriptionRow,
} from "../db/subscriptions.ts";
import { dropOpenDeliveries } from "../db/deliveries.ts";
import { EventCallError } from "../errors.ts";
import type { AppDeps } from "../deps.ts";
import { act, nowOf, type Who } from "../deps.ts";
import { truncate } from "../text.ts";
import { timingSafeEqual } from "../crypto.ts";
import { parseWebhookUrl, vetWebhookUrl } from "./address.ts";
import {
  EVENT_DATA,
  EVENT_DESCRIPTIONS,
  EVENT_FILTERS,
  EVENT_SERVER,
  type EventName,
  type EventServer,
  eventsOf,
  isEventName,
} from "./catalogue.ts";
import { parseSecret } from "./signing.ts";
import { type DeliveryStatus, deliveryStatus, NEW_DELIVERY_STATUS, reactivateIn } from "./suspension.ts";
import { ensureVerified } from "./verification.ts";
import { ROTATION_OVERLAP_MS } from "./webhook_message.ts";

/** At most this many live subscriptions per person and app (docs/contract.md §6.3). */
export const MAX_SUBSCRIPTIONS = 50;
/** Shortest subscription duration (docs/contract.md §9). */
export const MIN_TTL_MS = 10 * 60_000;
/** Longest and default subscription duration (docs/contract.md §9). */
export const MAX_TTL_MS = 24 * 60 * 60_000;

/** The server a caller with `right` talks to. */
export function serverOfRight(right: Right): EventServer {
  return right === "lesen" ? "anbieter" : "suche";
}

/** One entry of events/list. */
export interface EventDescriptor {
  name: EventName;
  description: string;
  delivery: ["webhook"];
  inputSchema: Record<string, unknown>;
  payloadSchema: Record<string, unknown>;
}

/**
 * The events/list entries of each server, built on first use. A static memo of constant data (the catalogue's
 * schemas never change in a process), so it may stay at module level: it is the same for every app.
 */
const descriptors = new Map<EventServer, EventDescriptor[]>();

/** events/list: the events of the caller's server, with JSON Schemas generated from the code's zod schemas. */
export function listEvents(principal: Principal | undefined): { events: EventDescriptor[] } {
  const p = signedIn(principal);
  const server = serverOfRight(p.right);
  let list = descriptors.get(server);
  if (!list) {
    list = eventsOf(server).map((name) => ({
      name,
      description: EVENT_DESCRIPTIONS[name],
      delivery: ["webhook"],
      inputSchema: jsonSchema(EVENT_FILTERS[name]),
      payloadSchema: jsonSchema(EVENT_DATA[name]),
    }));
    descriptors.set(server, list);
  }
  return { events: list };
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
}

/** The answer of events/subscribe (docs/contract.md §6.1; `deliveryStatus` as the MCP events draft has it). */
export interface SubscribeResult {
  id: string;
  refreshBefore: string;
  cursor: null;
  truncated: false;
  /** The state before this call; a renewal of a suspended subscription (`active: false`) has reactivated it. */
  deliveryStatus: DeliveryStatus;
}

/** A checked subscribe request. */
interface SubscribeRequest {
  principal: Principal & { origin: { kind: "oauth"; clientId: string } };
  name: EventName;
  arguments: Record<string, string>;
  url: URL;
  secret: string;
  ttlMs: number;
}

/** events/subscribe: creates or renews the subscription (docs/contract.md §6.1, §6.2, §6.3). */
export async function subscribe(
  deps: AppDeps,
  principal: Principal | undefined,
  params: Record<string, unknown>,
): Promise<SubscribeResult> {
  const req = await checkSubscribe(deps, principal, params);
  const identity = identityOf(req);
  const now = nowOf(deps);
  const existing = await precheckSlot(deps, req, identity, now);
  const unverified = await ensureVerified(deps, { ...identity, secret: req.secret }, existing?.id);
  if (unverified === "address") throw badUrl("not_public");
  if (unverified) {
    throw new EventCallError("callback_failed", `Verifying the address failed: ${unverified}`, {
      reason: unverified,
    });
  }
  return await writeSubscription(deps, req, identity);
}

/** Every check that needs no write, in the order of docs/contract.md §8.4's table; throws the first failure. */
async function checkSubscribe(
  deps: AppDeps,
  principal: Principal | undefined,
  params: Record<string, unknown>,
): Promise<SubscribeRequest> {
  const p = oauthCaller(principal);
  if (!deps.events.box) throw notConfigured();
  const name = eventOf(p, params.name);
  const delivery = objectParam(params.delivery, "delivery");
  if (delivery.mode !== "webhook") {
    throw new EventCallError("unsupported", "Only webhook delivery is supported", {
      feature: "deliveryMode",
      value: typeof delivery.mode === "string" ? truncate(delivery.mode, 50) : null,
    });
  }
  const parsed = parseWebhookUrl(delivery.url);
  if (!parsed.ok) throw badUrl(parsed.reason);
  if (!parseSecret(delivery.secret)) {
    throw new EventCallError(
      "invalid_params",
      "delivery.secret must be whsec_ followed by standard Base64 of 24 to 64 bytes",
      { reason: "delivery.secret" },
    );
  }
  if (EVENT_SERVER[name] === "anbieter" && p.officeId === null) throw forbidden("access_closed");
  const args = checkArguments(name, params.arguments);
  await checkOwnership(deps, p, args);
  const vetted = await vetWebhookUrl(parsed.url, deps.events.policy);
  if (!vetted.ok) throw badUrl(vetted.reason);
  return {
    principal: p,
    name,
    arguments: args,
    url: parsed.url,
    secret: delivery.secret as string,
    ttlMs: ttl(params.ttlMs),
  };
}

function signedIn(principal: Principal | undefined): Principal {
  if (!principal) throw forbidden("authentication_required");
  return principal;
}

function oauthCaller(principal: Principal | undefined): SubscribeRequest["principal"] {
  const p = signedIn(principal);
  if (p.origin.kind !== "oauth") throw forbidden("oauth_connection_required");
  return p as SubscribeRequest["principal"];
}

function eventOf(p: Principal, name: unknown): EventName {
  if (typeof name !== "string") {
    throw new EventCallError("invalid_params", "name must be a string", { reason: "name" });
  }
  if (!isEventName(name) || EVENT_SERVER[name] !== serverOfRight(p.right)) {
    throw new EventCallError("not_found", `Unknown event on this server: ${truncate(name, 100)}`, {
      kind: "event",
    });
  }
  return name;
}

function objectParam(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new EventCallError("invalid_params", `${field} must be an object`, { reason: field });
  }
  return v as Record<string, unknown>;
}

function badUrl(reason: string): EventCallError {
  return new EventCallError("invalid_params", `delivery.url refused: ${reason}`, {
    reason: `delivery.url:${reason}`,
  });
}

function forbidden(reason: string): EventCallError {
  return new EventCallError("forbidden", `Not allowed: ${reason}`, { reason });
}

function notConfigured(): EventCallError {
  return new EventCallError("not_configured", "Events are not set up on this server", {
    reason: "events_not_configured",
  });
}

function checkArguments(name: EventName, raw: unknown): Record<string, string> {
  const parsed = EVENT_FILTERS[name].safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EventCallError(
      "invalid_params",
      `arguments do not match the filters of ${name}: ${issue?.path.join(".") || "(root)"} ${
        issue?.message ?? ""
      }`,
      { reason: "arguments" },
    );
  }
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

/** Every id in the filter must belong to the caller's office (provider) or the caller (seeker). */
async function checkOwnership(deps: AppDeps, p: Principal, args: Record<string, string>): Promise<void> {
  const office = p.officeId;
  const checks: Array<Promise<boolean>> = [];
  for (const [key, id] of Object.entries(args)) {
    if (key === "objekt_id") {
      checks.push(office ? listingOfOffice(deps.db, office, id) : Promise.resolve(false));
    } else if (key === "anfrage_id") {
      checks.push(office ? inquiryOfOffice(deps.db, office, id) : Promise.resolve(false));
    } else if (key === "inquiry_id") checks.push(inquiryOfSeeker(deps.db, p.userId, id));
    else if (key === "saved_search_id") checks.push(savedSearchOfSeeker(deps.db, p.userId, id));
    else checks.push(Promise.resolve(false));
  }
  if ((await Promise.all(checks)).some((ok) => !ok)) throw forbidden("arguments_not_in_account");
}

/** The duration asked for, clamped to 10 minutes … 24 hours (default 24 hours); never an error. */
export function ttl(raw: unknown): number {
  if (typeof raw !== "number" || !Number.isFinite(raw)) return MAX_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Math.round(raw)));
}

/** Canonical JSON of a filter (sorted keys). */
export function canonicalArguments(args: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(args).sort(([a], [b]) => (a < b ? -1 : 1))));
}

function identityOf(req: SubscribeRequest): SubscriptionIdentity {
  return {
    userId: req.principal.userId,
    clientId: req.principal.origin.clientId,
    server: EVENT_SERVER[req.name],
    name: req.name,
    argumentsKey: canonicalArguments(req.arguments),
    url: req.url.href,
  };
}

/**
 * Refuses early (before any verification POST) what the write would refuse: switched off, over the limit.
 * Returns the live subscription of the identity, if any.
 */
async function precheckSlot(
  deps: AppDeps,
  req: SubscribeRequest,
  identity: SubscriptionIdentity,
  now: Date,
): Promise<SubscriptionRow | undefined> {
  const q = deps.db.kysely;
  if (await isOptedOut(q, identity.userId, identity.clientId, req.name)) throw forbidden("ended_by_user");
  const existing = await liveSubscription(q, identity);
  if (existing && existing.expiresAt > now) return existing;
  if (await countLive(q, identity.userId, identity.clientId, now) >= MAX_SUBSCRIPTIONS) throw overLimit();
  return existing;
}

function overLimit(): EventCallError {
  return new EventCallError("limit", `At most ${MAX_SUBSCRIPTIONS} subscriptions per person and app`, {
    limit: "subscriptions",
    max: MAX_SUBSCRIPTIONS,
  });
}

/** Creates or renews the subscription under the person-and-app lock, re-checking switch and limit. */
async function writeSubscription(
  deps: AppDeps,
  req: SubscribeRequest,
  identity: SubscriptionIdentity,
): Promise<SubscribeResult> {
  const sealed = await deps.events.box!.seal(req.secret);
  let expiresAt!: Date;
  const written = await act(deps, appOwner(req.principal), async (a) => {
    const { tx, now } = a;
    expiresAt = new Date(now.getTime() + req.ttlMs);
    await lockApp(tx, identity.userId, identity.clientId);
    if (await isOptedOut(tx, identity.userId, identity.clientId, req.name)) throw forbidden("ended_by_user");
    const existing = await liveSubscription(tx, identity);
    if (!existing || existing.expiresAt <= now) {
      if (await countLive(tx, identity.userId, identity.clientId, now) >= MAX_SUBSCRIPTIONS) {
        throw overLimit();
      }
    }
    if (existing) {
      const state = await renewSubscription(tx, existing.id, {
        ...(await rotation(deps, existing, req.secret, sealed, now)),
        now,
        expiresAt,
      });
      // The draft: the renewal that reports `active: false` has just reactivated delivery.
      const done = state.suspendedAt ? await reactivateIn(tx, existing.id, now) : undefined;
      if (done) {
        a.afterCommit(() =>
          deps.log.log("info", "delivery reactivated by a renewal", { subscription: existing.id, ...done })
        );
      }
      return { id: existing.id, status: deliveryStatus(state) };
    }
    const fresh = newSubscriptionId();
    await insertSubscription(tx, {
      ...identity,
      id: fresh,
      officeId: identity.server === "anbieter" ? req.principal.officeId : null,
      arguments: req.arguments,
      secretEnc: sealed,
      now,
      expiresAt,
    });
    return { id: fresh, status: NEW_DELIVERY_STATUS };
  });
  return {
    id: written.id,
    refreshBefore: expiresAt.toISOString(),
    cursor: null,
    truncated: false,
    deliveryStatus: written.status,
  };
}

/** Secrets after a renewal: a new secret replaces the old one, which keeps signing for 15 more minutes. */
async function rotation(
  deps: AppDeps,
  existing: SubscriptionRow,
  secret: string,
  sealed: string,
  now: Date,
): Promise<{ secretEnc: string; previousSecretEnc: string | null; previousSecretUntil: Date | null }> {
  const current = await deps.events.box!.open(existing.secretEnc);
  if (timingSafeEqual(current, secret)) {
    return {
      secretEnc: existing.secretEnc,
      previousSecretEnc: existing.previousSecretEnc,
      previousSecretUntil: existing.previousSecretUntil,
    };
  }
  return {
    secretEnc: sealed,
    previousSecretEnc: existing.secretEnc,
    previousSecretUntil: new Date(now.getTime() + ROTATION_OVERLAP_MS),
  };
}

/** Who manages an app's subscriptions: the person on their own account, through the app (the origin). */
function appOwner(p: SubscribeRequest["principal"]): Who {
  return { actor: { kind: "person", userId: p.userId }, origin: { clientId: p.origin.clientId } };
}

/** A fresh subscription id: `sub_` + 26 base32 characters (130 random bits). */
export function newSubscriptionId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  const bytes = crypto.getRandomValues(new Uint8Array(26));
  return `sub_${Array.from(bytes, (b) => alphabet[b & 31]).join("")}`;
}

/** events/unsubscribe: ends the subscription named by event, filter and address; `{}`. */
export async function unsubscribe(
  deps: AppDeps,
  principal: Principal | undefined,
  params: Record<string, unknown>,
): Promise<Record<string, never>> {
  const p = oauthCaller(principal);
  const name = eventOf(p, params.name);
  const delivery = objectParam(params.delivery, "delivery");
  const parsed = parseWebhookUrl(delivery.url);
  if (!parsed.ok) throw badUrl(parsed.reason);
  const args = checkArguments(name, params.arguments);
  const identity: SubscriptionIdentity = {
    userId: p.userId,
    clientId: p.origin.clientId,
    server: EVENT_SERVER[name],
    name,
    argumentsKey: canonicalArguments(args),
    url: parsed.url.href,
  };
  const ended = await act(deps, appOwner(p), async ({ tx, now }) => {
    const existing = await liveSubscription(tx, identity);
    if (!existing) return false;
    await endSubscriptions(tx, { id: existing.id }, { reason: "unsubscribed", now, terminate: false });
    await dropOpenDeliveries(tx, existing.id, now);
    return true;
  });
  if (!ended) throw new EventCallError("not_found", "No such subscription", { kind: "subscription" });
  return {};
}

/** events/poll and events/stream: not supported (docs/contract.md §6.1). */
export function unsupportedMode(method: "events/poll" | "events/stream"): never {
  throw new EventCallError("unsupported", `${method} is not supported; use webhook delivery`, {
    feature: "deliveryMode",
    value: method === "events/poll" ? "poll" : "push",
  });
}
