/**
 * Writing events: a domain action calls {@linkcode recordEvent} with its action, so the event exists if and only
 * if the action committed. The data is checked against the event's schema (exactly the fields of docs/contract.md §6.6, §6.7).
 */
import type { Kysely } from "kysely";
import { type EventOrigin, insertOutboxRow } from "../db/outbox.ts";
import type { Database } from "../db/schema.ts";
import type { Action } from "../deps.ts";
import { EVENT_DATA, EVENT_SERVER, type EventData, type EventName } from "./catalogue.ts";

/** Whom an event concerns: an office (provider server events) or a seeker (seeker server events). */
export type EventOwner = { office: string } | { seeker: string };

export type { EventOrigin } from "../db/outbox.ts";

/** One event to write. */
export interface EventRecord<N extends EventName> {
  name: N;
  data: EventData<N>;
  owner: EventOwner;
}

/**
 * Writes event `ev` into the outbox within action `a`, so the event exists if and only if the action commits; its
 * origin (the app that caused it, which it is not sent back to) and its time are the action's. The commit wakes the
 * dispatcher of every instance (the outbox's trigger, docs/architecture.md §8). Returns the outbox id. Throws when
 * `data` does not match the event's schema or the owner does not fit the event's server (programming errors).
 */
export async function recordEvent<N extends EventName>(a: Action, ev: EventRecord<N>): Promise<string> {
  return await writeEvent(a.tx, { ...ev, origin: a.origin, at: a.now });
}

/**
 * Writes an event with an explicit origin and time on `tx` (what {@linkcode recordEvent} does for an action): for
 * tests and benchmarks that prepare outbox rows without a domain action.
 */
export async function writeEvent<N extends EventName>(
  tx: Kysely<Database>,
  ev: EventRecord<N> & { origin: EventOrigin; at: Date },
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
