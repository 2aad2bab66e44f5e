/**
 * SQL of viewings: slots (`termin`) a provider offers on a listing, seekers' bookings of them for an inquiry, and
 * the viewing.upcoming reminders already written. Functions taking `q` run on the caller's transaction.
 */
import { type Kysely, sql } from "kysely";
import type { Db } from "./connection.ts";
import type { Database, ListingsTable } from "./schema.ts";

/** A query handle: the database or a transaction. */
type Q = Kysely<Database>;

/** A viewing slot as stored. */
export interface SlotRow {
  id: string;
  listing_id: string;
  office_id: string;
  starts_at: Date;
  ends_at: Date;
  places: number;
  status: "open" | "cancelled";
}

/** A slot with the number of its booked (active) bookings. */
export interface SlotWithCount extends SlotRow {
  booked: number;
}

/** The inquiry fields viewings need. */
export interface InquiryRow {
  id: string;
  listing_id: string;
  office_id: string;
  seeker_id: string | null;
  status: "open" | "answered" | "rejected" | "closed";
}

const SLOT_COLUMNS = [
  "viewing_slots.id",
  "viewing_slots.listing_id",
  "viewing_slots.office_id",
  "viewing_slots.starts_at",
  "viewing_slots.ends_at",
  "viewing_slots.places",
  "viewing_slots.status",
] as const;

const bookedCount = sql<number>`(select count(*)::int from viewing_bookings b
  where b.slot_id = viewing_slots.id and b.status = 'booked')`;

function toSlot<T extends SlotRow>(r: T): T {
  return { ...r, starts_at: new Date(r.starts_at), ends_at: new Date(r.ends_at) };
}

/** The status of listing `listingId` when it belongs to `officeId`, else undefined. */
export async function officeListingStatus(
  q: Q,
  listingId: string,
  officeId: string,
): Promise<ListingsTable["status"] | undefined> {
  const r = await q.selectFrom("listings").select("status").where("id", "=", listingId)
    .where("office_id", "=", officeId).executeTakeFirst();
  return r?.status;
}

/** Whether listing `listingId` exists and is published. */
export async function isPublishedListing(q: Q, listingId: string): Promise<boolean> {
  const r = await q.selectFrom("listings").select("id").where("id", "=", listingId)
    .where("status", "=", "published").executeTakeFirst();
  return r !== undefined;
}

/** A slot to insert. */
export interface NewSlot {
  listing_id: string;
  office_id: string;
  starts_at: Date;
  ends_at: Date;
  places: number;
}

/** Inserts `rows` (all at once, on `q`) with creation time `at`; returns them in input order. */
export async function insertSlots(q: Q, rows: NewSlot[], at: Date): Promise<SlotRow[]> {
  if (rows.length === 0) return [];
  const out = await q.insertInto("viewing_slots")
    .values(rows.map((r) => ({ ...r, status: "open" as const, created_at: at, updated_at: at })))
    .returning(["id", "listing_id", "office_id", "starts_at", "ends_at", "places", "status"]).execute();
  return out.map(toSlot);
}

/** Open slots of `listingId` starting after `now`, earliest first, with booked counts and the seeker's own mark. */
export async function openSlotsOfListing(
  db: Db,
  opts: { listingId: string; seekerId: string; now: Date; limit: number; offset: number },
): Promise<{ items: Array<SlotWithCount & { mine: boolean }>; total: number }> {
  const base = db.kysely.selectFrom("viewing_slots").where("listing_id", "=", opts.listingId)
    .where("status", "=", "open").where("starts_at", ">", opts.now);
  const [rows, total] = await Promise.all([
    base.select([
      ...SLOT_COLUMNS,
      bookedCount.as("booked"),
      sql<boolean>`exists (select 1 from viewing_bookings b join inquiries i on i.id = b.inquiry_id
        where b.slot_id = viewing_slots.id and b.status = 'booked' and i.seeker_id = ${opts.seekerId})`
        .as("mine"),
    ]).orderBy("starts_at").orderBy("id").limit(opts.limit).offset(opts.offset).execute(),
    base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toSlot), total: total.n };
}

/** Locks and returns inquiry `inquiryId` when it belongs to seeker `seekerId`. */
export async function lockSeekerInquiry(
  q: Q,
  inquiryId: string,
  seekerId: string,
): Promise<InquiryRow | undefined> {
  return await q.selectFrom("inquiries").select(["id", "listing_id", "office_id", "seeker_id", "status"])
    .where("id", "=", inquiryId).where("seeker_id", "=", seekerId).forUpdate().executeTakeFirst();
}

/** Locks and returns slot `slotId` (optionally only when it belongs to office `officeId`). */
export async function lockSlot(q: Q, slotId: string, officeId?: string): Promise<SlotRow | undefined> {
  let s = q.selectFrom("viewing_slots").select(SLOT_COLUMNS).where("id", "=", slotId);
  if (officeId !== undefined) s = s.where("office_id", "=", officeId);
  const r = await s.forUpdate().executeTakeFirst();
  return r ? toSlot(r) : undefined;
}

/** The number of booked (active) bookings of slot `slotId`. */
export async function countBooked(q: Q, slotId: string): Promise<number> {
  const r = await q.selectFrom("viewing_bookings").select(sql<number>`count(*)::int`.as("n"))
    .where("slot_id", "=", slotId).where("status", "=", "booked").executeTakeFirstOrThrow();
  return r.n;
}

/** An active booking with its slot's start. */
export interface ActiveBooking {
  id: string;
  slot_id: string;
  starts_at: Date;
}

/** The active booking of inquiry `inquiryId`, if any. */
export async function activeBookingOf(q: Q, inquiryId: string): Promise<ActiveBooking | undefined> {
  const r = await q.selectFrom("viewing_bookings as b").innerJoin("viewing_slots as s", "s.id", "b.slot_id")
    .select(["b.id", "b.slot_id", "s.starts_at"]).where("b.inquiry_id", "=", inquiryId)
    .where("b.status", "=", "booked").executeTakeFirst();
  return r ? { ...r, starts_at: new Date(r.starts_at) } : undefined;
}

/** Cancels booking `bookingId` if it is still booked; returns whether it was. */
export async function cancelBooking(q: Q, bookingId: string, at: Date): Promise<boolean> {
  const r = await q.updateTable("viewing_bookings").set({ status: "cancelled", cancelled_at: at })
    .where("id", "=", bookingId).where("status", "=", "booked").executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Books slot `slotId` for inquiry `inquiryId` at `at`; returns the booking id. */
export async function insertBooking(q: Q, slotId: string, inquiryId: string, at: Date): Promise<string> {
  const r = await q.insertInto("viewing_bookings")
    .values({ slot_id: slotId, inquiry_id: inquiryId, status: "booked", created_at: at })
    .returning("id").executeTakeFirstOrThrow();
  return r.id;
}

/** Slots of office `officeId` (optionally of one listing, starting in [from, to)), earliest first, with counts. */
export async function officeSlots(
  db: Db,
  opts: { officeId: string; listingId?: string; from?: Date; to?: Date; limit: number; offset: number },
): Promise<{ items: SlotWithCount[]; total: number }> {
  let base = db.kysely.selectFrom("viewing_slots").where("office_id", "=", opts.officeId);
  if (opts.listingId !== undefined) base = base.where("listing_id", "=", opts.listingId);
  if (opts.from !== undefined) base = base.where("starts_at", ">=", opts.from);
  if (opts.to !== undefined) base = base.where("starts_at", "<", opts.to);
  const [rows, total] = await Promise.all([
    base.select([...SLOT_COLUMNS, bookedCount.as("booked")]).orderBy("starts_at").orderBy("id")
      .limit(opts.limit).offset(opts.offset).execute(),
    base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toSlot), total: total.n };
}

/** An active booking as a provider sees it: the inquiry and the inquirer's name. */
export interface SlotBooking {
  id: string;
  slot_id: string;
  inquiry_id: string;
  name: string | null;
  created_at: Date;
}

/** The active bookings of the given slots, oldest first. */
export async function activeBookingsOfSlots(q: Q, slotIds: string[]): Promise<SlotBooking[]> {
  if (slotIds.length === 0) return [];
  const rows = await q.selectFrom("viewing_bookings as b").innerJoin("inquiries as i", "i.id", "b.inquiry_id")
    .leftJoin("users as u", "u.id", "i.seeker_id")
    .select([
      "b.id",
      "b.slot_id",
      "b.inquiry_id",
      sql<string | null>`coalesce(i.name, u.name)`.as("name"),
      "b.created_at",
    ])
    .where("b.slot_id", "in", slotIds).where("b.status", "=", "booked")
    .orderBy("b.created_at").orderBy("b.id").execute();
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at) }));
}

/** A booked inquiry on a slot: whom a provider's change concerns. */
export interface BookedInquiry {
  booking_id: string;
  inquiry_id: string;
  listing_id: string;
  seeker_id: string | null;
}

/** The inquiries with an active booking on slot `slotId`, oldest booking first. */
export async function bookedInquiries(q: Q, slotId: string): Promise<BookedInquiry[]> {
  return await q.selectFrom("viewing_bookings as b").innerJoin("inquiries as i", "i.id", "b.inquiry_id")
    .select(["b.id as booking_id", "b.inquiry_id", "i.listing_id", "i.seeker_id"])
    .where("b.slot_id", "=", slotId).where("b.status", "=", "booked")
    .orderBy("b.created_at").orderBy("b.id").execute();
}

/** Sets the start and end of slot `slotId`. */
export async function setSlotTimes(q: Q, slotId: string, start: Date, end: Date, at: Date): Promise<void> {
  await q.updateTable("viewing_slots").set({ starts_at: start, ends_at: end, updated_at: at })
    .where("id", "=", slotId).execute();
}

/** Cancels slot `slotId` and every active booking on it. */
export async function cancelSlotAndBookings(q: Q, slotId: string, at: Date): Promise<void> {
  await q.updateTable("viewing_slots").set({ status: "cancelled", updated_at: at }).where("id", "=", slotId)
    .execute();
  await q.updateTable("viewing_bookings").set({ status: "cancelled", cancelled_at: at })
    .where("slot_id", "=", slotId).where("status", "=", "booked").execute();
}

/** A reminder row just written, with what its event needs. */
export interface WrittenReminder {
  slot_id: string;
  listing_id: string;
  office_id: string;
  fenster: "24h" | "1h";
  starts_at: Date;
}

/**
 * Writes the due reminders at `now` on `q` (a transaction): for each open slot with at least one active booking
 * that starts within 24 hours, window `1h` when it starts within the hour, else `24h`. A (slot, window, start)
 * already written is skipped (`on conflict do nothing`), so only rows this call inserted are returned.
 */
export async function insertDueReminders(q: Q, now: Date): Promise<WrittenReminder[]> {
  const t = now.toISOString();
  const res = await sql<WrittenReminder>`
    with due as (
      select s.id, s.listing_id, s.office_id, s.starts_at,
        case when s.starts_at <= ${t}::timestamptz + interval '1 hour' then '1h' else '24h' end as fenster
      from viewing_slots s
      where s.status = 'open' and s.starts_at > ${t}::timestamptz
        and s.starts_at <= ${t}::timestamptz + interval '24 hours'
        and exists (select 1 from viewing_bookings b where b.slot_id = s.id and b.status = 'booked')
      for update of s
    ), ins as (
      insert into viewing_reminders (slot_id, fenster, starts_at, created_at)
      select id, fenster, starts_at, ${t}::timestamptz from due
      on conflict do nothing
      returning slot_id, fenster, starts_at
    )
    select ins.slot_id, due.listing_id, due.office_id, ins.fenster, ins.starts_at
    from ins join due on due.id = ins.slot_id
    order by ins.starts_at, ins.slot_id`.execute(q);
  return res.rows.map((r) => ({ ...r, starts_at: new Date(r.starts_at) }));
}
