/**
 * viewing.upcoming reminders with the test app's controllable clock: nothing before the 24 h window, exactly one
 * `24h` and one `1h` row per slot and start (also with concurrent runs), none for slots without guests or
 * cancelled slots, fresh reminders after a move, and only `1h` for a slot booked half an hour before its start.
 */
import assert from "node:assert/strict";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { listOutbox } from "../db/outbox.ts";
import { runViewingReminders } from "../viewings/reminders.ts";
import { bookViewing, cancelViewingSlot, createViewingSlots, moveViewingSlot } from "../viewings/viewings.ts";
import { act } from "../deps.ts";
import { fileWorld, officeWho, openTestDb, seekerWho, testApp } from "./helpers.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;

/** A database, an app whose clock the tests move (only forward), a listing, a provider and a seeker. */
async function reminderWorld() {
  const tdb = await openTestDb();
  const db = tdb.db;
  const t = await testApp(db).catch(async (e) => {
    await tdb.close();
    throw e;
  });
  const officeId = await ensureOffice(db, "Erinnerungsbüro");
  const [listingId] = await insertListings(db, officeId, [
    { ...sampleListing(1, prng(5), Date.now()), beispiel: true, status: "published" },
  ]);
  const seekerId = await insertUser(db, { email: "gast@example.org", name: "Gast", role: "seeker" });
  return {
    db,
    t,
    deps: t.deps,
    officeId,
    listingId: listingId!,
    seekerId,
    provider: officeWho(officeId, undefined, { apiKeyId: crypto.randomUUID() }),
    seeker: seekerWho(seekerId, { apiKeyId: crypto.randomUUID() }),
    async close() {
      await t.close();
      await tdb.close();
    },
  };
}

type World = Awaited<ReturnType<typeof reminderWorld>>;

/** A new open inquiry of the seeker about the listing. */
async function inquiry(w: World): Promise<string> {
  const r = await w.db.kysely.insertInto("inquiries").values({
    listing_id: w.listingId,
    office_id: w.officeId,
    quelle: "service",
    seeker_id: w.seekerId,
    email: "gast@example.org",
    created_at: new Date(w.t.now()),
    updated_at: new Date(w.t.now()),
  }).returning("id").executeTakeFirstOrThrow();
  return r.id;
}

/** Creates one slot of one hour starting at `start` (ms) and returns its id. */
async function newSlot(w: World, start: number): Promise<string> {
  const r = await act(w.deps, w.provider, (x) =>
    createViewingSlots(x, w.listingId, [
      { start: new Date(start).toISOString(), end: new Date(start + HOUR).toISOString(), places: 5 },
    ]));
  return r.items[0]!.id;
}

/** The viewing.upcoming outbox rows of slot `id`, oldest first. */
async function reminders(w: World, id: string) {
  const rows = await listOutbox(w.db, { limit: 10_000, name: "viewing.upcoming" });
  return rows.filter((r) => r.data.termin_id === id).reverse();
}

/** Asserts the exact outbox row of a reminder. */
function assertReminder(
  w: World,
  row: Awaited<ReturnType<typeof reminders>>[number] | undefined,
  id: string,
  start: number,
  fenster: "24h" | "1h",
): void {
  assert.ok(row, `a ${fenster} reminder exists`);
  assert.equal(row.server, "anbieter");
  assert.equal(typeof row.data.satz, "string");
  assert.ok((row.data.satz as string).length > 0);
  assert.deepEqual(row.data, {
    termin_id: id,
    objekt_id: w.listingId,
    beginn: new Date(start).toISOString(),
    fenster,
    satz: row.data.satz,
  });
  assert.equal(row.ownerOfficeId, w.officeId);
  assert.equal(row.ownerUserId, null);
  assert.equal(row.originClientId, null);
  assert.equal(row.originApiKeyId, null);
  assert.equal(row.createdAt.getTime(), w.t.now());
}

/** Runs the reminders `n` times at once and returns the sum of rows written. */
async function runConcurrently(w: World, n: number): Promise<number> {
  const counts = await Promise.all(Array.from({ length: n }, () => runViewingReminders(w.deps)));
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * Three slots starting in 30 hours: `a` with a guest, `empty` without, `cancelled` with a guest but cancelled.
 */
async function threeSlots(w: World, slot: Slot) {
  const startA = Math.floor(w.t.now() / MIN) * MIN + 30 * HOUR;
  const a = await slot(startA);
  const empty = await slot(startA);
  const cancelled = await slot(startA);
  const [i1, i2] = [await inquiry(w), await inquiry(w)];
  await act(w.deps, w.seeker, (x) => bookViewing(x, i1, a));
  await act(w.deps, w.seeker, (x) => bookViewing(x, i2, cancelled));
  await act(w.deps, w.provider, (x) => cancelViewingSlot(x, cancelled));
  return { startA, a, empty, cancelled };
}

const w = await fileWorld(reminderWorld);

/** Makes a slot of the test starting at `start` (ms); see {@linkcode reminderTest}. */
type Slot = (start: number) => Promise<string>;

/**
 * A test of the reminders. Every test makes its slots relative to the clock's now, which only moves forward, and its
 * slots are cancelled when it ends: a cancelled slot gets no reminder, so no test sees the slots of another.
 */
function reminderTest(name: string, fn: (slot: Slot) => Promise<void>): void {
  Deno.test(`viewing reminders: ${name}`, async () => {
    const made: string[] = [];
    try {
      await fn(async (start) => {
        const id = await newSlot(w, start);
        made.push(id);
        return id;
      });
    } finally {
      for (const id of made) await act(w.deps, w.provider, (x) => cancelViewingSlot(x, id));
    }
  });
}

/** Moves the clock to the start of the 24 h window of `start` and runs the reminders once: one row. */
async function atTheDayBefore(w: World, start: number): Promise<void> {
  w.t.advance(start - 24 * HOUR - w.t.now());
  assert.equal(await runViewingReminders(w.deps), 1);
}

reminderTest("nothing before the 24 h window", async (slot) => {
  const { startA, a } = await threeSlots(w, slot);
  assert.equal(await runViewingReminders(w.deps), 0);
  w.t.advance(startA - 24 * HOUR - 1 - w.t.now());
  assert.equal(await runViewingReminders(w.deps), 0);
  assert.equal((await reminders(w, a)).length, 0);
});

reminderTest("exactly one 24h reminder, also with concurrent runs", async (slot) => {
  const { startA, a } = await threeSlots(w, slot);
  w.t.advance(startA - 24 * HOUR - w.t.now()); // now = start − 24 h: the window opens
  assert.equal(await runConcurrently(w, 3), 1);
  assert.equal(await runViewingReminders(w.deps), 0);
  const rows = await reminders(w, a);
  assert.equal(rows.length, 1);
  assertReminder(w, rows[0], a, startA, "24h");
  w.t.advance(10 * HOUR);
  assert.equal(await runConcurrently(w, 2), 0);
  assert.equal(await runViewingReminders(w.deps), 0);
  assert.equal((await reminders(w, a)).length, 1);
});

reminderTest("none for a slot without guests or a cancelled slot", async (slot) => {
  const { startA, empty, cancelled } = await threeSlots(w, slot);
  await atTheDayBefore(w, startA); // the one row is the guest's slot's
  assert.equal((await reminders(w, empty)).length, 0);
  assert.equal((await reminders(w, cancelled)).length, 0);
  w.t.advance(startA - HOUR - w.t.now());
  assert.equal(await runViewingReminders(w.deps), 1);
  assert.equal((await reminders(w, empty)).length, 0);
  assert.equal((await reminders(w, cancelled)).length, 0);
});

reminderTest("then exactly one 1h reminder", async (slot) => {
  const { startA, a, empty, cancelled } = await threeSlots(w, slot);
  await atTheDayBefore(w, startA);
  w.t.advance(startA - HOUR - 1 - w.t.now()); // still the 24 h window
  assert.equal(await runViewingReminders(w.deps), 0);
  w.t.advance(1); // now = start − 1 h
  assert.equal(await runConcurrently(w, 2), 1);
  const rows = await reminders(w, a);
  assert.equal(rows.length, 2);
  assertReminder(w, rows[1], a, startA, "1h");
  w.t.advance(59 * MIN);
  assert.equal(await runViewingReminders(w.deps), 0);
  assert.equal((await reminders(w, a)).length, 2);
  assert.equal((await reminders(w, empty)).length, 0);
  assert.equal((await reminders(w, cancelled)).length, 0);
  const stored = await w.db.kysely.selectFrom("viewing_reminders").select(["slot_id", "fenster"])
    .where("slot_id", "in", [a, empty, cancelled]).orderBy("fenster", "desc").execute();
  assert.deepEqual(stored, [{ slot_id: a, fenster: "24h" }, { slot_id: a, fenster: "1h" }]);
});

reminderTest("a moved slot gets reminders for its new start", async (slot) => {
  const { startA, a } = await threeSlots(w, slot);
  await atTheDayBefore(w, startA);
  w.t.advance(startA - HOUR - w.t.now());
  assert.equal(await runViewingReminders(w.deps), 1);
  assert.equal((await reminders(w, a)).length, 2, "both reminders of the old start are out");
  w.t.advance(59 * MIN); // the move comes later than the old reminders
  const newStart = Math.floor(w.t.now() / MIN) * MIN + 20 * HOUR; // inside the 24 h window at once
  await act(w.deps, w.provider, (x) =>
    moveViewingSlot(x, a, {
      start: new Date(newStart).toISOString(),
      end: new Date(newStart + HOUR).toISOString(),
    }));
  assert.equal(await runConcurrently(w, 2), 1);
  let rows = await reminders(w, a);
  assert.equal(rows.length, 3);
  assertReminder(w, rows[2], a, newStart, "24h");
  w.t.advance(newStart - 30 * MIN - w.t.now());
  assert.equal(await runViewingReminders(w.deps), 1);
  assert.equal(await runViewingReminders(w.deps), 0);
  rows = await reminders(w, a);
  assert.equal(rows.length, 4);
  assertReminder(w, rows[3], a, newStart, "1h");
});

reminderTest("a slot booked 30 minutes before its start gets only the 1h reminder", async (slot) => {
  const startL = Math.floor(w.t.now() / MIN) * MIN + 3 * HOUR;
  const late = await slot(startL);
  assert.equal(await runViewingReminders(w.deps), 0); // in its 24 h window, but without guests
  w.t.advance(startL - 30 * MIN - w.t.now());
  assert.equal(await runViewingReminders(w.deps), 0);
  const ilate = await inquiry(w);
  await act(w.deps, w.seeker, (x) => bookViewing(x, ilate, late));
  assert.equal(await runConcurrently(w, 2), 1);
  const rows = await reminders(w, late);
  assert.equal(rows.length, 1);
  assertReminder(w, rows[0], late, startL, "1h");
  w.t.advance(31 * MIN); // started: nothing more
  assert.equal(await runViewingReminders(w.deps), 0);
  assert.equal((await reminders(w, late)).length, 1);
});
