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
import { officeWho, openTestDb, seekerWho, testApp } from "./helpers.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;

const tdb = await openTestDb();
const db = tdb.db;
const t = await testApp(db);
const deps = t.deps;

const officeId = await ensureOffice(db, "Erinnerungsbüro");
const [listingId] = await insertListings(db, officeId, [
  { ...sampleListing(1, prng(5), Date.now()), beispiel: true, status: "published" },
]);
const seekerId = await insertUser(db, { email: "gast@example.org", name: "Gast", role: "seeker" });
const provider = officeWho(officeId, undefined, { apiKeyId: crypto.randomUUID() });
const seeker = seekerWho(seekerId, { apiKeyId: crypto.randomUUID() });

/** A new open inquiry of the seeker about the listing. */
async function inquiry(): Promise<string> {
  const r = await db.kysely.insertInto("inquiries").values({
    listing_id: listingId!,
    office_id: officeId,
    quelle: "service",
    seeker_id: seekerId,
    email: "gast@example.org",
    created_at: new Date(t.now()),
    updated_at: new Date(t.now()),
  }).returning("id").executeTakeFirstOrThrow();
  return r.id;
}

/** Creates one slot of one hour starting at `start` (ms) and returns its id. */
async function slot(start: number): Promise<string> {
  const r = await act(deps, provider, (x) =>
    createViewingSlots(x, listingId!, [
      { start: new Date(start).toISOString(), end: new Date(start + HOUR).toISOString(), places: 5 },
    ]));
  return r.items[0]!.id;
}

/** The viewing.upcoming outbox rows of slot `id`, oldest first. */
async function reminders(id: string) {
  const rows = await listOutbox(db, { limit: 10_000, name: "viewing.upcoming" });
  return rows.filter((r) => r.data.termin_id === id).reverse();
}

/** Asserts the exact outbox row of a reminder. */
function assertReminder(
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
    objekt_id: listingId,
    beginn: new Date(start).toISOString(),
    fenster,
    satz: row.data.satz,
  });
  assert.equal(row.ownerOfficeId, officeId);
  assert.equal(row.ownerUserId, null);
  assert.equal(row.originClientId, null);
  assert.equal(row.originApiKeyId, null);
  assert.equal(row.createdAt.getTime(), t.now());
}

/** Runs the reminders `n` times at once and returns the sum of rows written. */
async function runConcurrently(n: number): Promise<number> {
  const counts = await Promise.all(Array.from({ length: n }, () => runViewingReminders(deps)));
  return counts.reduce((a, b) => a + b, 0);
}

Deno.test("viewing reminders", async (tt) => {
  const t0 = Math.floor(t.now() / MIN) * MIN;
  const startA = t0 + 30 * HOUR;
  const a = await slot(startA);
  const empty = await slot(startA);
  const cancelled = await slot(startA);
  const [i1, i2] = [await inquiry(), await inquiry()];
  await act(deps, seeker, (x) => bookViewing(x, i1, a));
  await act(deps, seeker, (x) => bookViewing(x, i2, cancelled));
  await act(deps, provider, (a) => cancelViewingSlot(a, cancelled));

  await tt.step("nothing before the 24 h window", async () => {
    assert.equal(await runViewingReminders(deps), 0);
    t.advance(startA - 24 * HOUR - 1 - t.now());
    assert.equal(await runViewingReminders(deps), 0);
    assert.equal((await reminders(a)).length, 0);
  });

  await tt.step("exactly one 24h reminder, also with concurrent runs", async () => {
    t.advance(1); // now = start − 24 h: the window opens
    assert.equal(await runConcurrently(3), 1);
    assert.equal(await runViewingReminders(deps), 0);
    const rows = await reminders(a);
    assert.equal(rows.length, 1);
    assertReminder(rows[0], a, startA, "24h");
    t.advance(10 * HOUR);
    assert.equal(await runConcurrently(2), 0);
    assert.equal(await runViewingReminders(deps), 0);
    assert.equal((await reminders(a)).length, 1);
  });

  await tt.step("no reminder for a slot without guests or a cancelled slot", async () => {
    assert.equal((await reminders(empty)).length, 0);
    assert.equal((await reminders(cancelled)).length, 0);
  });

  await tt.step("then exactly one 1h reminder", async () => {
    t.advance(startA - HOUR - 1 - t.now()); // still the 24 h window
    assert.equal(await runViewingReminders(deps), 0);
    t.advance(1); // now = start − 1 h
    assert.equal(await runConcurrently(2), 1);
    const rows = await reminders(a);
    assert.equal(rows.length, 2);
    assertReminder(rows[1], a, startA, "1h");
    t.advance(59 * MIN);
    assert.equal(await runViewingReminders(deps), 0);
    assert.equal((await reminders(a)).length, 2);
    assert.equal((await reminders(empty)).length, 0);
    assert.equal((await reminders(cancelled)).length, 0);
    const stored = await db.kysely.selectFrom("viewing_reminders").select(["slot_id", "fenster"])
      .orderBy("fenster", "desc").execute();
    assert.deepEqual(stored, [{ slot_id: a, fenster: "24h" }, { slot_id: a, fenster: "1h" }]);
  });

  await tt.step("a moved slot gets reminders for its new start", async () => {
    const newStart = Math.floor(t.now() / MIN) * MIN + 20 * HOUR; // inside the 24 h window at once
    await act(deps, provider, (x) =>
      moveViewingSlot(x, a, {
        start: new Date(newStart).toISOString(),
        end: new Date(newStart + HOUR).toISOString(),
      }));
    assert.equal(await runConcurrently(2), 1);
    let rows = await reminders(a);
    assert.equal(rows.length, 3);
    assertReminder(rows[2], a, newStart, "24h");
    t.advance(newStart - 30 * MIN - t.now());
    assert.equal(await runViewingReminders(deps), 1);
    assert.equal(await runViewingReminders(deps), 0);
    rows = await reminders(a);
    assert.equal(rows.length, 4);
    assertReminder(rows[3], a, newStart, "1h");
  });

  await tt.step("a slot booked 30 minutes before its start gets only the 1h reminder", async () => {
    const startL = Math.floor(t.now() / MIN) * MIN + 3 * HOUR;
    const late = await slot(startL);
    assert.equal(await runViewingReminders(deps), 0); // in its 24 h window, but without guests
    t.advance(startL - 30 * MIN - t.now());
    assert.equal(await runViewingReminders(deps), 0);
    const ilate = await inquiry();
    await act(deps, seeker, (x) => bookViewing(x, ilate, late));
    assert.equal(await runConcurrently(2), 1);
    const rows = await reminders(late);
    assert.equal(rows.length, 1);
    assertReminder(rows[0], late, startL, "1h");
    t.advance(31 * MIN); // started: nothing more
    assert.equal(await runViewingReminders(deps), 0);
    assert.equal((await reminders(late)).length, 1);
  });
});

Deno.test("close", async () => {
  t.kv.close();
  await tdb.close();
});
