/**
 * SQL of the attempt log (docs/operations.md §3.7, docs/contract.md §6.4): every attempt of a subscription or an
 * event for the operator task `events:log`, and the recent attempts of a person's subscriptions for the
 * connected-apps page.
 */
import { sql } from "kysely";
import type { Db } from "./connection.ts";
import { eventIdOf } from "./outbox.ts";

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
  /** The delivery's state now (`failed` can be sent again). */
  state: string;
}

/** An attempt log line from a row that selects its columns under their SQL names. */
function lineOf(x: Record<string, unknown>): AttemptLogLine {
  return {
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
  };
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
  return r.rows.map(lineOf);
}

/** One attempt as the connected-apps page shows it, with its delivery and event. */
export interface RecentAttempt extends AttemptLogLine {
  deliveryId: string;
  outboxId: string;
  /** When the event happened (the domain's clock). */
  eventAt: Date;
}

/**
 * The newest attempts of each subscription in `subscriptionIds`, at most `perSubscription` each, newest first:
 * those of its `deliveries` newest deliveries (read through the subscription's delivery index, so the cost does
 * not grow with the log).
 */
export async function recentAttempts(
  db: Db,
  subscriptionIds: readonly string[],
  opts: { perSubscription: number; deliveries: number },
): Promise<RecentAttempt[]> {
  if (subscriptionIds.length === 0) return [];
  const r = await sql<Record<string, unknown>>`select x.* from
      jsonb_array_elements_text(${JSON.stringify(subscriptionIds)}::text::jsonb) as s(id)
    cross join lateral (
      select d.subscription_id, d.id as delivery_id, d.outbox_id, d.state, o.name, o.created_at as event_at,
        a.attempt, a.started_at, a.duration_ms, a.status, a.error_class, a.outcome
      from (select id, outbox_id, state, subscription_id from event_deliveries e where e.subscription_id = s.id
        order by e.created_at desc limit ${opts.deliveries}) d
      join event_delivery_attempts a on a.delivery_id = d.id
      join event_outbox o on o.id = d.outbox_id
      order by a.started_at desc, a.id desc limit ${opts.perSubscription}) x`.execute(db.kysely);
  return r.rows.map((x) => ({
    ...lineOf(x),
    deliveryId: x.delivery_id as string,
    outboxId: x.outbox_id as string,
    eventAt: new Date(x.event_at as string),
  }));
}
