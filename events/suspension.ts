/**
 * Suspended delivery and what brings the missed events back (docs/contract.md §6.4 "Suspension and replay"): when
 * the fourth attempt of a delivery fails, the subscription's delivery is suspended and its events are kept, not
 * sent. A renewal reactivates it (as the MCP events draft says), and so can the person on the connected-apps page;
 * the events kept from the last 24 hours are then sent again, once each, in event order, one at a time and at most
 * {@linkcode REPLAYS_PER_SECOND} per second per subscription. The person can also send a failed event again, and
 * the operator can replay what a subscription missed (`deno task events:replay`). Also the `deliveryStatus` of
 * events/subscribe.
 */
import type { Kysely } from "kysely";
import type { AttemptOutcome } from "../db/deliveries.ts";
import type { Database } from "../db/schema.ts";
import {
  type DeliveryStateRow,
  dropKept,
  type MissedEvent,
  missedEvents,
  sendAgain,
  unsuspend,
} from "../db/subscription_state.ts";
import { lockApp, subscriptionById, type SubscriptionRow } from "../db/subscriptions.ts";
import { outboxIdOf } from "../db/outbox.ts";
import { AppError } from "../errors.ts";
import { actingPerson, type Action } from "../deps.ts";
import type { DeliveryErrorCategory } from "./http_client.ts";

/** Events older than this are never sent again (docs/contract.md §6.4). */
export const REPLAY_WINDOW_MS = 24 * 60 * 60_000;
/** The most events of one subscription sent again per second. */
export const REPLAYS_PER_SECOND = 10;
/** The shortest time between the starts of two events of one subscription sent again. */
export const REPLAY_GAP_MS = 1000 / REPLAYS_PER_SECOND;

/** `deliveryStatus` of the events/subscribe answer (docs/contract.md §6.1). */
export interface DeliveryStatus {
  /** False: delivery was suspended (and the renewal that answers this has just reactivated it). */
  active: boolean;
  /** End of the last successful attempt (ISO 8601), null when none succeeded yet. */
  lastDeliveryAt: string | null;
  /** The category of the last failed attempt when no attempt succeeded after it, else null. */
  lastError: DeliveryErrorCategory | null;
  /** Since when deliveries fail without a success in between; only present while they do (or while suspended). */
  failedSince?: string;
}

/**
 * Whether a delivery's attempt suspends its subscription: its outcome is `failed` on the last attempt of the
 * schedule (`n` of `attempts`) with an answer or error that would have been retried (`retryable`): not a 413 or
 * an answer over the read limit, which fail only their event.
 */
export function suspends(outcome: AttemptOutcome, retryable: boolean, n: number, attempts: number): boolean {
  return outcome === "failed" && retryable && n >= attempts;
}

/** The draft's `deliveryStatus` of a subscription in state `s`. */
export function deliveryStatus(s: DeliveryStateRow): DeliveryStatus {
  const failing = s.lastFailureAt !== null &&
    (s.lastDeliveryAt === null || s.lastFailureAt > s.lastDeliveryAt);
  const since = failing ? (s.failingSince ?? s.lastFailureAt) : s.suspendedAt ? s.failingSince : null;
  const status: DeliveryStatus = {
    active: s.suspendedAt === null,
    lastDeliveryAt: s.lastDeliveryAt?.toISOString() ?? null,
    lastError: failing ? s.lastError as DeliveryErrorCategory : null,
  };
  if (since) status.failedSince = since.toISOString();
  return status;
}

/** Whether the person may send an event again: its delivery failed, and it happened within the last 24 hours. */
export function resendable(state: string, eventAt: Date, now: Date): boolean {
  return state === "failed" && eventAt.getTime() >= now.getTime() - REPLAY_WINDOW_MS;
}

/** The `deliveryStatus` of a new subscription. */
export const NEW_DELIVERY_STATUS: DeliveryStatus = { active: true, lastDeliveryAt: null, lastError: null };

/** What a reactivation did. */
export interface Reactivation {
  /** It was suspended (nothing happens otherwise). */
  reactivated: boolean;
  /** Kept events of the last 24 hours now sent again. */
  replayed: number;
  /** Kept events older than 24 hours, dropped. */
  dropped: number;
}

/**
 * Reactivates subscription `id` in `tx` (which holds the person-and-app lock or the subscription's row): ends the
 * suspension, then sends again every event kept from the last 24 hours (before `now`, the domain's clock) and
 * drops the older ones.
 */
export async function reactivateIn(tx: Kysely<Database>, id: string, now: Date): Promise<Reactivation> {
  if (!await unsuspend(tx, id)) return { reactivated: false, replayed: 0, dropped: 0 };
  const since = new Date(now.getTime() - REPLAY_WINDOW_MS);
  const machineNow = new Date();
  const dropped = await dropKept(tx, id, since, machineNow);
  const replayed = await sendAgain(tx, id, { states: ["held"], since }, machineNow);
  return { reactivated: true, replayed, dropped };
}

/** The acting person's live subscription `id`; `not_found` for anything else (another person's looks the same). */
async function ownLive(a: Action, id: string): Promise<SubscriptionRow> {
  const userId = actingPerson(a);
  const s = /^sub_[a-z2-7]{26}$/.test(id) ? await subscriptionById(a.tx, id) : undefined;
  if (!s || s.userId !== userId || s.endedAt !== null || s.expiresAt <= a.now) {
    throw new AppError("not_found");
  }
  return s;
}

/** The person reactivates their subscription `id` on the connected-apps page (`not_found` if not theirs). */
export async function reactivateSubscription(a: Action, id: string): Promise<Reactivation> {
  const s = await ownLive(a, id);
  await lockApp(a.tx, s.userId, s.clientId);
  const done = await reactivateIn(a.tx, s.id, a.now);
  a.afterCommit(() =>
    a.deps.log.log("info", "delivery reactivated by the person", { subscription: s.id, ...done })
  );
  return done;
}

/**
 * The person sends the failed event `eventId` of their subscription `id` again (the usual four attempts).
 * `not_found` when the subscription is not theirs or live, or the event's delivery did not fail within the last
 * 24 hours; `conflict` while delivery is suspended (reactivating sends every kept event).
 */
export async function resendEvent(a: Action, id: string, eventId: string): Promise<void> {
  const s = await ownLive(a, id);
  const outboxId = outboxIdOf(eventId);
  if (!outboxId) throw new AppError("not_found");
  const since = new Date(a.now.getTime() - REPLAY_WINDOW_MS);
  await lockApp(a.tx, s.userId, s.clientId);
  if ((await subscriptionById(a.tx, s.id))?.suspendedAt) throw new AppError("conflict");
  const sent = await sendAgain(a.tx, s.id, { states: ["failed"], since, outboxId }, new Date());
  if (sent === 0) throw new AppError("not_found");
  a.afterCommit(() =>
    a.deps.log.log("info", "event sent again by the person", { subscription: s.id, event: eventId })
  );
}

/** What `events:replay` found and did. */
export interface Replay {
  /** The events not delivered, in event order: failed since the given time, and every kept one to be sent. */
  events: MissedEvent[];
  /** The subscription was suspended (and, unless a dry run, is now reactivated). */
  suspended: boolean;
  /** How many are sent again (0 in a dry run). */
  sent: number;
}

/**
 * The operator sends again what subscription `id` missed since `since` (not earlier than 24 hours ago): every
 * event whose delivery failed or was kept. A suspended subscription is reactivated as by a renewal, so every event
 * kept from the last 24 hours is sent too. `dryRun` only lists them. `not_found` when the subscription is not live.
 */
export async function replayMissed(a: Action, id: string, since: Date, dryRun: boolean): Promise<Replay> {
  const { tx, now } = a;
  const windowStart = new Date(now.getTime() - REPLAY_WINDOW_MS);
  const from = since > windowStart ? since : windowStart;
  const found = await subscriptionById(tx, id);
  if (!found || found.endedAt !== null || found.expiresAt <= now) throw new AppError("not_found");
  await lockApp(tx, found.userId, found.clientId);
  const suspended = (await subscriptionById(tx, id))?.suspendedAt != null;
  const events = (await missedEvents(tx, id, suspended ? windowStart : from))
    .filter((e) => e.state === "held" || e.at >= from);
  if (dryRun) return { events, suspended, sent: 0 };
  const replayed = suspended ? (await reactivateIn(tx, id, now)).replayed : 0;
  const states: Array<"held" | "failed"> = suspended ? ["failed"] : ["held", "failed"];
  return { events, suspended, sent: replayed + await sendAgain(tx, id, { states, since: from }, new Date()) };
}
