/**
 * Delivery of events as Standard Webhooks (docs/contract.md §6.4, docs/architecture.md §6), in small named steps: drain the outbox into
 * deliveries, then per delivery and attempt: claim, check access (consent, right, membership, switched off) and
 * suspension (the event is kept), sign and POST (`webhook_message.ts`), classify, log, and schedule the next
 * attempt or suspend (`suspension.ts`). Also the due attempts (retries, and events sent again one at a time per
 * subscription), the hand-back at stop, and the owed `terminated` control messages.
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
import { claimReplay, dueReplays, keepDelivery } from "../db/subscription_state.ts";
import type { AppDeps } from "../deps.ts";
import { nowOf } from "../deps.ts";
import { errorCategory, errorClassOf, type PostOutcome, statusOf } from "./http_client.ts";
import { ATTEMPT_TIMEOUT_MS } from "./runtime.ts";
import { rightOfServer } from "./catalogue.ts";
import { REPLAY_GAP_MS, suspends } from "./suspension.ts";
import {
  controlMessageId,
  handled,
  post,
  signAttempt,
  type SignedAttempt,
  signedPost,
} from "./webhook_message.ts";

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
 * whichever instance comes first, and the events sent again (`suspension.ts`): per subscription the next one in
 * event order, one at a time, at most one per {@linkcode REPLAY_GAP_MS}, so this run goes on while they last.
 * Resolves when they were sent and recorded. Returns how many this process made.
 */
export async function sendDueAttempts(deps: AppDeps): Promise<number> {
  let made = 0;
  for (;;) {
    const now = new Date();
    const [due, replays] = await Promise.all([
      dueAttempts(deps.db, now, DUE_BATCH),
      dueReplays(deps.db, now, DUE_BATCH),
    ]);
    const outcomes = await Promise.all([...due, ...replays].map((d) => attempt(deps, d.id, d.attempt)));
    const n = outcomes.filter((o) => o !== undefined).length;
    made += n;
    if (n === 0) return made;
    if (replays.length > 0) await new Promise((r) => setTimeout(r, REPLAY_GAP_MS));
    else if (due.length < DUE_BATCH) return made;
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

/**
 * Why an attempt must not be made: the subscription ended or expired, access is gone (→ revoke), or its delivery
 * is suspended (→ the event is kept).
 */
type Hold = { drop: "subscription_ended" | "subscription_expired" } | { revoke: EndReason } | { keep: true };

/**
 * Checks consent, right, membership and the person's switch before an attempt (docs/contract.md §5), then whether
 * the subscription's delivery is suspended.
 */
export function holdOf(c: ClaimedAttempt, now: Date): Hold | undefined {
  if (c.ended) return { drop: "subscription_ended" };
  if (c.expiresAt <= now) return { drop: "subscription_expired" };
  if (c.consentScopes === null) return { revoke: "access_closed" };
  const right = rightOfServer(c.server);
  const roleRight = c.role === "provider" || c.role === "seeker" ? rightOfRole(c.role) : null;
  if (roleRight !== right || !c.consentScopes.includes(right)) return { revoke: "insufficient_scope" };
  if (c.server === "anbieter" && c.memberOffice !== c.officeId) return { revoke: "access_closed" };
  if (c.optedOut) return { revoke: "ended_by_user" };
  if (c.suspended) return { keep: true };
  return undefined;
}

/** How an attempt ended, or `held`: not made, its event kept for the suspended subscription. */
export type AttemptResult = AttemptOutcome | "held";

/**
 * Makes attempt `n` of delivery `deliveryId` if it is still due and unclaimed (attempt 1: an event sent again,
 * claimed only when its subscription's pace allows).
 */
export async function attempt(
  deps: AppDeps,
  deliveryId: string,
  n: number,
): Promise<AttemptResult | undefined> {
  const { limited, held } = deps.events.delivery;
  if (held.stopped) return undefined;
  const sent = await limited(async () => {
    const lease = leaseFrom(new Date());
    const claimed = n === 1
      ? await claimReplay(deps.db, deliveryId, lease, REPLAY_GAP_MS)
      : await claimAttempt(deps.db, deliveryId, n, lease);
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
): Promise<Array<AttemptResult | undefined>> {
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

/**
 * Classifies and records a sent attempt (or the hold), then ends the subscription, schedules a retry, or (the
 * fourth attempt failed) suspends the subscription's delivery.
 */
async function finish(deps: AppDeps, sent: Sent): Promise<AttemptResult | undefined> {
  const { claimed, startedAt } = sent;
  if (deps.events.delivery.held.stopped) return undefined; // handed back: the next holder records it
  if ("hold" in sent) return await holdAttempt(deps, claimed, sent.hold, startedAt);
  const { deliveryId, attempt: n } = claimed;
  const result = sent.result;
  const attempts = deps.config.retryDelaysMs.length;
  const outcome = classify(result, n, attempts);
  const suspend = suspends(outcome, classify(result, 0, Infinity) === "retry", n, attempts);
  const delay = outcome === "retry" ? retryDelay(deps.config.retryDelaysMs, n) : 0;
  const nextAt = new Date(Date.now() + delay);
  await deps.events.delivery.recorder.add({
    deliveryId,
    attempt: n,
    startedAt,
    durationMs: result.durationMs,
    status: statusOf(result),
    errorClass: errorClassOf(result),
    outcome,
    nextAt,
    create: createOf(claimed),
    subscriptionId: claimed.subscriptionId,
    category: errorCategory(result),
    suspend,
  });
  if (suspend) deps.log.log("info", "delivery suspended", { subscription: claimed.subscriptionId });
  if (outcome === "gone") await endForGone(deps, claimed);
  if (outcome === "retry") deps.events.wake.dueAt(nextAt);
  return outcome;
}

/** The delivery row a first attempt writes when it is recorded (none for later attempts). */
function createOf(c: ClaimedAttempt): AttemptRecord["create"] {
  return c.isNew ? { outboxId: c.outboxId, subscriptionId: c.subscriptionId } : undefined;
}

/**
 * Keeps the event of a suspended subscription (no attempt is logged; due again at once if it was reactivated
 * meanwhile), or records a dropped attempt, revoking the subscription (and owing a `terminated` message) when
 * access is gone.
 */
async function holdAttempt(
  deps: AppDeps,
  c: ClaimedAttempt,
  hold: Hold,
  startedAt: Date,
): Promise<AttemptResult> {
  if ("keep" in hold) {
    const now = new Date();
    if (await keepDelivery(deps.db, c, now) === "pending") deps.events.wake.dueAt(now);
    return "held";
  }
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
    subscriptionId: c.subscriptionId,
    category: null,
  });
  return "dropped";
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
