/**
 * The events of spec §6.4 and §6.5 that this build triggers: their server, the right they need, their filters and
 * the exact fields of their `data` (zod schemas, strict: a field the spec does not name is refused).
 *
 * Timestamps in `data` (`beginn`, `start`) are ISO 8601 strings in UTC. `fenster` of viewing.upcoming is `24h`
 * (about a day before) or `1h` (about an hour before); `change` of viewing.changed is `moved` or `cancelled`.
 */
import { z } from "zod";

/** The server an event belongs to: the provider server (`anbieter`, right lesen) or the seeker server (`suche`). */
export type EventServer = "anbieter" | "suche";

const id = z.string();
const satz = z.string().min(1).max(300).describe("One short German sentence; never message content.");
const iso = z.string().describe("ISO 8601 timestamp (UTC).");

/** Data schemas of the events, by name. */
export const EVENT_DATA = {
  "inquiry.received": z.strictObject({
    anfrage_id: id,
    objekt_id: id,
    quelle: z.enum(["service", "portal", "email"]),
    satz,
  }),
  "message.received": z.strictObject({ anfrage_id: id, objekt_id: id, nachricht_id: id, satz }),
  "viewing.booked": z.strictObject({
    termin_id: id,
    anfrage_id: id,
    objekt_id: id,
    beginn: iso,
    umgebucht: z.boolean(),
    satz,
  }),
  "viewing.cancelled": z.strictObject({ termin_id: id, anfrage_id: id, objekt_id: id, beginn: iso, satz }),
  "viewing.upcoming": z.strictObject({
    termin_id: id,
    objekt_id: id,
    beginn: iso,
    fenster: z.enum(["24h", "1h"]),
    satz,
  }),
  "matches.new": z.strictObject({ saved_search_id: id, count: z.number().int().min(1), satz }),
  "reply.received": z.strictObject({ inquiry_id: id, listing_id: id, satz }),
  "viewing.changed": z.strictObject({
    inquiry_id: id,
    listing_id: id,
    change: z.enum(["moved", "cancelled"]),
    start: iso.nullable(),
    satz,
  }),
} as const;

/** The name of an event this build triggers. */
export type EventName = keyof typeof EVENT_DATA;

/** The `data` of event `N`. */
export type EventData<N extends EventName> = z.infer<(typeof EVENT_DATA)[N]>;

/** The server each event belongs to. */
export const EVENT_SERVER: Record<EventName, EventServer> = {
  "inquiry.received": "anbieter",
  "message.received": "anbieter",
  "viewing.booked": "anbieter",
  "viewing.cancelled": "anbieter",
  "viewing.upcoming": "anbieter",
  "matches.new": "suche",
  "reply.received": "suche",
  "viewing.changed": "suche",
};
