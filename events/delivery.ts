/**
 * Delivery of events as Standard Webhooks (docs/contract.md §6.4, docs/architecture.md §6), in small named steps: drain the outbox into
 * deliveries, then per delivery and attempt: claim, check access (consent, right, membership, switched off),
 * sign, POST through the SSRF-safe client, classify, log, and schedule the next attempt. Also the sweep that
 * re-drives anything a crash or a lost message left behind, and the owed `terminated` control messages.
 */
import { rightOfRole } from "../auth/principal.ts";
import type { Db } from "../db/connection.ts";
import {
  type AttemptOutcome,
  type AttemptRecord,
  claimAttempt,
  type ClaimedAttempt,
  drainOutbox,
  dropOpenDeliveries,
  dueAttempts,
  firstAttemptAgain,
  markDispatched,
  recordAttempt,
  releaseAttempts,
  releaseHolds,
  renewHolds,
  takeTerminations,
} from "../db/deliveries.ts";
import { type EndReason, endSubscriptions } from "../db/subscriptions.ts";
import type { AppDeps } from "../deps.ts";
import { nowOf } from "../deps.ts";
import type { EventBody } from "./delivery_state.ts";
import type { PostOutcome } from "./http_client.ts";
import { ATTEMPT_TIMEOUT_MS } from "./runtime.ts";
import { rightOfServer } from "./catalogue.ts";

/** Largest event body sent (docs/contract.md §9: 256 KiB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** How long the old secret keeps signing after a rotation (docs/contract.md §6.1). */
export const ROTATION_OVERLAP_MS = 15 * 60_000;

/** Outbox rows per drain statement. */
const DRAIN_BATCH = 100;
/** A claimed attempt is held this long; a process that dies mid-attempt frees it afterwards. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 5_000;
/** A claim older than this when its slot comes is renewed (and its access facts re-read) before sending. */
const FRESH_CLAIM_MS = 1_000;

/**
 * Drains the outbox until empty, making attempt 1 of every new delivery, and resolves when everything it drained
 * was sent and recorded; returns the number of first attempts. See {@linkcode startDrain}.
 */
export async function drain(deps: AppDeps): Promise<number> {
  return await (await startDrain(deps)).sent;
}

/**
 * Drains the outbox: each drain statement holds up to {@linkcode DRAIN_BATCH} events and returns their first
 * attempts, and this sender sends them (no queue message in between); each delivery row is written once, with its
 * first attempt's outcome, and the events are then marked dispatched. A few drained batches are being sent at once
 * (the runtime's `batchLimited`). Resolves once nothing more is left to drain (so a new event is drained by the
 * next call while slow receivers of this one are still being waited for); `sent` resolves when everything drained
 * was sent and recorded, with the number of first attempts.
 */
export async function startDrain(deps: AppDeps): Promise<{ sent: Promise<number> }> {
  const { batchLimited, held } = deps.events.delivery;
  const batches: Array<Promise<number>> = [];
  for (let more = true; more;) {
    const drained = Promise.withResolvers<boolean>();
    batches.push(batchLimited(async () => {
      const lease = leaseFrom(new Date());
      const r = await drainOutbox(deps.db, { limit: DRAIN_BATCH, now: nowOf(deps), machine: lease })
        .catch((err) => {
          drained.resolve(false);
          throw err;
        });
      drained.resolve(r.outboxIds.length === DRAIN_BATCH);
      const hold = new BatchHold(r.outboxIds, lease.leaseUntil);
      held.holds.add(hold);
      try {
        const outcomes = await sendClaimed(deps, r.claimed, hold);
        const unsent = new Set(r.claimed.filter((_, i) => outcomes[i] === undefined).map((c) => c.outboxId));
        const done = [...hold.held].filter((id) => !unsent.has(id));
        if (!held.stopped) await markDispatched(deps.db, done, hold.until, nowOf(deps));
      } finally {
        held.holds.delete(hold);
      }
      return r.claimed.length;
    }));
    more = await drained.promise;
  }
  const sent = Promise.all(batches).then((n) => n.reduce((a, b) => a + b, 0));
  sent.catch(() => {}); // the caller may only wait for the drain; a failure is still logged by whoever awaits
  return { sent };
}

/**
 * The outbox rows a drained batch holds and until when. Attempts that waited for a slot renew the hold (one
 * renewal at a time, at most one per {@linkcode FRESH_CLAIM_MS}); rows whose hold changed hands leave `held`.
 */
export class BatchHold {
  held: Set<string>;
  until: Date;
  #renewedAt = Date.now();
  #renewing: Promise<void> | undefined;

  constructor(outboxIds: string[], until: Date) {
    this.held = new Set(outboxIds);
    this.until = until;
  }

  /** Whether attempts of `outboxId` may still be sent: held, with time for a whole attempt left. */
  covers(outboxId: string): boolean {
    return this.held.has(outboxId) && this.until.getTime() - Date.now() > ATTEMPT_TIMEOUT_MS + 1_000;
  }

  /** Renews the hold unless that happened less than {@linkcode FRESH_CLAIM_MS} ago. */
  async renew(db: Db): Promise<void> {
    if (Date.now() - this.#renewedAt <= FRESH_CLAIM_MS && this.#renewing === undefined) return;
    this.#renewing ??= (async () => {
      const next = leaseFrom(new Date());
      const kept = await renewHolds(db, [...this.held], this.until, next);
      this.held = new Set(kept);
      this.until = next.leaseUntil;
      this.#renewedAt = Date.now();
    })().finally(() => this.#renewing = undefined);
    await this.#renewing;
  }
}

/** Attempts that are due read per run of {@linkcode sendDueAttempts}. */
const DUE_BATCH = 200;

/**
 * Makes every delivery attempt that is due (a retry whose time came, or one whose holder died), each claimed by
 * whichever instance comes first; resolves when they were sent and recorded. Returns how many this process made.
 */
export async function sendDueAttempts(deps: AppDeps): Promise<number> {
  let made = 0;
  for (;;) {
    const due = await dueAttempts(deps.db, new Date(), DUE_BATCH);
    const outcomes = await Promise.all(due.map((d) => attempt(deps, d.id, d.attempt)));
    const n = outcomes.filter((o) => o !== undefined).length;
    made += n;
    if (due.length < DUE_BATCH || n === 0) return made;
  }
}

/**
 * Gives back what this runtime still holds when its process stops: drained events whose first attempts were not
 * all recorded (another drainer sends the missing ones) and claimed attempts (due again now). Nothing is recorded
 * by this runtime afterwards, so an attempt is recorded once even when another instance makes it again.
 */
export async function handBackDeliveries(deps: AppDeps): Promise<void> {
  const { held } = deps.events.delivery;
  held.stopped = true;
  for (const hold of held.holds) await releaseHolds(deps.db, [...hold.held], hold.until);
  await releaseAttempts(deps.db, [...held.attempts], new Date());
}

/** Why an attempt must not be made: the subscription ended or expired, or access is gone (→ revoke). */
type Hold = { drop: "subscription_ended" | "subscription_expired" } | { revoke: EndReason };

/** Checks consent, right, membership and the person's switch before an attempt (docs/contract.md §5). */
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
  const { limited, held } = deps.events.delivery;
  if (held.stopped) return undefined;
  const sent = await limited(async () => {
    const claimed = await claimAttempt(deps.db, deliveryId, n, leaseFrom(new Date()));
    if (!claimed) return undefined;
    held.attempts.add(deliveryId);
    return await send(deps, claimed);
  });
  try {
    return sent ? await finish(deps, sent) : undefined;
  } finally {
    held.attempts.delete(deliveryId);
  }
}

/**
 * Sends first attempts drained together as slots free up (the runtime's `limited`: a bounded number of POSTs at
 * once; recording happens outside the slot), so their signatures are computed together, and resolves when all
 * were sent and recorded; `undefined` marks an attempt not sent. An attempt that waited longer than
 * {@linkcode FRESH_CLAIM_MS} for its slot renews the batch's hold and reads its access facts afresh first; when the
 * hold changed hands it is left to the sweep.
 */
async function sendClaimed(
  deps: AppDeps,
  claimed: ClaimedAttempt[],
  hold: BatchHold,
): Promise<Array<AttemptOutcome | undefined>> {
  const claimedAt = Date.now();
  const { limited } = deps.events.delivery;
  // Every attempt of the batch is signed at once: Web Crypto calls made together cost a third of the same calls
  // made one after another as slots free up (bench:events 0.42-0.45 x its floor before, 0.54-0.56 after).
  const signing = new Map(claimed.map((c) => [c, handled(signAttempt(deps, c))]));
  return await Promise.all(claimed.map(async (c) => {
    const sent = await limited(async () => {
      const waited = Date.now() - claimedAt > FRESH_CLAIM_MS;
      if (!waited && hold.covers(c.outboxId)) return await send(deps, c, signing.get(c));
      await hold.renew(deps.db);
      if (!hold.covers(c.outboxId)) return undefined;
      const again = waited ? await firstAttemptAgain(deps.db, c) : c;
      return again ? await send(deps, again) : undefined;
    });
    return sent ? await finish(deps, sent) : undefined;
  }));
}

/** The lease of an attempt claimed at `now` (machine time). */
function leaseFrom(now: Date): { now: Date; leaseUntil: Date } {
  return { now, leaseUntil: new Date(now.getTime() + LEASE_MS) };
}

/** A claimed attempt after its access check: held back, or sent with this result. */
type Sent = { claimed: ClaimedAttempt; startedAt: Date } & ({ hold: Hold } | { result: PostOutcome });

/**
 * Checks access right before the attempt, then POSTs it (unless held back), signed by `signing` (started earlier
 * for a drained batch, see {@linkcode sendClaimed}) or now.
 */
async function send(deps: AppDeps, claimed: ClaimedAttempt, signing?: Promise<SignedAttempt>): Promise<Sent> {
  const startedAt = new Date();
  const hold = holdOf(claimed, nowOf(deps));
  if (hold) return { claimed, startedAt, hold };
  return { claimed, startedAt, result: await post(deps, claimed, signing ?? signAttempt(deps, claimed)) };
}

/** Classifies and records a sent attempt (or the hold), then ends the subscription or schedules a retry. */
async function finish(deps: AppDeps, sent: Sent): Promise<AttemptOutcome | undefined> {
  const { claimed, startedAt } = sent;
  if (deps.events.delivery.held.stopped) return undefined; // handed back: the next holder records it
  if ("hold" in sent) return await holdAttempt(deps, claimed, sent.hold, startedAt);
  const { deliveryId, attempt: n } = claimed;
  const result = sent.result;
  const outcome = classify(result, n, deps.config.retryDelaysMs.length);
  const delay = outcome === "retry" ? retryDelay(deps.config.retryDelaysMs, n) : 0;
  const nextAt = new Date(Date.now() + delay);
  await deps.events.delivery.recorder.add({
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
    nextAt,
    create: createOf(claimed),
  });
  if (outcome === "gone") await endForGone(deps, claimed);
  if (outcome === "retry") deps.events.wake.dueAt(nextAt);
  return outcome;
}

/** The delivery row a first attempt writes when it is recorded (none for later attempts). */
function createOf(c: ClaimedAttempt): AttemptRecord["create"] {
  return c.isNew ? { outboxId: c.outboxId, subscriptionId: c.subscriptionId } : undefined;
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
  }
  await recordAttempt(deps.db, {
    deliveryId: c.deliveryId,
    attempt: c.attempt,
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    status: null,
    errorClass: "revoke" in hold ? `revoked_${hold.revoke}` : hold.drop,
    outcome: "dropped",
    create: createOf(c),
  });
  return "dropped";
}

/** The event body of docs/contract.md §6.4. */
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
  const box = deps.events.box;
  if (!box) throw new Error("events are not configured");
  const secrets = [await box.open(s.secretEnc)];
  if (s.previousSecretEnc && s.previousSecretUntil && s.previousSecretUntil > nowOf(deps)) {
    secrets.push(await box.open(s.previousSecretEnc));
  }
  return secrets;
}

/** The headers of message `id` with `body` for subscription `subscriptionId`, signed now with `secrets`. */
async function signedHeaders(
  deps: AppDeps,
  to: { subscriptionId: string; secrets: string[] },
  id: string,
  body: string,
): Promise<Record<string, string>> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await deps.events.signer.header(to.secrets, id, timestamp, body),
    "x-mcp-subscription-id": to.subscriptionId,
  };
}

/** Signs and POSTs `body` as message `id` to `url` for subscription `subscriptionId`. */
export async function signedPost(
  deps: AppDeps,
  to: { url: string; subscriptionId: string; secrets: string[] },
  id: string,
  body: string,
): Promise<PostOutcome> {
  const rt = deps.events;
  return await rt.client.post(rt.delivery.url(to.url), await signedHeaders(deps, to, id, body), body);
}

/** An attempt's signed request, or `tooLarge` when its event's body is over {@linkcode MAX_BODY_BYTES}. */
type SignedAttempt = { body: string; headers: Record<string, string> } | { tooLarge: true };

/** Signs attempt `c` now (its body is built once per event). */
async function signAttempt(deps: AppDeps, c: ClaimedAttempt): Promise<SignedAttempt> {
  const { body, tooLarge } = bodyOf(deps, c);
  if (tooLarge) return { tooLarge };
  const secrets = await signingSecrets(deps, c);
  return {
    body,
    headers: await signedHeaders(deps, { subscriptionId: c.subscriptionId, secrets }, c.eventId, body),
  };
}

/** `p`, marked as handled: a signature made for an attempt that is then held back is never awaited. */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** The body of `c`'s event and whether it is over {@linkcode MAX_BODY_BYTES} (built once per event, see `body`). */
function bodyOf(deps: AppDeps, c: ClaimedAttempt): EventBody {
  return deps.events.delivery.body(c.eventData, c.eventId, () => {
    const body = eventBody(c);
    return { body, tooLarge: new TextEncoder().encode(body).length > MAX_BODY_BYTES };
  });
}

/** POSTs attempt `c` as `signing` signed it (an event body over the limit fails without a request). */
async function post(deps: AppDeps, c: ClaimedAttempt, signing: Promise<SignedAttempt>): Promise<PostOutcome> {
  const signed = await signing;
  if ("tooLarge" in signed) return { kind: "failure", errorClass: "network", durationMs: 0 };
  const rt = deps.events;
  return await rt.client.post(rt.delivery.url(c.url), signed.headers, signed.body);
}

/**
 * Spec §6.3 rules 4 and 5: 2xx delivered; 410 gone and 413 failed without retry; the rest retried. An answer over
 * the read limit counts by its status but is never retried (docs/contract.md §6.4).
 */
export function classify(result: PostOutcome, n: number, attempts: number): AttemptOutcome {
  const tooLarge = result.kind === "failure" && result.errorClass === "response_too_large";
  const status = result.kind === "response" ? result.status : tooLarge ? result.status : null;
  if (status !== null && status >= 200 && status < 300) return "delivered";
  if (status === 410) return "gone";
  if (status === 413 || tooLarge) return "failed";
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

/** The `data.reason` a `terminated` message carries for an end reason (docs/contract.md §8.4 -32012 reasons). */
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
    const box = deps.events.box;
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
