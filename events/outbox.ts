/**
 * Writing events: a domain action calls {@linkcode recordEvent} with its own transaction, so the event exists if
 * and only if the action committed. The data is checked against the event's schema (exactly the fields of docs/contract.md §6.6, §6.7).
 */
import type { Kysely } from "kysely";
import type { Principal } from "../auth/principal.ts";
import { type EventOrigin, insertOutboxRow } from "../db/outbox.ts";
import type { Database } from "../db/schema.ts";
import type { AppDeps } from "../deps.ts";
import { EVENT_DATA, EVENT_SERVER, type EventData, type EventName } from "./catalogue.ts";

/** Whom an event concerns: an office (provider server events) or a seeker (seeker server events). */
export type EventOwner = { office: string } | { seeker: string };

export type { EventOrigin } from "../db/outbox.ts";

/** The origin of an action taken by an MCP caller. */
export function originOf(principal: Principal): EventOrigin {
  const o = principal.origin;
  if (o.kind === "web") return null;
  return o.kind === "oauth" ? { clientId: o.clientId } : { apiKeyId: o.keyId };
}

/** One event to record. */
export interface EventRecord<N extends EventName> {
  name: N;
  data: EventData<N>;
  owner: EventOwner;
  origin: EventOrigin;
  /** When it happened (the domain's clock). */
  at: Date;
}

/**
 * Writes `ev` into the outbox with `tx`, the transaction of the triggering action; returns the outbox id.
 * Throws when `data` does not match the event's schema or the owner does not fit the event's server.
 */
export async function recordEvent<N extends EventName>(
  tx: Kysely<Database>,
  ev: EventRecord<N>,
): Promise<string> {
  const data = EVENT_DATA[ev.name].parse(ev.data) as Record<string, unknown>;
  const server = EVENT_SERVER[ev.name];
  const office = "office" in ev.owner ? ev.owner.office : null;
  if ((server === "anbieter") !== (office !== null)) {
    throw new Error(`event ${ev.name}: owner does not fit server ${server}`);
  }
  return await insertOutboxRow(tx, {
    server,
    name: ev.name,
    data,
    ownerOfficeId: office,
    ownerUserId: "seeker" in ev.owner ? ev.owner.seeker : null,
    originClientId: ev.origin && "clientId" in ev.origin ? ev.origin.clientId : null,
    originApiKeyId: ev.origin && "apiKeyId" in ev.origin ? ev.origin.apiKeyId : null,
    at: ev.at,
  });
}

/**
 * Runs `fn` in one transaction. Its commit wakes the dispatcher of every instance through Postgres (the outbox's
 * trigger, docs/architecture.md §8), so the caller does nothing more. Use it for every action that records events.
 */
export async function withEvents<T>(
  deps: Pick<AppDeps, "db">,
  fn: (tx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return await deps.db.kysely.transaction().execute(fn);
}
