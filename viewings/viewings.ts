/**
 * Viewings (`Besichtigungen`): providers offer slots (`termin`) on their listings, seekers book one slot per
 * inquiry, move to another or give it up; providers move or cancel slots. Every change writes its rows and its
 * events (viewing.booked, viewing.cancelled, viewing.changed) in one transaction. Used by MCP tools and pages.
 *
 * Access: a provider reaches only its office's listings and slots, a seeker only their own inquiries and slots
 * of published listings; anything else (including malformed ids) is `not_found`, exactly like an unknown id.
 */
import { idOrNotFound } from "../ids.ts";
import { pageWindow, type Paging } from "../paging.ts";
import type { Kysely } from "kysely";
import * as sqlv from "../db/viewings.ts";
import type { Database } from "../db/schema.ts";
import { AppError } from "../errors.ts";
import { recordEvent } from "../events/outbox.ts";
import { actingOffice, actingSeeker, type Action, type AppDeps, nowOf } from "../deps.ts";
import { spanDe, whenDe } from "./text.ts";
import {
  type BookingResult,
  type CancelResult,
  checkSlot,
  checkTimes,
  MAX_SLOTS_PER_CALL,
  type PageOf,
  parseTime,
  type ProviderSlot,
  type SeekerSlot,
  type SlotChangeResult,
  type SlotInput,
  type SlotTimes,
} from "./slots.ts";
import { recordInquirerMail } from "../inquiries/inquirer_mail.ts";
import { inquiryWritable } from "../inquiries/inquiries.ts";

/** What the domain needs from the app. */
export type ViewingDeps = Pick<AppDeps, "db" | "clock">;

function providerSlot(s: sqlv.SlotWithCount, bookings: sqlv.SlotBooking[]): ProviderSlot {
  return {
    id: s.id,
    listing_id: s.listing_id,
    start: s.starts_at.toISOString(),
    end: s.ends_at.toISOString(),
    places: s.places,
    booked: s.booked,
    free_places: Math.max(0, s.places - s.booked),
    status: s.status,
    bookings: bookings.filter((b) => b.slot_id === s.id).map((b) => ({
      id: b.id,
      inquiry_id: b.inquiry_id,
      name: b.name,
      booked_at: b.created_at.toISOString(),
    })),
  };
}

/**
 * Creates up to 50 slots on a listing of the provider's office that is not withdrawn, all or none (one
 * transaction). Each slot starts in the future, ends after its start and at most 12 hours later, with 1–500
 * places. Throws `not_found` for a listing outside the office, `invalid_request` for a broken rule.
 */
export async function createViewingSlots(
  a: Action,
  listingId: string,
  slots: SlotInput[],
): Promise<{ listing_id: string; items: ProviderSlot[] }> {
  const officeId = actingOffice(a);
  const id = idOrNotFound(listingId);
  const now = a.now;
  const status = await sqlv.officeListingStatus(a.tx, id, officeId);
  if (status === undefined) throw new AppError("not_found");
  if (status === "withdrawn" || status === "reserved") {
    throw new AppError("conflict", { reason: "listing_unavailable", names: [status] });
  }
  if (slots.length < 1 || slots.length > MAX_SLOTS_PER_CALL) {
    throw new AppError("invalid_request", {
      field: "slots",
      reason: "out_of_range",
      hint: "1 to 50 slots per call",
    });
  }
  const rows = slots.map((s, i) => ({
    listing_id: id,
    office_id: officeId,
    ...checkSlot(s, now, `slots[${i}].`),
  })).map(({ start, end, ...r }) => ({ ...r, starts_at: start, ends_at: end }));
  const created = await sqlv.insertSlots(a.tx, rows, now);
  return { listing_id: id, items: created.map((s) => providerSlot({ ...s, booked: 0 }, [])) };
}

/** Open slots of a published listing that start in the future, earliest first; `not_found` otherwise. */
export async function listSeekerSlots(
  deps: ViewingDeps,
  seekerId: string,
  args: { listing_id: string } & Paging,
): Promise<PageOf<SeekerSlot>> {
  const id = idOrNotFound(args.listing_id);
  const p = pageWindow(args);
  if (!await sqlv.isPublishedListing(deps.db.kysely, id)) throw new AppError("not_found");
  const { items, total } = await sqlv.openSlotsOfListing(deps.db, {
    listingId: id,
    seekerId,
    now: nowOf(deps),
    limit: p.page_size,
    offset: p.offset,
  });
  return {
    items: items.map((s) => ({
      id: s.id,
      listing_id: s.listing_id,
      start: s.starts_at.toISOString(),
      end: s.ends_at.toISOString(),
      places: s.places,
      free_places: Math.max(0, s.places - s.booked),
      booked_by_me: s.mine,
    })),
    total,
    page: p.page,
    page_size: p.page_size,
  };
}

/** Locks the seeker's inquiry and the slot of its listing; `not_found` unless both are the seeker's to use. */
async function lockForBooking(
  tx: Kysely<Database>,
  seekerId: string,
  inquiryId: string,
  slotId: string,
): Promise<{ inquiry: sqlv.InquiryRow; slot: sqlv.SlotRow }> {
  const inquiry = await sqlv.lockSeekerInquiry(tx, inquiryId, seekerId);
  if (!inquiry) throw new AppError("not_found");
  const slot = await sqlv.lockSlot(tx, slotId);
  if (!slot || slot.listing_id !== inquiry.listing_id) throw new AppError("not_found");
  if (!await sqlv.isPublishedListing(tx, slot.listing_id)) throw new AppError("not_found");
  return { inquiry, slot };
}

function bookingResult(
  bookingId: string,
  slot: sqlv.SlotRow,
  inquiryId: string,
  moved: boolean,
  unchanged: boolean,
): BookingResult {
  return {
    booking_id: bookingId,
    inquiry_id: inquiryId,
    slot_id: slot.id,
    listing_id: slot.listing_id,
    start: slot.starts_at.toISOString(),
    end: slot.ends_at.toISOString(),
    moved,
    unchanged,
  };
}

/**
 * Books slot `slotId` for the seeker's inquiry `inquiryId` (about the slot's listing; not rejected or closed).
 * The slot must be open, in the future and have a free place (`conflict` otherwise; the slot row is locked, so
 * two bookings cannot both take the last place). An existing booking of the inquiry on another slot is moved
 * (cancelled and replaced in the same transaction; viewing.booked says `umgebucht: true`); booking the slot the
 * inquiry already has changes nothing and writes no event.
 */
export async function bookViewing(a: Action, inquiryId: string, slotId: string): Promise<BookingResult> {
  const seekerId = actingSeeker(a);
  const iid = idOrNotFound(inquiryId);
  const sid = idOrNotFound(slotId);
  const tx = a.tx;
  const { inquiry, slot } = await lockForBooking(tx, seekerId, iid, sid);
  const now = a.now;
  if (!inquiryWritable(inquiry.status)) throw new AppError("conflict", { reason: "inquiry_closed" });
  const current = await sqlv.activeBookingOf(tx, iid);
  if (current?.slot_id === sid) return bookingResult(current.id, slot, iid, false, true);
  if (slot.status !== "open") throw new AppError("conflict", { reason: "slot_cancelled" });
  if (slot.starts_at.getTime() <= now.getTime()) throw new AppError("conflict", { reason: "slot_begun" });
  if (await sqlv.countBooked(tx, sid) >= slot.places) {
    throw new AppError("conflict", { reason: "slot_full" });
  }
  const moved = current !== undefined && await sqlv.cancelBooking(tx, current.id, now);
  const bookingId = await sqlv.insertBooking(tx, sid, iid, now);
  await recordEvent(a, {
    name: "viewing.booked",
    data: {
      termin_id: sid,
      anfrage_id: iid,
      objekt_id: slot.listing_id,
      beginn: slot.starts_at.toISOString(),
      umgebucht: moved,
      satz: moved
        ? `Eine Besichtigung wurde auf den ${whenDe(slot.starts_at)} umgebucht.`
        : `Eine Besichtigung am ${whenDe(slot.starts_at)} wurde gebucht.`,
    },
    owner: { office: slot.office_id },
  });
  return bookingResult(bookingId, slot, iid, moved, false);
}

/**
 * Gives up the active booking of the seeker's inquiry `inquiryId`; the slot stays. Writes viewing.cancelled.
 * Without an active booking nothing changes (`cancelled: false`).
 */
export async function cancelViewing(a: Action, inquiryId: string): Promise<CancelResult> {
  const seekerId = actingSeeker(a);
  const iid = idOrNotFound(inquiryId);
  const tx = a.tx;
  const inquiry = await sqlv.lockSeekerInquiry(tx, iid, seekerId);
  if (!inquiry) throw new AppError("not_found");
  const now = a.now;
  const current = await sqlv.activeBookingOf(tx, iid);
  if (!current || !await sqlv.cancelBooking(tx, current.id, now)) {
    return { inquiry_id: iid, cancelled: false, slot_id: null, start: null };
  }
  await recordEvent(a, {
    name: "viewing.cancelled",
    data: {
      termin_id: current.slot_id,
      anfrage_id: iid,
      objekt_id: inquiry.listing_id,
      beginn: current.starts_at.toISOString(),
      satz: `Eine Buchung für die Besichtigung am ${whenDe(current.starts_at)} wurde abgesagt.`,
    },
    owner: { office: inquiry.office_id },
  });
  return {
    inquiry_id: iid,
    cancelled: true,
    slot_id: current.slot_id,
    start: current.starts_at.toISOString(),
  };
}

/**
 * The provider's slots (optionally of one listing of the office, starting in [from, to)), earliest first, with
 * status, counts and active bookings. A listing outside the office is `not_found`.
 */
export async function listOfficeViewings(
  deps: ViewingDeps,
  officeId: string,
  args: { listing_id?: string | undefined; from?: string | undefined; to?: string | undefined } & Paging,
): Promise<PageOf<ProviderSlot>> {
  const listingId = args.listing_id === undefined ? undefined : idOrNotFound(args.listing_id);
  if (listingId !== undefined && !await sqlv.officeListingStatus(deps.db.kysely, listingId, officeId)) {
    throw new AppError("not_found");
  }
  const p = pageWindow(args);
  const { items, total } = await sqlv.officeSlots(deps.db, {
    officeId,
    ...(listingId === undefined ? {} : { listingId }),
    ...(args.from === undefined ? {} : { from: parseTime(args.from, "from") }),
    ...(args.to === undefined ? {} : { to: parseTime(args.to, "to") }),
    limit: p.page_size,
    offset: p.offset,
  });
  const bookings = await sqlv.activeBookingsOfSlots(deps.db.kysely, items.map((s) => s.id));
  return { items: items.map((s) => providerSlot(s, bookings)), total, page: p.page, page_size: p.page_size };
}

/**
 * Writes one viewing.changed per booked inquiry with a seeker account and records a mail to every booked inquirer
 * (inquiries/inquirer_mail.ts); returns how many inquiries were booked.
 */
async function notifySeekers(
  a: Action,
  booked: sqlv.BookedInquiry[],
  change: { kind: "moved"; start: Date } | { kind: "cancelled"; was: Date },
): Promise<number> {
  for (const b of booked) {
    await recordInquirerMail(
      a,
      b.inquiry_id,
      change.kind === "moved" ? { kind: "viewing_moved", start: change.start } : {
        kind: "viewing_cancelled",
        was: change.was,
      },
    );
    if (b.seeker_id === null) continue;
    await recordEvent(a, {
      name: "viewing.changed",
      data: {
        inquiry_id: b.inquiry_id,
        listing_id: b.listing_id,
        change: change.kind,
        start: change.kind === "moved" ? change.start.toISOString() : null,
        satz: change.kind === "moved"
          ? `Ihre Besichtigung wurde vom Anbieter auf den ${whenDe(change.start)} verlegt.`
          : `Ihre Besichtigung am ${whenDe(change.was)} wurde vom Anbieter abgesagt.`,
      },
      owner: { seeker: b.seeker_id },
    });
  }
  return booked.length;
}

/**
 * Moves an open slot of the provider's office to new times (start in the future, end after it, at most 12 hours);
 * its bookings move with it, each booked seeker gets viewing.changed (`moved`, new start) and each booked inquirer
 * a mail. The same times
 * again change nothing. `not_found` for a slot outside the office, `conflict` for a cancelled slot.
 */
export async function moveViewingSlot(
  a: Action,
  slotId: string,
  times: SlotTimes,
): Promise<SlotChangeResult> {
  const officeId = actingOffice(a);
  const sid = idOrNotFound(slotId);
  const tx = a.tx;
  const slot = await sqlv.lockSlot(tx, sid, officeId);
  if (!slot) throw new AppError("not_found");
  const now = a.now;
  if (slot.status !== "open") throw new AppError("conflict", { reason: "slot_cancelled" });
  const { start, end } = checkTimes(times, now, "");
  const booked = await sqlv.bookedInquiries(tx, sid);
  const same = start.getTime() === slot.starts_at.getTime() && end.getTime() === slot.ends_at.getTime();
  if (!same) {
    await sqlv.setSlotTimes(tx, sid, start, end, now);
    await notifySeekers(a, booked, { kind: "moved", start });
  }
  const moved = { ...slot, starts_at: start, ends_at: end, booked: booked.length };
  return {
    slot: providerSlot(moved, await sqlv.activeBookingsOfSlots(tx, [sid])),
    bookings_affected: same ? 0 : booked.length,
  };
}

/**
 * Cancels a slot of the provider's office and every booking on it; each booked seeker gets viewing.changed
 * (`cancelled`) and each booked inquirer a mail. Cancelling a cancelled slot changes nothing. `not_found` for a
 * slot outside the office.
 */
export async function cancelViewingSlot(a: Action, slotId: string): Promise<SlotChangeResult> {
  const officeId = actingOffice(a);
  const sid = idOrNotFound(slotId);
  const tx = a.tx;
  const slot = await sqlv.lockSlot(tx, sid, officeId);
  if (!slot) throw new AppError("not_found");
  const cancelled = { ...slot, status: "cancelled" as const, booked: 0 };
  if (slot.status === "cancelled") return { slot: providerSlot(cancelled, []), bookings_affected: 0 };
  const booked = await sqlv.bookedInquiries(tx, sid);
  await sqlv.cancelSlotAndBookings(tx, sid, a.now);
  const n = await notifySeekers(a, booked, { kind: "cancelled", was: slot.starts_at });
  return { slot: providerSlot(cancelled, []), bookings_affected: n };
}

/** A German one-line rendering of a slot for tool texts. */
export function slotLineDe(s: { start: string; end: string }): string {
  return spanDe(new Date(s.start), new Date(s.end));
}
