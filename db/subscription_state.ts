/**
 * SQL of a subscription's delivery state (docs/contract.md §6.4, docs/architecture.md §6.6): what its attempts told
 * (last delivery, last failure and its category, failing since, suspension), events kept while it is suspended,
 * and events sent again (after a reactivation, a resend, the operator's replay), one at a time per subscription.
 * Lock order everywhere: subscription rows (several in id order) before their deliveries.
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import { attemptSets, attemptsOf, type ClaimedAttempt } from "./deliveries.ts";
import { notifyJobs } from "./jobs.ts";
import { eventIdOf } from "./outbox.ts";
import type { Database } from "./schema.ts";

/** The delivery state columns of a subscription (machine times of attempts' ends). */
export interface DeliveryStateRow {
  suspendedAt: Date | null;
  lastDeliveryAt: Date | null;
  lastFailureAt: Date | null;
  lastError: string | null;
  failingSince: Date | null;
}

/** The columns of {@linkcode DeliveryStateRow}, for `returning` and `select`. */
export const DELIVERY_STATE_COLUMNS = [
  "suspended_at",
  "last_delivery_at",
  "last_failure_at",
  "last_error",
  "failing_since",
] as const;

const dateOf = (v: unknown): Date | null => v === null || v === undefined ? null : new Date(v as string);

/** A {@linkcode DeliveryStateRow} from a row with {@linkcode DELIVERY_STATE_COLUMNS}. */
// deno-lint-ignore no-explicit-any
export function deliveryStateOf(r: any): DeliveryStateRow {
  return {
    suspendedAt: dateOf(r.suspended_at),
    lastDeliveryAt: dateOf(r.last_delivery_at),
    lastFailureAt: dateOf(r.last_failure_at),
    lastError: r.last_error ?? null,
    failingSince: dateOf(r.failing_since),
  };
}

/** What one recorded attempt tells about its subscription. */
export interface AttemptNote {
  subscriptionId: string;
  deliveryId: string;
  /** When the attempt ended (machine time). */
  at: Date;
  /** Delivered; otherwise it failed with `category`. */
  ok: boolean;
  category: string | null;
  /** The fourth attempt failed: the subscription's delivery is suspended and this event kept. */
  suspend: boolean;
}

/**
 * Notes recorded attempts on their live subscriptions in ONE statement (after the attempts committed): the last
 * delivery (written only when it is over a second newer than the one noted, or a failure was noted after that),
 * the last failure and its category, since when deliveries fail without a success in between, and the
 * suspension, whose failed delivery becomes `held`. Only subscriptions that change are locked, in id order. Order
 * of recording does not matter: every time is compared, not assumed.
 */
export async function noteDeliveryState(db: Db, notes: readonly AttemptNote[]): Promise<void> {
  if (notes.length === 0) return;
  const rows = notes.map((n) => ({
    s: n.subscriptionId,
    d: n.deliveryId,
    at: n.at.toISOString(),
    ok: n.ok,
    cat: n.category,
    suspend: n.suspend,
  }));
  const lastOk = sql`coalesce(greatest(e.last_delivery_at, h.ok_at), '-infinity')`;
  await sql`with x as (select * from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb)
        as x(s text, d uuid, at timestamptz, ok boolean, cat text, suspend boolean)),
      h as (select s, max(at) filter (where ok) as ok_at, max(at) filter (where not ok) as fail_at,
          (array_agg(cat order by at desc) filter (where not ok))[1] as cat,
          max(at) filter (where suspend) as suspend_at
        from x group by s),
      locked as materialized (select e.id from event_subscriptions e join h on h.s = e.id
        where e.ended_at is null and (h.fail_at is not null or e.last_delivery_at is null
          or h.ok_at > e.last_delivery_at + interval '1 second' or e.last_failure_at >= e.last_delivery_at)
        order by e.id for update of e),
      noted as (update event_subscriptions e set
          last_delivery_at = greatest(e.last_delivery_at, h.ok_at),
          last_failure_at = greatest(e.last_failure_at, h.fail_at),
          last_error = case when h.fail_at >= coalesce(e.last_failure_at, '-infinity') then h.cat
            else e.last_error end,
          failing_since = case when h.fail_at is null then e.failing_since else (
            select least(case when e.failing_since > ${lastOk} then e.failing_since end, min(f.at))
            from x f where f.s = e.id and not f.ok and f.at > ${lastOk}) end,
          suspended_at = coalesce(e.suspended_at, h.suspend_at)
        from h where e.id = h.s and e.id in (select id from locked)
        returning e.id, e.suspended_at)
    update event_deliveries d set state = 'held', finished_at = null
    from x join noted n on n.id = x.s
    where x.suspend and d.id = x.d and d.state = 'failed' and n.suspended_at is not null`.execute(db.kysely);
}

/**
 * Keeps the claimed attempt `c` of a suspended subscription: its delivery (written now for a first attempt) becomes
 * `held`, without an attempt. Checked again under a share lock of the subscription: when it was reactivated
 * meanwhile, the delivery is due at `now` instead. Returns the state written (undefined: nothing to write, e.g.
 * the subscription ended).
 */
export async function keepDelivery(
  db: Db,
  c: Pick<ClaimedAttempt, "deliveryId" | "isNew" | "outboxId" | "subscriptionId">,
  now: Date,
): Promise<"held" | "pending" | undefined> {
  const state = sql`case when s.suspended then 'held' else 'pending' end`;
  const r = await sql<{ state: "held" | "pending" | null }>`with s as materialized (
        select suspended_at is not null as suspended from event_subscriptions
        where id = ${c.subscriptionId} and ended_at is null for share),
      made as (insert into event_deliveries
          (id, outbox_id, subscription_id, state, next_attempt, next_attempt_at, created_at)
        select ${c.deliveryId}::uuid, ${c.outboxId}::uuid, ${c.subscriptionId}, ${state}, 1, ${now}, ${now}
        from s where ${c.isNew} and exists (select 1 from event_outbox b where b.id = ${c.outboxId}::uuid)
        on conflict (outbox_id, subscription_id) do nothing returning state),
      moved as (update event_deliveries e set state = ${state}, lease_until = null, next_attempt_at = ${now}
        from s where not ${c.isNew} and e.id = ${c.deliveryId}::uuid and e.state in ('pending', 'sending')
        returning e.state)
    select coalesce((select state from made), (select state from moved)) as state`.execute(db.kysely);
  return r.rows[0]?.state ?? undefined;
}

/** The delivery state of subscription `id` (undefined when there is no such subscription). */
export async function deliveryState(q: Kysely<Database>, id: string): Promise<DeliveryStateRow | undefined> {
  const r = await q.selectFrom("event_subscriptions").select(DELIVERY_STATE_COLUMNS).where("id", "=", id)
    .executeTakeFirst();
  return r ? deliveryStateOf(r) : undefined;
}

/** The delivery state of each subscription, and how many of its events are kept and waiting to be sent again. */
export interface DeliveryOverview extends DeliveryStateRow {
  kept: number;
  resending: number;
}

/** {@linkcode DeliveryOverview} of each subscription in `ids` (through the two small partial indexes). */
export async function deliveryOverview(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, DeliveryOverview>> {
  if (ids.length === 0) return new Map();
  const r = await sql<Record<string, unknown>>`select s.id, s.suspended_at, s.last_delivery_at,
      s.last_failure_at, s.last_error, s.failing_since,
      (select count(*)::int from event_deliveries d where d.subscription_id = s.id and d.state = 'held') as kept,
      (select count(*)::int from event_deliveries d where d.subscription_id = s.id and d.next_attempt = 1
        and d.state in ('pending', 'sending')) as resending
    from event_subscriptions s
    where s.id in (select value from jsonb_array_elements_text(${JSON.stringify(ids)}::text::jsonb))`
    .execute(db.kysely);
  return new Map(r.rows.map((x) => [
    x.id as string,
    { ...deliveryStateOf(x), kept: Number(x.kept), resending: Number(x.resending) },
  ]));
}

/**
 * Ends the suspension of subscription `id` (in the caller's transaction, as its own statement: the lock it takes
 * waits for anyone keeping an event, so the next statement sees every kept one). True when it was suspended.
 */
export async function unsuspend(tx: Kysely<Database>, id: string): Promise<boolean> {
  const r = await tx.updateTable("event_subscriptions").set({ suspended_at: null, next_replay_at: null })
    .where("id", "=", id).where("suspended_at", "is not", null).where("ended_at", "is", null)
    .returning("id").executeTakeFirst();
  return r !== undefined;
}

/** Which deliveries of a subscription are sent again. */
export interface SendAgain {
  /** Their states now: `held` (kept while suspended), `failed`. */
  states: ReadonlyArray<"held" | "failed">;
  /** Only events that happened at or after this time (the domain's clock). */
  since: Date;
  /** Only this event. */
  outboxId?: string;
}

/**
 * Makes the deliveries of subscription `id` selected by `which` due again at `now` (machine time) from attempt 1,
 * and wakes the attempt job at commit. They are sent one at a time per subscription, in event order
 * ({@linkcode dueReplays}). Returns how many.
 */
export async function sendAgain(
  q: Kysely<Database>,
  id: string,
  which: SendAgain,
  now: Date,
): Promise<number> {
  const one = which.outboxId === undefined ? sql`` : sql`and d.outbox_id = ${which.outboxId}::uuid`;
  const r = await sql<
    { n: number }
  >`with r as (update event_deliveries d set state = 'pending', next_attempt = 1,
        next_attempt_at = ${now}, lease_until = null, finished_at = null
      from event_outbox o
      where d.subscription_id = ${id} and d.state in (${sql.join([...which.states])}) and o.id = d.outbox_id
        and o.created_at >= ${which.since} ${one}
      returning d.id)
    select count(*)::int as n from r`.execute(q);
  const n = Number(r.rows[0]?.n ?? 0);
  if (n > 0) await notifyJobs(q, "attempt");
  return n;
}

/** Drops the kept events of subscription `id` that happened before `before` (the domain's clock); how many. */
export async function dropKept(q: Kysely<Database>, id: string, before: Date, now: Date): Promise<number> {
  const r = await sql<
    { n: number }
  >`with r as (update event_deliveries d set state = 'dropped', finished_at = ${now}
      from event_outbox o
      where d.subscription_id = ${id} and d.state = 'held' and o.id = d.outbox_id and o.created_at < ${before}
      returning d.id)
    select count(*)::int as n from r`.execute(q);
  return Number(r.rows[0]?.n ?? 0);
}

/** An event of a subscription that was not delivered, as `events:replay` lists it. */
export interface MissedEvent {
  eventId: string;
  name: string;
  /** When it happened (the domain's clock). */
  at: Date;
  /** `held` or `failed`. */
  state: string;
}

/** The events of subscription `id` since `since` whose delivery is `held` or `failed`, in event order. */
export async function missedEvents(q: Kysely<Database>, id: string, since: Date): Promise<MissedEvent[]> {
  const r = await sql<Record<string, unknown>>`select o.id, o.name, o.created_at, d.state
    from event_deliveries d join event_outbox o on o.id = d.outbox_id
    where d.subscription_id = ${id} and d.state in ('held', 'failed') and o.created_at >= ${since}
    order by o.created_at, d.created_at, o.id`.execute(q);
  return r.rows.map((x) => ({
    eventId: eventIdOf(x.id as string),
    name: x.name as string,
    at: new Date(x.created_at as string),
    state: x.state as string,
  }));
}

/**
 * The events sent again that are due at `now` (machine time): per subscription only the earliest in event order
 * that is still waiting (none while that one is being sent), and only when the subscription's pace allows the
 * next one ({@linkcode claimReplay}); at most `limit`. Event order: the event's time, then when its delivery was
 * written (the order the events were drained in), for events of the same millisecond.
 */
export async function dueReplays(
  db: Db,
  now: Date,
  limit: number,
): Promise<Array<{ id: string; attempt: 1 }>> {
  const r = await sql<{ id: string }>`select h.id from (
      select distinct on (d.subscription_id) d.id, d.subscription_id, d.next_attempt_at
      from event_deliveries d join event_outbox o on o.id = d.outbox_id
      where d.next_attempt = 1 and d.state in ('pending', 'sending')
      order by d.subscription_id, o.created_at, d.created_at, o.id) h
    join event_subscriptions s on s.id = h.subscription_id
    where h.next_attempt_at <= ${now} and (s.next_replay_at is null or s.next_replay_at <= ${now})
    limit ${limit}`.execute(db.kysely);
  return r.rows.map((x) => ({ id: x.id, attempt: 1 }));
}

/**
 * Claims attempt 1 of delivery `id` (an event sent again) like `claimAttempt`, and only when its subscription's
 * pace allows: the next one of that subscription may then start `gapMs` later at the earliest.
 */
export async function claimReplay(
  db: Db,
  id: string,
  machine: { now: Date; leaseUntil: Date },
  gapMs: number,
): Promise<ClaimedAttempt | undefined> {
  const next = new Date(machine.now.getTime() + gapMs);
  const r = await sql<Record<string, unknown>>`with g as (
      update event_subscriptions s set next_replay_at = ${next}
      from event_deliveries d where d.id = ${id}::uuid and s.id = d.subscription_id
        and (s.next_replay_at is null or s.next_replay_at <= ${machine.now})
      returning s.id),
    c as (
      update event_deliveries set state = 'sending', lease_until = ${machine.leaseUntil},
        next_attempt_at = ${machine.leaseUntil}
      where id = ${id}::uuid and next_attempt = 1 and state in ('pending', 'sending')
        and next_attempt_at <= ${machine.now} and exists (select 1 from g)
      returning id, outbox_id, subscription_id, next_attempt as attempt)
    select ${attemptSets}`.execute(db.kysely);
  return attemptsOf(r.rows[0] ?? {})[0];
}
