/**
 * What a viewing slot is and the rules of its input: the limits (slots per call, length, places), the slot and
 * booking views the tools and pages show, and the checks of times and places. `viewings.ts` holds the writes.
 */
import { AppError } from "../errors.ts";

/** The most slots one call may create. */
export const MAX_SLOTS_PER_CALL = 50;
/** The longest a slot may last, in ms (12 hours). */
export const MAX_SLOT_MS = 12 * 3_600_000;
/** The fewest and most places of a slot. */
export const PLACES = { min: 1, max: 500 } as const;

/** A slot to create or the new times of a slot: ISO 8601 timestamps with offset. */
export interface SlotTimes {
  start: string;
  end: string;
}

/** A slot to create. */
export interface SlotInput extends SlotTimes {
  places: number;
}

/** A slot as a seeker sees it. */
export interface SeekerSlot {
  id: string;
  listing_id: string;
  start: string;
  end: string;
  places: number;
  free_places: number;
  booked_by_me: boolean;
}

/** An active booking as a provider sees it. */
export interface ProviderBooking {
  id: string;
  inquiry_id: string;
  name: string | null;
  booked_at: string;
}

/** A slot as a provider sees it, with its active bookings. */
export interface ProviderSlot {
  id: string;
  listing_id: string;
  start: string;
  end: string;
  places: number;
  booked: number;
  free_places: number;
  status: "open" | "cancelled";
  bookings: ProviderBooking[];
}

/** One page of a list. */
export interface PageOf<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** What booking a slot did. */
export interface BookingResult {
  booking_id: string;
  inquiry_id: string;
  slot_id: string;
  listing_id: string;
  start: string;
  end: string;
  /** The inquiry had another slot booked, which this booking replaced. */
  moved: boolean;
  /** The inquiry had already booked this slot; nothing changed. */
  unchanged: boolean;
}

/** What giving up a booking did. */
export interface CancelResult {
  inquiry_id: string;
  /** Whether a booking was given up (false: the inquiry had none). */
  cancelled: boolean;
  slot_id: string | null;
  start: string | null;
}

/** What a provider's change of a slot did. */
export interface SlotChangeResult {
  slot: ProviderSlot;
  /** How many booked inquiries the change concerned. */
  bookings_affected: number;
}

/** `value` as a time; `invalid_request` naming `field` unless it is an ISO 8601 timestamp. */
export function parseTime(value: string, field: string): Date {
  const d = /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new AppError("invalid_request", { field, reason: "not_a_timestamp" });
  return d;
}

/** Checks a slot's times at `now` (`at` prefixes the field names: `slots.2.`); returns them as dates. */
export function checkTimes(t: SlotTimes, now: Date, at: string): { start: Date; end: Date } {
  const start = parseTime(t.start, `${at}start`);
  const end = parseTime(t.end, `${at}end`);
  if (start.getTime() <= now.getTime()) {
    throw new AppError("invalid_request", { field: `${at}start`, reason: "not_in_future" });
  }
  if (end.getTime() <= start.getTime()) {
    throw new AppError("invalid_request", { field: `${at}end`, reason: "before_start" });
  }
  if (end.getTime() - start.getTime() > MAX_SLOT_MS) {
    throw new AppError("invalid_request", {
      field: `${at}end`,
      reason: "too_far_apart",
      hint: "a slot lasts at most 12 hours",
    });
  }
  return { start, end };
}

/** Checks a new slot (times and places) at `now`; returns its times and places. */
export function checkSlot(s: SlotInput, now: Date, at: string): { start: Date; end: Date; places: number } {
  if (!Number.isInteger(s.places) || s.places < PLACES.min || s.places > PLACES.max) {
    throw new AppError("invalid_request", {
      field: `${at}places`,
      reason: "out_of_range",
      hint: "a whole number from 1 to 500",
    });
  }
  return { ...checkTimes(s, now, at), places: s.places };
}
