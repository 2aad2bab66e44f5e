/**
 * The events of docs/contract.md §6.6, §6.7 that this build triggers: their server, the right they need, their filters and
 * the exact fields of their `data` (zod schemas, strict: a field the contract does not name is refused).
 *
 * Timestamps in `data` (`beginn`, `start`) are ISO 8601 strings in UTC. `fenster` of viewing.upcoming is `24h`
 * (about a day before) or `1h` (about an hour before); `change` of viewing.changed is `moved` or `cancelled`.
 */
import { z } from "zod";
import type { Right } from "../auth/principal.ts";

/** The server an event belongs to: the provider server (`anbieter`, right lesen) or the seeker server (`suche`). */
export type EventServer = "anbieter" | "suche";

const id = z.string();

/** `vorschlag_art` of a proposal of the service's agent. */
export const PROPOSAL_KINDS = ["reply", "rejection", "property_change"] as const;
/** `sorte` of a document on a listing. */
export const FILE_SORTS = ["brochure", "energy_certificate", "other"] as const;
/** `art` of a social inbox entry. */
export const SOCIAL_KINDS = ["comment", "message"] as const;
/** `netz` of a social inbox entry. */
export const SOCIAL_NETWORKS = ["facebook", "instagram"] as const;
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
  "proposal.pending": z.strictObject({
    vorschlag_id: id,
    vorschlag_art: z.enum(PROPOSAL_KINDS),
    geht_hinaus: z.boolean().describe("Whether approving sends something to the inquirer."),
    anfrage_id: id.nullable().describe("The inquiry it answers; null for a property change."),
    objekt_id: id,
    satz,
  }),
  "file.processed": z.strictObject({
    objekt_id: id,
    datei_id: id,
    sorte: z.enum(FILE_SORTS),
    angaben: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).describe(
      "The values read from the document (empty when it could not be read; then fehler names the reason).",
    ),
    satz,
  }),
  "viewing.upcoming": z.strictObject({
    termin_id: id,
    objekt_id: id,
    beginn: iso,
    fenster: z.enum(["24h", "1h"]),
    satz,
  }),
  "social.received": z.strictObject({
    eingang_id: id,
    art: z.enum(SOCIAL_KINDS),
    netz: z.enum(SOCIAL_NETWORKS),
    objekt_id: id.nullable().describe("The listing it names by link or reference; null when none."),
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
  "proposal.pending": "anbieter",
  "file.processed": "anbieter",
  "viewing.upcoming": "anbieter",
  "social.received": "anbieter",
  "matches.new": "suche",
  "reply.received": "suche",
  "viewing.changed": "suche",
};

const filterId = z.string().min(1).max(100);

/**
 * Filter schemas (the `arguments` of events/subscribe), by event: every filter is optional and names a field of
 * the event's `data`; an event matches when each given filter equals that field (docs/contract.md §6.6, §6.7 "Filters").
 */
export const EVENT_FILTERS: Record<EventName, z.ZodObject> = {
  "inquiry.received": z.strictObject({ objekt_id: filterId.optional() }),
  "message.received": z.strictObject({ objekt_id: filterId.optional(), anfrage_id: filterId.optional() }),
  "viewing.booked": z.strictObject({ objekt_id: filterId.optional() }),
  "viewing.cancelled": z.strictObject({ objekt_id: filterId.optional() }),
  "proposal.pending": z.strictObject({ objekt_id: filterId.optional(), anfrage_id: filterId.optional() }),
  "file.processed": z.strictObject({ objekt_id: filterId.optional() }),
  "viewing.upcoming": z.strictObject({ objekt_id: filterId.optional() }),
  "social.received": z.strictObject({ objekt_id: filterId.optional() }),
  "matches.new": z.strictObject({ saved_search_id: filterId.optional() }),
  "reply.received": z.strictObject({ inquiry_id: filterId.optional() }),
  "viewing.changed": z.strictObject({ inquiry_id: filterId.optional() }),
};

/** What each event means (German, then English), for events/list. */
export const EVENT_DESCRIPTIONS: Record<EventName, string> = {
  "inquiry.received":
    "Neue Anfrage zu einem Objekt Ihres Bestands (über den Dienst, ein Portal oder E-Mail; " +
    "Herkunft in quelle). / A new inquiry about a listing of your office; origin in quelle.",
  "message.received":
    "Ein Anfragender hat in einer bestehenden Anfrage erneut geschrieben; Inhalt mit get_inquiry. " +
    "/ An inquirer wrote again in an existing inquiry; read it with get_inquiry.",
  "viewing.booked":
    "Ein Anfragender hat einen Besichtigungstermin gebucht oder umgebucht (umgebucht). / An " +
    "inquirer booked a viewing slot or moved to another one.",
  "viewing.cancelled":
    "Ein Anfragender hat einen Termin abgesagt; die Besichtigung selbst kann bleiben. / An " +
    "inquirer gave up a slot; the viewing itself may stay.",
  "viewing.upcoming":
    "Eine Besichtigung mit Gästen steht bevor, etwa einen Tag (fenster 24h) und etwa eine " +
    "Stunde (1h) vorher. / A viewing with guests is coming up, about a day and about an hour before.",
  "proposal.pending":
    "Der Assistent des Dienstes hat etwas zur Freigabe vorbereitet (Antwortentwurf, Absage oder " +
    "Objektänderung; geht_hinaus sagt, ob die Freigabe etwas an den Anfragenden sendet); lesen mit " +
    "get_proposal. / The service's agent prepared a draft reply, a rejection or a property change awaiting " +
    "your approval.",
  "file.processed":
    "Ein Dokument zu einem Objekt (Exposé, Energieausweis) wurde gelesen; das Ergebnis steht in " +
    "get_property. / A document on a listing (brochure, energy certificate) has been read; read the result " +
    "with get_property.",
  "social.received":
    "Ein neuer Kommentar oder eine neue Nachricht in einem verbundenen sozialen Netz (art, netz); " +
    "lesen mit list_social_messages. / A new comment or message in a connected social network.",
  "matches.new":
    "Ein Suchauftrag hat neue Treffer, einmal je Lauf und Auftrag (count). / A saved search has new " +
    "matches, once per run and search.",
  "reply.received": "Der Anbieter hat auf Ihre Anfrage geantwortet (Nachricht oder Absage); Inhalt mit " +
    "get_inquiry. / The provider replied to your inquiry with a message or a rejection.",
  "viewing.changed":
    "Der Anbieter hat eine gebuchte Besichtigung verschoben (change moved, neuer Beginn in " +
    "start) oder abgesagt (cancelled). / The provider moved or cancelled a booked viewing.",
};

/** The events of `server`, in the contract's order (docs/contract.md §6.6, §6.7). */
export function eventsOf(server: EventServer): EventName[] {
  return (Object.keys(EVENT_SERVER) as EventName[]).filter((n) => EVENT_SERVER[n] === server);
}

/** Whether `name` is an event this build triggers. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === "string" && Object.hasOwn(EVENT_SERVER, name);
}

/** The right each server's events need (docs/contract.md §6.6: lesen, §6.5: suchen). */
export function rightOfServer(server: EventServer): Right {
  return server === "anbieter" ? "lesen" : "suchen";
}
