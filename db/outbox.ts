/** SQL of the event outbox (docs/architecture.md §6): rows are written inside the transaction of the action that triggers them. */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database } from "./schema.ts";

/** The app that caused an event (so it is not sent back to it); `null` for a browser page or the service itself. */
export type EventOrigin = { clientId: string } | { apiKeyId: string } | null;

/** An outbox row to write. */
export interface NewOutboxRow {
  server: "anbieter" | "suche";
  name: string;
  data: Record<string, unknown>;
  ownerOfficeId: string | null;
  ownerUserId: string | null;
  originClientId: string | null;
  originApiKeyId: string | null;
  /** Creation time (the domain's clock). */
  at: Date;
}

/** An outbox row as read back. */
export interface OutboxRow extends Omit<NewOutboxRow, "at"> {
  id: string;
  createdAt: Date;
  dispatchedAt: Date | null;
}

/**
 * Writes one outbox row with `q` (a transaction of the triggering action) as one more statement of it; returns
 * its id, chosen here (a random UUID), so the insert needs no answer beyond success. Written as one fixed statement
 * text (not built per call): it runs once per event on the hot path.
 */
export async function insertOutboxRow(q: Kysely<Database>, row: NewOutboxRow): Promise<string> {
  const id = crypto.randomUUID();
  await sql`insert into event_outbox
      (id, server, name, data, owner_office_id, owner_user_id, origin_client_id, origin_api_key_id, created_at)
    values (${id}, ${row.server}, ${row.name}, ${JSON.stringify(row.data)}::text::jsonb, ${row.ownerOfficeId},
      ${row.ownerUserId}, ${row.originClientId}, ${row.originApiKeyId}, ${row.at})`.execute(q);
  return id;
}

/** The newest outbox rows first (at most `limit`), optionally only those not yet dispatched. */
export async function listOutbox(
  db: Db,
  opts: { limit: number; pendingOnly?: boolean; name?: string },
): Promise<OutboxRow[]> {
  let q = db.kysely.selectFrom("event_outbox").selectAll();
  if (opts.pendingOnly) q = q.where("dispatched_at", "is", null);
  if (opts.name) q = q.where("name", "=", opts.name);
  const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(opts.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    server: r.server,
    name: r.name,
    data: (typeof r.data === "string" ? JSON.parse(r.data) : r.data) as Record<string, unknown>,
    ownerOfficeId: r.owner_office_id,
    ownerUserId: r.owner_user_id,
    originClientId: r.origin_client_id,
    originApiKeyId: r.origin_api_key_id,
    createdAt: new Date(r.created_at),
    dispatchedAt: r.dispatched_at ? new Date(r.dispatched_at) : null,
  }));
}

const EVENT_ID = /^evt_([0-9a-f]{32})$/i;

/** The event id (`webhook-id`, `eventId`) of outbox row `outboxId`: `evt_` + the uuid without dashes. */
export function eventIdOf(outboxId: string): string {
  return `evt_${outboxId.replaceAll("-", "")}`;
}

/** The outbox uuid of event id `evt_<32 hex>`, or undefined when malformed. */
export function outboxIdOf(eventId: string): string | undefined {
  const m = EVENT_ID.exec(eventId);
  if (!m) return undefined;
  const h = m[1]!.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
