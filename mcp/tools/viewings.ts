/**
 * MCP tools of viewings (`Besichtigungen`): seekers list a listing's slots, book one for an inquiry and give it
 * up; providers create, list, move and cancel slots. Thin adapters over `viewings/viewings.ts`.
 */
import { pageOf, pagingFields } from "../../catalogue/listing.ts";
import type { ToolAnnotations } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { officeOf, seekerOf } from "../../auth/principal.ts";
import { actAs } from "./acting.ts";
import {
  bookViewing,
  cancelViewing,
  cancelViewingSlot,
  createViewingSlots,
  listOfficeViewings,
  listSeekerSlots,
  moveViewingSlot,
  slotLineDe,
} from "../../viewings/viewings.ts";
import { MAX_SLOTS_PER_CALL, PLACES, type ProviderSlot } from "../../viewings/slots.ts";
import { whenDe } from "../../viewings/text.ts";
import { ADDS, addTool, DESTROYS, READ_ONLY, type ToolTarget, UPDATES } from "./define.ts";

/** Booking is idempotent for the same slot, adds or moves a booking otherwise, and never destroys anything. */
const BOOKS: ToolAnnotations = UPDATES;

const id = (what: string) => z.string().max(100).describe(`${what} (UUID).`);
const time = (what: string) =>
  z.iso.datetime({ offset: true }).describe(
    `${what}: ISO 8601 timestamp with offset, e.g. 2026-10-01T14:00:00Z.`,
  );

/** The fields every viewing slot shows, seeker's or provider's. */
const slotFields = {
  id: z.string().describe("Slot id (termin_id)."),
  listing_id: z.string(),
  start: z.string().describe("ISO 8601 start."),
  end: z.string().describe("ISO 8601 end."),
  places: z.number().int(),
};

const seekerSlotSchema = z.object({
  ...slotFields,
  free_places: z.number().int(),
  booked_by_me: z.boolean().describe("One of the caller's inquiries has booked this slot."),
});

const providerSlotSchema = z.object({
  ...slotFields,
  booked: z.number().int().describe("Active bookings."),
  free_places: z.number().int(),
  status: z.enum(["open", "cancelled"]),
  bookings: z.array(z.object({
    id: z.string().describe("Booking id."),
    inquiry_id: z.string(),
    name: z.string().nullable().describe("The inquirer's name."),
    booked_at: z.string().describe("ISO 8601."),
  })).describe("Active bookings of the slot."),
});

const STATUS_DE = { open: "offen", cancelled: "abgesagt" } as const;

function providerSlotText(s: ProviderSlot): string {
  const who = s.bookings.map((b) => b.name ?? "ohne Namen").join(", ");
  return `${slotLineDe(s)}: ${STATUS_DE[s.status]}, ${s.booked}/${s.places} gebucht${
    who ? ` (${who})` : ""
  }. ` +
    `ID: ${s.id}`;
}

function pageText(n: number, total: number, page: number): string {
  return `${total} Termin(e) insgesamt, Seite ${page} zeigt ${n}.`;
}

/** Registers the seeker's viewing tools: list_viewing_slots, book_viewing, cancel_viewing. */
export function registerSeekerViewingTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "list_viewing_slots",
    title: "Besichtigungstermine anzeigen / List viewing slots",
    description:
      "Zeigt die offenen, künftigen Besichtigungstermine eines veröffentlichten Objekts mit Beginn, " +
      "Ende, Plätzen, freien Plätzen und ob Sie den Termin gebucht haben. Vor book_viewing verwenden. " +
      "Lists the open future viewing slots of a published listing (start, end, places, free places, whether " +
      "you booked it), earliest first, paged. Use it before book_viewing. Returns {items, total, page, page_size}.",
    input: z.object({ listing_id: id("Listing id"), ...pagingFields }),
    output: pageOf(seekerSlotSchema),
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const page = await listSeekerSlots(deps, seekerOf(principal), args);
    const lines = page.items.map((s) =>
      `${slotLineDe(s)}: ${s.free_places} von ${s.places} Plätzen frei${
        s.booked_by_me ? ", von Ihnen gebucht" : ""
      }. ` +
      `ID: ${s.id}`
    );
    return { data: page, text: [pageText(page.items.length, page.total, page.page), ...lines].join("\n") };
  });

  addTool(server, deps, {
    name: "book_viewing",
    title: "Besichtigung buchen / Book a viewing",
    description:
      "Bucht einen Besichtigungstermin für eine Ihrer Anfragen zum selben Objekt. Hat die Anfrage " +
      "schon einen anderen Termin, wird umgebucht; derselbe Termin noch einmal ändert nichts. " +
      "Books a viewing slot for one of your inquiries about the same listing (the inquiry must not be rejected " +
      "or closed; the slot must be open, in the future and have a free place, else error conflict). An existing " +
      "booking of the inquiry on another slot is moved; booking the same slot again changes nothing. Returns the " +
      "booking with start, end, moved and unchanged.",
    input: z.object({ inquiry_id: id("Your inquiry's id"), slot_id: id("Slot id from list_viewing_slots") }),
    output: z.object({
      booking_id: z.string(),
      inquiry_id: z.string(),
      slot_id: z.string(),
      listing_id: z.string(),
      start: z.string(),
      end: z.string(),
      moved: z.boolean().describe("A booking on another slot was replaced."),
      unchanged: z.boolean().describe("This slot was already booked; nothing changed."),
    }),
    annotations: BOOKS,
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) => bookViewing(a, args.inquiry_id, args.slot_id));
    const what = r.unchanged ? "Bereits gebucht" : r.moved ? "Umgebucht auf" : "Gebucht";
    return { data: r, text: `${what}: Besichtigung am ${slotLineDe(r)}. Buchung: ${r.booking_id}` };
  });

  addTool(server, deps, {
    name: "cancel_viewing",
    title: "Besichtigung absagen / Cancel a viewing",
    description:
      "Sagt die gebuchte Besichtigung einer Ihrer Anfragen ab; der Termin selbst bleibt bestehen. " +
      "Gives up the booked viewing of one of your inquiries; the slot itself stays. Without a booking nothing " +
      "changes (cancelled false). Returns inquiry_id, cancelled, slot_id and start of the given-up booking.",
    input: z.object({ inquiry_id: id("Your inquiry's id") }),
    output: z.object({
      inquiry_id: z.string(),
      cancelled: z.boolean(),
      slot_id: z.string().nullable(),
      start: z.string().nullable(),
    }),
    annotations: DESTROYS,
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) => cancelViewing(a, args.inquiry_id));
    return {
      data: r,
      text: r.cancelled
        ? `Buchung der Besichtigung am ${whenDe(new Date(r.start ?? ""))} abgesagt.`
        : "Diese Anfrage hat keine gebuchte Besichtigung; nichts geändert.",
    };
  });
}

/** Registers the provider's viewing tools: create_viewing_slots, list_viewings, move and cancel_viewing_slot. */
export function registerProviderViewingTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "create_viewing_slots",
    title: "Besichtigungstermine anlegen / Create viewing slots",
    description:
      "Legt bis zu 50 Besichtigungstermine für ein Objekt Ihres Büros an (nicht zurückgezogen), alle " +
      "oder keinen. Creates up to 50 viewing slots on a listing of your office that is not withdrawn, all or " +
      "none: each starts in the future, ends after its start and at most 12 hours later, with 1–500 places. " +
      "Returns the created slots.",
    input: z.object({
      listing_id: id("Listing id"),
      slots: z.array(z.object({
        start: time("Start"),
        end: time("End"),
        places: z.number().int().min(PLACES.min).max(PLACES.max).describe("Places (guests), 1–500."),
      })).min(1).max(MAX_SLOTS_PER_CALL),
    }),
    output: z.object({ listing_id: z.string(), items: z.array(providerSlotSchema) }),
    annotations: ADDS,
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) => createViewingSlots(a, args.listing_id, args.slots));
    return {
      data: r,
      text: [`${r.items.length} Termin(e) angelegt.`, ...r.items.map(providerSlotText)].join("\n"),
    };
  });

  addTool(server, deps, {
    name: "list_viewings",
    title: "Besichtigungen anzeigen / List viewings",
    description: "Zeigt die Besichtigungstermine Ihres Büros mit Status und Buchungen (Anfrage, Name, " +
      "Buchungszeit). Lists your office's viewing slots, optionally of one listing and starting in [from, to), " +
      "earliest first, with status, counts and active bookings (booking id, inquiry_id, inquirer name, " +
      "booked_at). Returns {items, total, page, page_size}.",
    input: z.object({
      listing_id: id("Listing id").optional(),
      from: time("Earliest start (inclusive)").optional(),
      to: time("Latest start (exclusive)").optional(),
      ...pagingFields,
    }),
    output: pageOf(providerSlotSchema),
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const page = await listOfficeViewings(deps, officeOf(principal), args);
    return {
      data: page,
      text: [pageText(page.items.length, page.total, page.page), ...page.items.map(providerSlotText)].join(
        "\n",
      ),
    };
  });

  addTool(server, deps, {
    name: "move_viewing_slot",
    title: "Besichtigungstermin verlegen / Move a viewing slot",
    description:
      "Verlegt einen offenen Termin Ihres Büros; alle Buchungen wandern mit, die Suchenden werden " +
      "benachrichtigt. Moves an open slot of your office to a new start and end (start in the future, at most " +
      "12 hours long); every booking moves with it and each booked seeker is told (viewing.changed). Returns " +
      "the slot and how many bookings were affected.",
    input: z.object({ slot_id: id("Slot id"), start: time("New start"), end: time("New end") }),
    output: z.object({ slot: providerSlotSchema, bookings_affected: z.number().int() }),
    annotations: UPDATES,
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) => moveViewingSlot(a, args.slot_id, args));
    return {
      data: r,
      text: `Termin verlegt: ${providerSlotText(r.slot)}; ${r.bookings_affected} Buchung(en).`,
    };
  });

  addTool(server, deps, {
    name: "cancel_viewing_slot",
    title: "Besichtigungstermin absagen / Cancel a viewing slot",
    description:
      "Sagt einen Termin Ihres Büros ab, mit allen Buchungen; die Suchenden werden benachrichtigt. " +
      "Cancels a slot of your office and every booking on it; each booked seeker is told (viewing.changed). " +
      "Cancelling again changes nothing. Returns the slot and how many bookings were cancelled.",
    input: z.object({ slot_id: id("Slot id") }),
    output: z.object({ slot: providerSlotSchema, bookings_affected: z.number().int() }),
    annotations: DESTROYS,
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) => cancelViewingSlot(a, args.slot_id));
    return {
      data: r,
      text: `Termin abgesagt: ${providerSlotText(r.slot)}; ${r.bookings_affected} Buchung(en).`,
    };
  });
}
