/**
 * The events of a person's connected apps as the "Connected apps" page shows them (docs/contract.md §6.3): the live
 * subscriptions of each app with their delivery state and recent attempts, and a per-app switch for each event.
 * Switching an event off ends the app's live subscriptions of it at once (a `terminated` message with reason
 * `ended_by_user` is owed) and makes the app's next renewal fail with -32012 `ended_by_user`; switching it on lets
 * the app subscribe again.
 */
import { dropOpenDeliveries } from "../db/deliveries.ts";
import { recentAttempts } from "../db/delivery_log.ts";
import { deliveryOverview } from "../db/subscription_state.ts";
import { connectionsOf } from "../db/oauth.ts";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import {
  deleteOptOut,
  endSubscriptions,
  insertOptOut,
  liveSubscriptionsOf,
  lockApp,
  optOutsOf,
} from "../db/subscriptions.ts";
import { AppError } from "../errors.ts";
import { type Action, type AppDeps, nowOf } from "../deps.ts";
import { EVENT_SERVER, type EventName, type EventServer, eventsOf, isEventName } from "./catalogue.ts";
import { categoryOf, type DeliveryErrorCategory } from "./http_client.ts";
import { type DeliveryStatus, deliveryStatus, NEW_DELIVERY_STATUS, resendable } from "./suspension.ts";

/** Attempts shown per subscription, newest first. */
const ATTEMPTS_SHOWN = 10;
/** They are read from this many of the subscription's newest deliveries. */
const DELIVERIES_READ = 20;

/** One attempt as the page shows it. */
export interface AttemptLine {
  eventId: string;
  name: string;
  attempt: number;
  at: Date;
  durationMs: number;
  /** The answer's HTTP status, null without an answer. */
  status: number | null;
  /** The draft's category of a failed attempt (null when delivered or not an attempt). */
  category: DeliveryErrorCategory | null;
  /** `delivered`, `retry`, `failed`, `gone`, `dropped`. */
  outcome: string;
  /** The person may send this event again (on the newest attempt of a delivery that failed within 24 hours). */
  resendable: boolean;
}

/** A subscription's delivery as the page shows it. */
export interface SubscriptionDelivery {
  status: DeliveryStatus;
  /** Events kept while delivery is suspended. */
  kept: number;
  /** Events waiting to be sent again. */
  resending: number;
  attempts: AttemptLine[];
}

/** One live subscription of an app, as the page shows it (never the secret, never the address's query). */
export interface AppSubscription {
  id: string;
  name: string;
  server: EventServer;
  /** The filter (`arguments`) of the subscription; `{}` when it takes every event of its kind. */
  filter: Record<string, string>;
  /** Host and path of the delivery address (the query is left out: it may carry an app's own token). */
  address: string;
  /** When the subscription runs out unless the app renews it. */
  refreshBefore: Date;
  delivery: SubscriptionDelivery;
}

/** What the page shows of one app's events. */
export interface AppEvents {
  subscriptions: AppSubscription[];
  /** The events the person switched off for this app, sorted by name. */
  switchedOff: string[];
}

/** The servers whose events an app with consent `scopes` may subscribe to: lesen → anbieter, suchen → suche. */
export function serversOfScopes(scopes: readonly string[]): EventServer[] {
  const out: EventServer[] = [];
  if (scopes.includes("lesen")) out.push("anbieter");
  if (scopes.includes("suchen")) out.push("suche");
  return out;
}

/** The events an app with consent `scopes` may subscribe to, in the contract's order. */
export function eventsOfScopes(scopes: readonly string[]): EventName[] {
  return serversOfScopes(scopes).flatMap((s) => eventsOf(s));
}

/** Host and path of a delivery address (query and fragment left out). */
export function addressOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return "";
  }
}

/**
 * Per app (client id): its live, unexpired subscriptions (newest first) with their delivery, and its switched-off
 * events.
 */
export async function appSubscriptions(
  deps: Pick<AppDeps, "db" | "clock">,
  userId: string,
): Promise<Map<string, AppEvents>> {
  const now = nowOf(deps);
  const [subs, offs] = await Promise.all([
    liveSubscriptionsOf(deps.db, userId, now),
    optOutsOf(deps.db, userId),
  ]);
  const delivery = await deliveriesOf(deps, subs.map((s) => s.id), now);
  const out = new Map<string, AppEvents>();
  const of = (clientId: string) => {
    let e = out.get(clientId);
    if (!e) out.set(clientId, e = { subscriptions: [], switchedOff: [] });
    return e;
  };
  for (const s of subs) {
    of(s.clientId).subscriptions.push({
      id: s.id,
      name: s.name,
      server: s.server,
      filter: s.arguments,
      address: addressOf(s.url),
      refreshBefore: s.expiresAt,
      delivery: delivery.get(s.id) ?? { status: NEW_DELIVERY_STATUS, kept: 0, resending: 0, attempts: [] },
    });
  }
  for (const o of offs) of(o.clientId).switchedOff.push(o.name);
  return out;
}

/** The delivery state and recent attempts of subscriptions `ids`. */
async function deliveriesOf(
  deps: Pick<AppDeps, "db">,
  ids: string[],
  now: Date,
): Promise<Map<string, SubscriptionDelivery>> {
  const [overview, attempts] = await Promise.all([
    deliveryOverview(deps.db, ids),
    recentAttempts(deps.db, ids, { perSubscription: ATTEMPTS_SHOWN, deliveries: DELIVERIES_READ }),
  ]);
  const out = new Map<string, SubscriptionDelivery>();
  for (const [id, o] of overview) {
    out.set(id, { status: deliveryStatus(o), kept: o.kept, resending: o.resending, attempts: [] });
  }
  const offered = new Set<string>();
  for (const a of attempts) {
    const d = out.get(a.subscriptionId);
    if (!d) continue;
    const first = !offered.has(a.deliveryId);
    offered.add(a.deliveryId);
    d.attempts.push({
      eventId: a.eventId,
      name: a.name,
      attempt: a.attempt,
      at: a.startedAt,
      durationMs: a.durationMs,
      status: a.status,
      category: a.outcome === "dropped" ? null : categoryOf(a.status, a.errorClass),
      outcome: a.outcome,
      resendable: first && d.status.active && resendable(a.state, a.eventAt, now),
    });
  }
  return out;
}

/**
 * The checked target of a switch: `name` must be an event this build triggers on a server the app's consent
 * reaches, and the person must be connected to `clientId`; anything else is `not_found` (another person's app
 * looks exactly like one that does not exist).
 */
async function checkTarget(
  q: Kysely<Database>,
  userId: string,
  clientId: string,
  name: string,
): Promise<EventName> {
  if (!isEventName(name) || !clientId) throw new AppError("not_found");
  const connection = (await connectionsOf(q, userId)).find((c) => c.clientId === clientId);
  if (!connection || !serversOfScopes(connection.scopes).includes(EVENT_SERVER[name])) {
    throw new AppError("not_found");
  }
  return name;
}

/**
 * Switches event `name` off for the person `userId`'s app `clientId` within action `a` (under the same
 * person-and-app lock events/subscribe writes under): records the switch and ends the app's live subscriptions of
 * that event with reason `ended_by_user`, dropping their open deliveries so nothing more is sent; the owed
 * `terminated` messages wake the job engine at commit. Returns the ids of the subscriptions ended. Idempotent.
 */
export async function switchEventOff(
  a: Action,
  userId: string,
  clientId: string,
  name: string,
): Promise<string[]> {
  const event = await checkTarget(a.tx, userId, clientId, name);
  await lockApp(a.tx, userId, clientId);
  await insertOptOut(a.tx, userId, clientId, event, a.now);
  const ended = await endSubscriptions(a.tx, { userId, clientId, name: event }, {
    reason: "ended_by_user",
    now: a.now,
    terminate: true,
  });
  for (const id of ended) await dropOpenDeliveries(a.tx, id, a.now);
  a.afterCommit(() =>
    a.deps.log.log("info", "event switched off", { userId, clientId, name: event, ended: ended.length })
  );
  return ended;
}

/** Switches event `name` on again for the person `userId`'s app `clientId`: the app may subscribe to it again. */
export async function switchEventOn(
  a: Action,
  userId: string,
  clientId: string,
  name: string,
): Promise<void> {
  const event = await checkTarget(a.tx, userId, clientId, name);
  await deleteOptOut(a.tx, userId, clientId, event);
  a.afterCommit(() => a.deps.log.log("info", "event switched on", { userId, clientId, name: event }));
}
