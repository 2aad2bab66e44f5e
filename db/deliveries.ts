/**
 * SQL of event delivery (docs/architecture.md §6): draining the outbox into deliveries, claiming an attempt, the access checks
 * before it, recording its outcome, the sweep and owed termination messages. The attempt log is read in
 * `db/delivery_log.ts`, a subscription's delivery state and events sent again are in `db/subscription_state.ts`.
 */
import { eventIdOf } from "./outbox.ts";
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";
import { parseScopes } from "./scopes.ts";

/**
 * Drains up to `limit` outbox rows in ONE statement: takes undispatched rows nobody holds (`skip locked`, and a
 * drainer's lease that ran out counts as nobody: it died), holds them until `machine.leaseUntil`, and returns one
 * first attempt per matching live subscription (same server and event, the event's owner, the filter contained
 * in `data`, not the app that caused it) that has no delivery yet, with everything it needs (as
 * {@linkcode claimAttempts} does). No delivery row is written here: {@linkcode recordAttempts} writes each one
 * once, with its first attempt's outcome, and {@linkcode markDispatched} then releases the outbox rows. A drainer
 * that dies before that leaves the rows to the sweep, which sends only the deliveries still missing.
 */
export async function drainOutbox(
  db: Db,
  opts: { limit: number; now: Date; machine: { now: Date; leaseUntil: Date } },
): Promise<{ outboxIds: string[]; claimed: ClaimedAttempt[] }> {
  const { now, machine } = opts;
  // Data-modifying CTEs run once each, whatever is read; the facts are read from the pairs `c` lists.
  // The picked rows carry what matching needs, and `= any (array(...))` keeps every lookup on an index (with
  // `in (select …)` the generic plan scanned the whole outbox: it cannot know a batch is small).
  const r = await sql<Record<string, unknown>>`with picked as (
      select id, server, name, data, owner_office_id, owner_user_id, origin_client_id from event_outbox
      where dispatched_at is null and (lease_until is null or lease_until < ${machine.now})
      order by created_at, id limit ${opts.limit} for update skip locked),
    held as (
      update event_outbox set lease_until = ${machine.leaseUntil} where id = any (array(select id from picked))
      returning id),
    c as (
      select gen_random_uuid() as id, o.id as outbox_id, s.id as subscription_id, 1 as attempt
      from picked o
      join event_subscriptions s on s.server = o.server and s.name = o.name and s.ended_at is null
        and s.expires_at > ${now}
        and (s.office_id = o.owner_office_id or (o.owner_user_id is not null and s.user_id = o.owner_user_id))
        and o.data @> s.arguments
        and (o.origin_client_id is null or o.origin_client_id <> s.client_id)
      where not exists (select 1 from event_deliveries d where d.outbox_id = o.id and d.subscription_id = s.id))
    select (select json_agg(id) from held) as held_ids, ${attemptSets}`.execute(db.kysely);
  const row = r.rows[0] ?? {};
  return { outboxIds: jsonOf<string[]>(row.held_ids) ?? [], claimed: attemptsOf(row, true) };
}

/**
 * Renews this drainer's hold (until `heldUntil`) on outbox rows `outboxIds` to `machine.leaseUntil`; returns the
 * rows renewed. A row missing from the answer changed hands (the hold ran out and the sweep gave it to another
 * drainer) or was released: its attempts must not be sent by this drainer.
 */
export async function renewHolds(
  db: Db,
  outboxIds: readonly string[],
  heldUntil: Date,
  machine: { now: Date; leaseUntil: Date },
): Promise<string[]> {
  if (outboxIds.length === 0 || heldUntil <= machine.now) return [];
  const r = await sql<{ id: string }>`update event_outbox set lease_until = ${machine.leaseUntil}
    where id = any (${uuidArray(outboxIds)}) and lease_until = ${heldUntil}
    returning id`.execute(db.kysely);
  return r.rows.map((x) => x.id);
}

/**
 * The facts of first attempt `c` (drained, no delivery row yet) read afresh; undefined when its delivery was
 * written meanwhile.
 */
export async function firstAttemptAgain(
  db: Db,
  c: Pick<ClaimedAttempt, "deliveryId" | "outboxId" | "subscriptionId">,
): Promise<ClaimedAttempt | undefined> {
  const r = await sql<Record<string, unknown>>`with c as (
      select ${c.deliveryId}::uuid as id, ${c.outboxId}::uuid as outbox_id, ${c.subscriptionId}::text as subscription_id,
        1 as attempt
      where not exists (select 1 from event_deliveries d where d.outbox_id = ${c.outboxId}::uuid
        and d.subscription_id = ${c.subscriptionId}))
    select ${attemptSets}`.execute(db.kysely);
  return attemptsOf(r.rows[0] ?? {}, true)[0];
}

/**
 * Releases outbox rows this drainer held until `heldUntil` once every first attempt it drained from them was
 * recorded: marks them dispatched. Rows whose hold changed hands are left alone.
 */
export async function markDispatched(
  db: Db,
  outboxIds: readonly string[],
  heldUntil: Date,
  now: Date,
): Promise<void> {
  if (outboxIds.length === 0) return;
  await sql`update event_outbox set dispatched_at = ${now}, lease_until = null
    where id = any (${uuidArray(outboxIds)}) and lease_until = ${heldUntil}`.execute(db.kysely);
}

/**
 * `ids` as a uuid[] parameter for `id = any (…)`: keeps the lookup on the primary key (a set from
 * `jsonb_array_elements_text` in `in (select …)` let the generic plan scan a whole table or a partial index).
 */
function uuidArray(ids: readonly string[]) {
  return sql`array(select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb))`;
}

/** Everything one attempt needs: the event, the subscription, and the access facts checked before sending. */
export interface ClaimedAttempt {
  /** The delivery's id (for a first attempt from {@linkcode drainOutbox}: the id it will be written with). */
  deliveryId: string;
  /** True for a first attempt whose delivery row is written only when the attempt is recorded. */
  isNew: boolean;
  attempt: number;
  /** The outbox row (the event). */
  outboxId: string;
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
  /** Delivery of the subscription is suspended (its events are kept, not sent: docs/contract.md §6.4). */
  suspended: boolean;
}

/**
 * The retries due at `now` (machine time): pending ones whose time came, and claimed ones whose claim ran out (their
 * holder died); at most `limit`, earliest first. Read without a lock: each is then claimed by
 * {@linkcode claimAttempt}, which only one instance wins. Events sent again (attempt 1 of a row) are not here: one
 * of them at a time per subscription (`dueReplays` in db/subscription_state.ts).
 */
export async function dueAttempts(
  db: Db,
  now: Date,
  limit: number,
): Promise<Array<{ id: string; attempt: number }>> {
  const r = await sql<
    { id: string; attempt: number }
  >`select id, next_attempt as attempt from event_deliveries
    where state in ('pending', 'sending') and next_attempt_at <= ${now} and next_attempt > 1
    order by next_attempt_at limit ${limit}`.execute(db.kysely);
  return r.rows.map((x) => ({ id: x.id, attempt: Number(x.attempt) }));
}

/**
 * Claims attempt `attempt` of delivery `id` until `machine.leaseUntil`: only when that attempt is due (pending and
 * its time came, or claimed by a holder whose lease ran out). The claim makes the delivery due again at the lease's
 * end, so a holder that dies leaves it to whoever comes next. Undefined when not claimable.
 */
export async function claimAttempt(
  db: Db,
  id: string,
  attempt: number,
  machine: { now: Date; leaseUntil: Date },
): Promise<ClaimedAttempt | undefined> {
  const r = await sql<Record<string, unknown>>`with c as (
      update event_deliveries set state = 'sending', lease_until = ${machine.leaseUntil},
        next_attempt_at = ${machine.leaseUntil}
      where id = ${id}::uuid and next_attempt = ${attempt} and state in ('pending', 'sending')
        and next_attempt_at <= ${machine.now}
      returning id, outbox_id, subscription_id, next_attempt as attempt)
    select ${attemptSets}`.execute(db.kysely);
  return attemptsOf(r.rows[0] ?? {})[0];
}

/**
 * Gives back claimed attempts `ids` (a stopping process that will not finish them): each is due again at `now`,
 * so another instance takes it at once. Attempts no longer claimed are left alone.
 */
export async function releaseAttempts(db: Db, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await sql`update event_deliveries set state = 'pending', lease_until = null, next_attempt_at = ${now}
    where id = any (${uuidArray(ids)}) and state = 'sending'`.execute(db.kysely);
}

/**
 * Gives back a drainer's hold on outbox rows `outboxIds` (until `heldUntil`) before it ran out: another drainer
 * sends whatever deliveries of them are still missing.
 */
export async function releaseHolds(db: Db, outboxIds: readonly string[], heldUntil: Date): Promise<void> {
  if (outboxIds.length === 0) return;
  await sql`update event_outbox set lease_until = null
    where id = any (${uuidArray(outboxIds)}) and lease_until = ${heldUntil} and dispatched_at is null`
    .execute(db.kysely);
}

/**
 * The claimed attempts of a CTE `c` (id, outbox_id, subscription_id, attempt) with their events, subscriptions and access
 * facts, as three JSON columns read in the statement that claimed them: `pairs` (one per attempt), `events` (one
 * per event) and `subs` (one per subscription, with its facts read once however many attempts it has). Fewer and
 * smaller rows than one wide row per attempt: a drained batch of 100 events × 4 subscriptions reads 4 sets of facts.
 */
export const attemptSets =
  sql`(select json_agg(json_build_array(c.id, c.outbox_id, c.subscription_id, c.attempt)) from c) as pairs,
    (select json_agg(json_build_object('id', o.id, 'name', o.name, 'data', o.data, 'at', o.created_at))
      from event_outbox o where o.id = any (array(select distinct outbox_id from c))) as events,
    (select json_agg(json_build_object('id', s.id, 'userId', s.user_id, 'clientId', s.client_id,
        'server', s.server, 'officeId', s.office_id, 'url', s.url, 'secretEnc', s.secret_enc,
        'previousSecretEnc', s.previous_secret_enc, 'previousSecretUntil', s.previous_secret_until,
        'expiresAt', s.expires_at, 'ended', s.ended_at is not null,
        'consentScopes', (select k."scopes" from "oauthConsent" k
          where k."userId" = s.user_id and k."clientId" = s.client_id order by k."createdAt" desc limit 1),
        'role', u.role,
        'memberOffice', (select m.office_id from office_memberships m
          where m.user_id = s.user_id and m.ended_at is null limit 1),
        'optedOut', exists (select 1 from event_opt_outs x
          where x.user_id = s.user_id and x.client_id = s.client_id and x.name = s.name),
        'suspended', s.suspended_at is not null))
      from event_subscriptions s left join users u on u.id = s.user_id
      where s.id = any (array(select distinct subscription_id from c))) as subs`;

/** A JSON column's value (the drivers hand over json either parsed or as text); undefined for SQL null. */
function jsonOf<T>(v: unknown): T | undefined {
  if (v === null || v === undefined) return undefined;
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

type EventJson = { id: string; name: string; data: Record<string, unknown> | string; at: string };
type SubscriptionJson =
  & Omit<
    ClaimedAttempt,
    | "deliveryId"
    | "isNew"
    | "attempt"
    | "outboxId"
    | "eventId"
    | "eventName"
    | "eventData"
    | "eventAt"
    | "subscriptionId"
    | "previousSecretUntil"
    | "expiresAt"
    | "consentScopes"
  >
  & { id: string; previousSecretUntil: string | null; expiresAt: string; consentScopes: unknown };

/** The attempts of an {@linkcode attemptSets} row: one per pair, sharing its event's and subscription's objects. */
export function attemptsOf(row: Record<string, unknown>, isNew = false): ClaimedAttempt[] {
  const events = new Map((jsonOf<EventJson[]>(row.events) ?? []).map((e) => [e.id, eventOf(e)]));
  const subs = new Map((jsonOf<SubscriptionJson[]>(row.subs) ?? []).map((s) => [s.id, subscriptionOf(s)]));
  const out: ClaimedAttempt[] = [];
  for (
    const [deliveryId, outboxId, subscriptionId, attempt]
      of jsonOf<[string, string, string, number][]>(row.pairs) ?? []
  ) {
    const event = events.get(outboxId);
    const sub = subs.get(subscriptionId);
    if (event && sub) out.push({ deliveryId, isNew, attempt: Number(attempt), ...event, ...sub });
  }
  return out;
}

function eventOf(e: EventJson) {
  return {
    outboxId: e.id,
    eventId: eventIdOf(e.id),
    eventName: e.name,
    eventData: (typeof e.data === "string" ? JSON.parse(e.data) : e.data) as Record<string, unknown>,
    eventAt: new Date(e.at),
  };
}

function subscriptionOf(s: SubscriptionJson) {
  return {
    subscriptionId: s.id,
    userId: s.userId,
    clientId: s.clientId,
    server: s.server,
    officeId: s.officeId,
    url: s.url,
    secretEnc: s.secretEnc,
    previousSecretEnc: s.previousSecretEnc,
    previousSecretUntil: s.previousSecretUntil ? new Date(s.previousSecretUntil) : null,
    expiresAt: new Date(s.expiresAt),
    ended: s.ended,
    consentScopes: s.consentScopes == null ? null : parseScopes(s.consentScopes),
    role: s.role,
    memberOffice: s.memberOffice,
    optedOut: s.optedOut,
    suspended: s.suspended,
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
  /** For a first attempt from {@linkcode drainOutbox}: the delivery to write (it has no row yet). */
  create?: { outboxId: string; subscriptionId: string };
  /** The delivery's subscription (its delivery state is noted from the record: db/subscription_state.ts). */
  subscriptionId: string;
  /** The MCP events draft's category of a failed attempt; null when delivered. */
  category: string | null;
  /** The fourth attempt failed: the subscription's delivery is suspended and the event kept. */
  suspend?: boolean;
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
 * Logs many attempts (of distinct deliveries) and moves each delivery on, in ONE statement: a first attempt from
 * {@linkcode drainOutbox} writes its delivery row in the state its outcome gives, a later attempt updates it; every
 * log row commits together with its delivery, all or none. Should another drainer have written the delivery
 * meanwhile (this one's hold ran out), the attempt is logged against that row and its state is left as it is. A
 * delivery whose event or subscription was deleted meanwhile is not written (there are no foreign keys on these
 * rows, migration 0016), nor is its attempt.
 */
export async function recordAttempts(db: Db, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map((a) => {
    const retry = a.outcome === "retry";
    return {
      d: a.deliveryId,
      o: a.create?.outboxId ?? null,
      s: a.create?.subscriptionId ?? null,
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
  }::text::jsonb) as x(d uuid, o uuid, s text, n int,
        started timestamptz, ms int, status int, err text, outcome text, state text, next_at timestamptz,
        finished timestamptz)),
    made as (
      insert into event_deliveries
        (id, outbox_id, subscription_id, state, next_attempt, next_attempt_at, created_at, finished_at)
      select d, o, s, state, case when outcome = 'retry' then n + 1 else n end, coalesce(next_at, started),
        started, finished
      from x where o is not null
        and exists (select 1 from event_outbox b where b.id = x.o)
        and exists (select 1 from event_subscriptions u where u.id = x.s)
      on conflict (outbox_id, subscription_id) do nothing
      returning id),
    moved as (
      update event_deliveries e set state = x.state, lease_until = null,
        next_attempt = case when x.outcome = 'retry' then x.n + 1 else e.next_attempt end,
        next_attempt_at = case when x.outcome = 'retry' then x.next_at else e.next_attempt_at end,
        finished_at = x.finished
      from x where x.o is null and e.id = x.d
      returning e.id),
    logged as (
      select coalesce(m.id, v.id, (select e.id from event_deliveries e
          where x.o is not null and e.outbox_id = x.o and e.subscription_id = x.s)) as delivery_id, x.*
      from x left join made m on m.id = x.d left join moved v on v.id = x.d)
    insert into event_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status, error_class, outcome)
    select delivery_id, n, started, ms, status, err, outcome from logged where delivery_id is not null`
    .execute(db.kysely);
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

/** Drops the still-open and the kept deliveries of subscription `id` (it ended). */
export async function dropOpenDeliveries(q: Kysely<Database>, subscriptionId: string, now: Date) {
  await q.updateTable("event_deliveries").set({ state: "dropped", finished_at: now, lease_until: null })
    .where("subscription_id", "=", subscriptionId).where("state", "in", ["pending", "sending", "held"])
    .execute();
}
