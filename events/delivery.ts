/**
 * Delivery of events as Standard Webhooks (spec §6.3, DESIGN §5), in small named steps: drain the outbox into
 * deliveries, then per delivery and attempt: claim, check access (consent, right, membership, switched off),
 * sign, POST through the SSRF-safe client, classify, log, and schedule the next attempt. Also the sweep that
 * re-drives anything a crash or a lost message left behind, and the owed `terminated` control messages.
 */
import { rightOfRole } from "../auth/principal.ts";
import {
  type AttemptOutcome,
  claimAttempt,
  type ClaimedAttempt,
  drainOutbox,
  dropOpenDeliveries,
  outboxPending,
  overdueDeliveries,
  recordAttempt,
  takeTerminations,
} from "../db/deliveries.ts";
import { type EndReason, endSubscriptions } from "../db/subscriptions.ts";
import type { EventQueueMessage } from "../db/kv_keys.ts";
import { processDocument, sweepDocuments } from "../documents/processing.ts";
import type { AppDeps } from "../routes/env.ts";
import { nowOf } from "../routes/env.ts";
import type { PostOutcome } from "./http_client.ts";
import { ATTEMPT_TIMEOUT_MS, eventRuntime, listen } from "./runtime.ts";
import { signatureHeader } from "./signing.ts";
import { rightOfServer } from "./catalogue.ts";

/** Largest event body sent (spec §8: 256 KiB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** How long the old secret keeps signing after a rotation (spec §4.4 rule 3). */
export const ROTATION_OVERLAP_MS = 15 * 60_000;

const DRAIN_BATCH = 200;
/** First attempts per queue message. */
const FIRST_BATCH = 100;
/** Attempts in flight at once in this process. */
const MAX_IN_FLIGHT = 64;

let inFlight = 0;
const waiting: Array<() => void> = [];

/** Runs `job` when fewer than {@linkcode MAX_IN_FLIGHT} attempts are running. */
async function limited<T>(job: () => Promise<T>): Promise<T> {
  if (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => waiting.push(r));
  inFlight++;
  try {
    return await job();
  } finally {
    inFlight--;
    waiting.shift()?.();
  }
}
/** A claimed attempt is held this long; a process that dies mid-attempt frees it afterwards. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 5_000;

/** Starts this process's delivery: the KV queue listener and the periodic sweep. Returns a stopper. */
export function startEventDelivery(deps: AppDeps): { stop(): Promise<void> } {
  return listen(deps, {
    drain: () => drain(deps),
    attempt: (d, n) => limited(() => attempt(deps, d, n)),
    first: (ds) => Promise.all(ds.map((d) => limited(() => attempt(deps, d, 1)))),
    terminate: () => sendTerminations(deps),
    document: (id) => processDocument(deps, id),
    sweep: () => Promise.all([sweep(deps), sweepDocuments(deps)]),
  });
}

/** Drains the outbox until empty and enqueues attempt 1 of every new delivery. */
export async function drain(deps: AppDeps): Promise<number> {
  const rt = eventRuntime(deps);
  let total = 0;
  for (;;) {
    const r = await drainOutbox(deps.db, { limit: DRAIN_BATCH, now: nowOf(deps), machineNow: new Date() });
    total += r.deliveries.length;
    const ids = r.deliveries.map((d) => d.id);
    const batches: EventQueueMessage[] = [];
    for (let i = 0; i < ids.length; i += FIRST_BATCH) {
      batches.push({ t: "first", ds: ids.slice(i, i + FIRST_BATCH) });
    }
    await rt.enqueueAll(batches);
    if (r.drained < DRAIN_BATCH) return total;
  }
}

/** Re-drives missed work: undispatched outbox rows, overdue or orphaned attempts, owed terminations. */
export async function sweep(deps: AppDeps): Promise<void> {
  const rt = eventRuntime(deps);
  if (await outboxPending(deps.db)) await drain(deps);
  const grace = Math.max(5_000, Math.min(60_000, deps.config.eventsSweepMs));
  for (const d of await overdueDeliveries(deps.db, new Date(), grace, 500)) {
    await rt.enqueue({ t: "attempt", d: d.id, n: d.attempt });
  }
  await sendTerminations(deps);
}

/** Why an attempt must not be made: the subscription ended or expired, or access is gone (→ revoke). */
type Hold = { drop: "subscription_ended" | "subscription_expired" } | { revoke: EndReason };

/** Checks consent, right, membership and the person's switch before an attempt (spec §5). */
export function holdOf(c: ClaimedAttempt, now: Date): Hold | undefined {
  if (c.ended) return { drop: "subscription_ended" };
  if (c.expiresAt <= now) return { drop: "subscription_expired" };
  if (c.consentScopes === null) return { revoke: "access_closed" };
  const right = rightOfServer(c.server);
  const roleRight = c.role === "provider" || c.role === "seeker" ? rightOfRole(c.role) : null;
  if (roleRight !== right || !c.consentScopes.includes(right)) return { revoke: "insufficient_scope" };
  if (c.server === "anbieter" && c.memberOffice !== c.officeId) return { revoke: "access_closed" };
  if (c.optedOut) return { revoke: "ended_by_user" };
  return undefined;
}

/** Makes attempt `n` of delivery `deliveryId` if it is still due and unclaimed. */
export async function attempt(
  deps: AppDeps,
  deliveryId: string,
  n: number,
): Promise<AttemptOutcome | undefined> {
  const startedAt = new Date();
  const claimed = await claimAttempt(deps.db, deliveryId, n, {
    now: startedAt,
    leaseUntil: new Date(startedAt.getTime() + LEASE_MS),
  });
  if (!claimed) return undefined;
  const hold = holdOf(claimed, nowOf(deps));
  if (hold) return await holdAttempt(deps, claimed, hold, startedAt);
  const result = await post(deps, claimed);
  const outcome = classify(result, n, deps.config.retryDelaysMs.length);
  const delay = outcome === "retry" ? retryDelay(deps.config.retryDelaysMs, n) : 0;
  await recordAttempt(deps.db, {
    deliveryId,
    attempt: n,
    startedAt,
    durationMs: result.durationMs,
    status: result.kind === "response" ? result.status : null,
    errorClass: result.kind === "response"
      ? null
      : result.kind === "refused"
      ? `address_${result.reason}`
      : result.errorClass,
    outcome,
    nextAt: new Date(Date.now() + delay),
  });
  if (outcome === "gone") await endForGone(deps, claimed);
  if (outcome === "retry") await eventRuntime(deps).enqueue({ t: "attempt", d: deliveryId, n: n + 1 }, delay);
  return outcome;
}

/** Records a dropped attempt, revoking the subscription (and owing a `terminated` message) when access is gone. */
async function holdAttempt(
  deps: AppDeps,
  c: ClaimedAttempt,
  hold: Hold,
  startedAt: Date,
): Promise<AttemptOutcome> {
  if ("revoke" in hold) {
    const now = nowOf(deps);
    await deps.db.kysely.transaction().execute(async (tx) => {
      await endSubscriptions(tx, { id: c.subscriptionId }, { reason: hold.revoke, now, terminate: true });
      await dropOpenDeliveries(tx, c.subscriptionId, now);
    });
    deps.log.log("info", "subscription revoked", { subscription: c.subscriptionId, reason: hold.revoke });
    eventRuntime(deps).kickTerminations();
  }
  await recordAttempt(deps.db, {
    deliveryId: c.deliveryId,
    attempt: c.attempt,
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    status: null,
    errorClass: "revoke" in hold ? `revoked_${hold.revoke}` : hold.drop,
    outcome: "dropped",
  });
  return "dropped";
}

/** The event body of spec §6.3. */
export function eventBody(
  c: Pick<ClaimedAttempt, "eventId" | "eventName" | "eventAt" | "eventData">,
): string {
  return JSON.stringify({
    eventId: c.eventId,
    name: c.eventName,
    timestamp: c.eventAt.toISOString(),
    data: c.eventData,
    cursor: null,
  });
}

/** The secrets that sign now: the current one and, within 15 minutes of a rotation, the previous one. */
export async function signingSecrets(
  deps: AppDeps,
  s: { secretEnc: string; previousSecretEnc: string | null; previousSecretUntil: Date | null },
): Promise<string[]> {
  const box = eventRuntime(deps).box;
  if (!box) throw new Error("events are not configured");
  const secrets = [await box.open(s.secretEnc)];
  if (s.previousSecretEnc && s.previousSecretUntil && s.previousSecretUntil > nowOf(deps)) {
    secrets.push(await box.open(s.previousSecretEnc));
  }
  return secrets;
}

/** Signs and POSTs `body` as message `id` to `url` for subscription `subscriptionId`. */
export async function signedPost(
  deps: AppDeps,
  to: { url: string; subscriptionId: string; secrets: string[] },
  id: string,
  body: string,
): Promise<PostOutcome> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureHeader(to.secrets, id, timestamp, body),
    "x-mcp-subscription-id": to.subscriptionId,
  };
  return await eventRuntime(deps).client.post(new URL(to.url), headers, body);
}

async function post(deps: AppDeps, c: ClaimedAttempt): Promise<PostOutcome> {
  const body = eventBody(c);
  if (new TextEncoder().encode(body).length > MAX_BODY_BYTES) {
    return { kind: "failure", errorClass: "network", durationMs: 0 };
  }
  const secrets = await signingSecrets(deps, c);
  return await signedPost(deps, { url: c.url, subscriptionId: c.subscriptionId, secrets }, c.eventId, body);
}

/** Spec §6.3 rules 4 and 5: 2xx delivered; 410 gone and 413 failed without retry; the rest retried. */
export function classify(result: PostOutcome, n: number, attempts: number): AttemptOutcome {
  if (result.kind === "response") {
    if (result.status >= 200 && result.status < 300) return "delivered";
    if (result.status === 410) return "gone";
    if (result.status === 413) return "failed";
  }
  return n < attempts ? "retry" : "failed";
}

/** The delay before attempt `n + 1` with ±10 % jitter. */
export function retryDelay(delays: readonly number[], n: number): number {
  const base = delays[n] ?? delays[delays.length - 1] ?? 0;
  return Math.round(base * (0.9 + Math.random() * 0.2));
}

/** A 410 ends the subscription (the receiver says it is gone; no `terminated` message follows). */
async function endForGone(deps: AppDeps, c: ClaimedAttempt): Promise<void> {
  const now = nowOf(deps);
  await deps.db.kysely.transaction().execute(async (tx) => {
    await endSubscriptions(tx, { id: c.subscriptionId }, { reason: "gone", now, terminate: false });
    await dropOpenDeliveries(tx, c.subscriptionId, now);
  });
}

/** The `data.reason` a `terminated` message carries for an end reason (spec §7.2 -32012 reasons). */
export function terminationReason(end: string): string {
  return end === "ended_by_user" || end === "insufficient_scope" ? end : "access_closed";
}

/** Sends every owed `terminated` control message once (best effort: one attempt each). */
export async function sendTerminations(deps: AppDeps): Promise<number> {
  const owed = await takeTerminations(deps.db, nowOf(deps), 100);
  await Promise.all(owed.map(async (t) => {
    const reason = terminationReason(t.reason);
    const body = JSON.stringify({
      type: "terminated",
      error: { code: -32012, message: "Subscription ended by the service", data: { reason } },
    });
    const box = eventRuntime(deps).box;
    if (!box) return;
    const result = await signedPost(
      deps,
      { url: t.url, subscriptionId: t.subscriptionId, secrets: [await box.open(t.secretEnc)] },
      controlMessageId("terminated"),
      body,
    );
    deps.log.log("info", "terminated message sent", {
      subscription: t.subscriptionId,
      reason,
      result: result.kind === "response" ? result.status : result.kind,
    });
  }));
  return owed.length;
}

/** A control message id: `msg_<type>_<random>`. */
export function controlMessageId(type: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `msg_${type}_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
