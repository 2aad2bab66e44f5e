/**
 * SQL of event delivery (DESIGN §5): draining the outbox into deliveries, claiming an attempt, the access checks
 * before it, recording its outcome, the sweep, owed termination messages and the attempt log.
 */
import { eventIdOf } from "./outbox.ts";
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";
import { parseScopes } from "./oauth.ts";

/**
 * Drains up to `limit` undispatched outbox rows in ONE statement: locks them (`skip locked`, so concurrent drains
 * share the work), creates one delivery per matching live subscription (same server and event, the event's owner,
 * the filter contained in `data`, not the app that caused it) with its first attempt already claimed by this
 * sender until `machine.leaseUntil`, and marks the rows dispatched. Idempotent: a (event, subscription) pair gets
 * at most one delivery. Returns the rows drained and the claimed first attempts with everything they need (as
 * {@linkcode claimAttempts} does); a sender that dies before sending them leaves them to the sweep once the lease
 * ran out.
 */
export async function drainOutbox(
  db: Db,
  opts: { limit: number; now: Date; machine: { now: Date; leaseUntil: Date } },
): Promise<{ drained: number; claimed: ClaimedAttempt[] }> {
  const { now, machine } = opts;
  // Data-modifying CTEs run once each, whatever is read; the facts are read from the rows `c` returns.
  const r = await sql<Record<string, unknown>>`with picked as (
      select id from event_outbox where dispatched_at is null
      order by created_at, id limit ${opts.limit} for update skip locked),
    marked as (
      update event_outbox set dispatched_at = ${now} where id in (select id from picked) returning id),
    c as (
      insert into event_deliveries (outbox_id, subscription_id, state, lease_until, next_attempt_at, created_at)
      select o.id, s.id, 'sending', ${machine.leaseUntil}, ${machine.now}, ${machine.now}
      from event_outbox o
      join event_subscriptions s on s.server = o.server and s.name = o.name and s.ended_at is null
        and s.expires_at > ${now}
        and (s.office_id = o.owner_office_id or (o.owner_user_id is not null and s.user_id = o.owner_user_id))
        and o.data @> s.arguments
        and (o.origin_client_id is null or o.origin_client_id <> s.client_id)
      where o.id in (select id from picked)
      on conflict (outbox_id, subscription_id) do nothing
      returning id, outbox_id, subscription_id)
    select f.*, (select count(*) from marked)::int as drained from (select 1) one
      left join (${attemptFacts}) f on true`.execute(db.kysely);
  const drained = Number(r.rows[0]?.drained ?? 0);
  return { drained, claimed: r.rows.filter((x) => x.delivery_id != null).map((x) => claimedOf(x, 1)) };
}

/** Everything one attempt needs: the event, the subscription, and the access facts checked before sending. */
export interface ClaimedAttempt {
  deliveryId: string;
  attempt: number;
  eventId: string;
  eventName: string;
  eventData: Record<string, unknown>;
  eventAt: Date;
  subscriptionId: string;
  userId: string;
  clientId: string;
  server: "anbieter" | "suche";
  officeId: string | null;
  url: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretUntil: Date | null;
  expiresAt: Date;
  ended: boolean;
  /** Scopes of the person's current consent to the app; null without consent. */
  consentScopes: string[] | null;
  role: string | null;
  memberOffice: string | null;
  optedOut: boolean;
}

/**
 * Claims attempt `attempt` of delivery `id` until `leaseUntil` (machine time): only when that attempt is due next
 * and nobody holds it (or the holder's lease ran out, e.g. the process died). Undefined when not claimable.
 */
export async function claimAttempt(
  db: Db,
  id: string,
  attempt: number,
  machine: { now: Date; leaseUntil: Date },
): Promise<ClaimedAttempt | undefined> {
  return (await claimAttempts(db, [id], attempt, machine))[0];
}

/**
 * Claims attempt `attempt` of each delivery in `ids` in ONE statement (same rule as {@linkcode claimAttempt});
 * returns the claimed ones with their event, subscription and access facts, in no particular order.
 */
export async function claimAttempts(
  db: Db,
  ids: readonly string[],
  attempt: number,
  machine: { now: Date; leaseUntil: Date },
): Promise<ClaimedAttempt[]> {
  return await claimWhere(
    db,
    ids,
    attempt,
    machine.leaseUntil,
    sql`(state = 'pending' or (state = 'sending' and lease_until < ${machine.now}))`,
  );
}

/**
 * Re-claims an attempt this sender claimed earlier (`heldUntil` = the lease it got) but has not sent yet: extends
 * the lease and reads the access facts afresh, only while that lease still holds. Undefined when it ran out (the
 * sweep may have handed the attempt to another sender): this sender must then not send it.
 */
export async function reclaimAttempt(
  db: Db,
  c: { deliveryId: string; attempt: number },
  heldUntil: Date,
  machine: { now: Date; leaseUntil: Date },
): Promise<ClaimedAttempt | undefined> {
  if (heldUntil <= machine.now) return undefined;
  const cond = sql`state = 'sending' and lease_until = ${heldUntil}`;
  return (await claimWhere(db, [c.deliveryId], c.attempt, machine.leaseUntil, cond))[0];
}

async function claimWhere(
  db: Db,
  ids: readonly string[],
  attempt: number,
  leaseUntil: Date,
  claimable: ReturnType<typeof sql>,
): Promise<ClaimedAttempt[]> {
  if (ids.length === 0) return [];
  const r = await sql<Record<string, unknown>>`with c as (
      update event_deliveries set state = 'sending', lease_until = ${leaseUntil}
      where id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb))
        and next_attempt = ${attempt} and ${claimable}
      returning id, outbox_id, subscription_id)
    ${attemptFacts}`.execute(db.kysely);
  return r.rows.map((row) => claimedOf(row, attempt));
}

/**
 * The event, subscription and access facts of the claimed deliveries in a CTE `c` (id, outbox_id,
 * subscription_id): one row each, read in the statement that claimed them.
 */
const attemptFacts = sql`select c.id as delivery_id, o.id as outbox_id, o.name as event_name, o.data,
      o.created_at as event_at, s.id as subscription_id, s.user_id, s.client_id, s.server, s.office_id, s.url,
      s.secret_enc, s.previous_secret_enc, s.previous_secret_until, s.expires_at, s.ended_at,
      (select k."scopes" from "oauthConsent" k where k."userId" = s.user_id and k."clientId" = s.client_id
        order by k."createdAt" desc limit 1) as consent_scopes,
      u.role,
      (select m.office_id from office_memberships m where m.user_id = s.user_id and m.ended_at is null limit 1)
        as member_office,
      exists (select 1 from event_opt_outs x where x.user_id = s.user_id and x.client_id = s.client_id
        and x.name = s.name) as opted_out
    from c join event_outbox o on o.id = c.outbox_id
      join event_subscriptions s on s.id = c.subscription_id
      left join users u on u.id = s.user_id`;

function claimedOf(row: Record<string, unknown>, attempt: number): ClaimedAttempt {
  const date = (v: unknown) => (v ? new Date(v as string) : null);
  return {
    deliveryId: row.delivery_id as string,
    attempt,
    eventId: eventIdOf(row.outbox_id as string),
    eventName: row.event_name as string,
    eventData: (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as Record<string, unknown>,
    eventAt: new Date(row.event_at as string),
    subscriptionId: row.subscription_id as string,
    userId: row.user_id as string,
    clientId: row.client_id as string,
    server: row.server as "anbieter" | "suche",
    officeId: row.office_id as string | null,
    url: row.url as string,
    secretEnc: row.secret_enc as string,
    previousSecretEnc: row.previous_secret_enc as string | null,
    previousSecretUntil: date(row.previous_secret_until),
    expiresAt: new Date(row.expires_at as string),
    ended: row.ended_at !== null,
    consentScopes: row.consent_scopes == null ? null : parseScopes(row.consent_scopes),
    role: row.role as string | null,
    memberOffice: row.member_office as string | null,
    optedOut: row.opted_out === true,
  };
}

/** How an attempt ended. */
export type AttemptOutcome = "delivered" | "retry" | "failed" | "gone" | "dropped";

/** What to record after an attempt. */
export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  errorClass: string | null;
  outcome: AttemptOutcome;
  /** For `retry`: when the next attempt is due (machine time). */
  nextAt?: Date;
}

/** Logs the attempt and moves the delivery on (next attempt pending, or finished), in one transaction. */
export async function recordAttempt(db: Db, a: AttemptRecord): Promise<void> {
  await recordAttempts(db, [a]);
}

function stateAfter(outcome: AttemptOutcome): string {
  if (outcome === "retry") return "pending";
  return outcome === "delivered" || outcome === "dropped" ? outcome : "failed";
}

/**
 * Logs many attempts (of distinct deliveries) and moves each delivery on, in ONE statement: every log row
 * commits together with its delivery's next state, all or none.
 */
export async function recordAttempts(db: Db, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map((a) => {
    const retry = a.outcome === "retry";
    return {
      d: a.deliveryId,
      n: a.attempt,
      started: a.startedAt.toISOString(),
      ms: Math.round(a.durationMs),
      status: a.status,
      err: a.errorClass,
      outcome: a.outcome,
      state: stateAfter(a.outcome),
      next_at: retry ? (a.nextAt ?? a.startedAt).toISOString() : null,
      finished: retry ? null : new Date(a.startedAt.getTime() + a.durationMs).toISOString(),
    };
  });
  await sql`with x as (
      select * from jsonb_to_recordset(${
    JSON.stringify(rows)
  }::text::jsonb) as x(d uuid, n int, started timestamptz,
        ms int, status int, err text, outcome text, state text, next_at timestamptz, finished timestamptz)),
    logged as (
      insert into event_delivery_attempts
        (delivery_id, attempt, started_at, duration_ms, status, error_class, outcome)
      select d, n, started, ms, status, err, outcome from x
      returning delivery_id)
    update event_deliveries e set state = x.state, lease_until = null,
      next_attempt = case when x.outcome = 'retry' then x.n + 1 else e.next_attempt end,
      next_attempt_at = case when x.outcome = 'retry' then x.next_at else e.next_attempt_at end,
      finished_at = x.finished
    from x where e.id = x.d and e.id in (select delivery_id from logged)`.execute(db.kysely);
}

/**
 * The sweep's share of deliveries: pending ones overdue by more than `graceMs` and sending ones whose lease ran
 * out (their process died). Their due time is pushed by `graceMs` so the next sweep does not take them again
 * before the re-sent message ran. Returns (id, attempt) pairs to enqueue.
 */
export async function overdueDeliveries(
  db: Db,
  machineNow: Date,
  graceMs: number,
  limit: number,
): Promise<Array<{ id: string; attempt: number }>> {
  const cutoff = new Date(machineNow.getTime() - graceMs);
  const r = await sql<{ id: string; attempt: number }>`update event_deliveries d
    set next_attempt_at = ${new Date(machineNow.getTime() + graceMs)}
    where d.id in (select id from event_deliveries
      where (state = 'pending' and next_attempt_at < ${cutoff})
         or (state = 'sending' and lease_until < ${machineNow})
      order by next_attempt_at limit ${limit} for update skip locked)
    returning d.id, d.next_attempt as attempt`.execute(db.kysely);
  return r.rows.map((x) => ({ id: x.id, attempt: Number(x.attempt) }));
}

/** Whether undispatched outbox rows exist. */
export async function outboxPending(db: Db): Promise<boolean> {
  const r = await sql`select 1 from event_outbox where dispatched_at is null limit 1`.execute(db.kysely);
  return r.rows.length > 0;
}

/** A `terminated` control message owed to a subscription. */
export interface OwedTermination {
  subscriptionId: string;
  url: string;
  secretEnc: string;
  reason: string;
}

/** Takes up to `limit` owed termination messages (each is taken once: at most one is ever sent). */
export async function takeTerminations(db: Db, now: Date, limit: number): Promise<OwedTermination[]> {
  const r = await sql<OwedTermination>`update event_subscriptions s
    set terminate_pending = false, terminated_sent_at = ${now}
    where s.id in (select id from event_subscriptions where terminate_pending
      order by ended_at limit ${limit} for update skip locked)
    returning s.id as "subscriptionId", s.url, s.secret_enc as "secretEnc", s.end_reason as reason`
    .execute(db.kysely);
  return r.rows;
}

/** Drops the still-open deliveries of subscription `id` (it ended). */
export async function dropOpenDeliveries(q: Kysely<Database>, subscriptionId: string, now: Date) {
  await q.updateTable("event_deliveries").set({ state: "dropped", finished_at: now, lease_until: null })
    .where("subscription_id", "=", subscriptionId).where("state", "in", ["pending", "sending"]).execute();
}

/** One line of the attempt log. */
export interface AttemptLogLine {
  eventId: string;
  name: string;
  subscriptionId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  errorClass: string | null;
  outcome: string;
  state: string;
}

/** The attempts of a subscription (`sub_…`) or an event (`evt_…`), oldest first, at most `limit`. */
export async function attemptLog(
  db: Db,
  of: { subscriptionId: string } | { outboxId: string },
  limit: number,
): Promise<AttemptLogLine[]> {
  const filter = "subscriptionId" in of
    ? sql`d.subscription_id = ${of.subscriptionId}`
    : sql`d.outbox_id = ${of.outboxId}::uuid`;
  const r = await sql<Record<string, unknown>>`select o.id as outbox_id, o.name, d.subscription_id, a.attempt,
      a.started_at, a.duration_ms, a.status, a.error_class, a.outcome, d.state
    from event_delivery_attempts a join event_deliveries d on d.id = a.delivery_id
      join event_outbox o on o.id = d.outbox_id
    where ${filter} order by a.started_at, a.id limit ${limit}`.execute(db.kysely);
  return r.rows.map((x) => ({
    eventId: eventIdOf(x.outbox_id as string),
    name: x.name as string,
    subscriptionId: x.subscription_id as string,
    attempt: Number(x.attempt),
    startedAt: new Date(x.started_at as string),
    durationMs: Number(x.duration_ms),
    status: x.status === null ? null : Number(x.status),
    errorClass: x.error_class as string | null,
    outcome: x.outcome as string,
    state: x.state as string,
  }));
}
