/**
 * Viewing tools through real MCP clients of all three kinds: providers create, list, move and cancel slots;
 * seekers list, book, move and give up bookings. Checks DB rows and the exact outbox rows (name, data, owner,
 * origin), full slots, the time rules, the annotations, race safety of the last place, and that foreign,
 * unknown and malformed ids all answer the same `not_found` and change nothing.
 */
import assert from "node:assert/strict";
import { createApiKey } from "../auth/api_keys.ts";
import { act } from "../deps.ts";
import { fileWorld, officeWho, seekerWho } from "./helpers.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { listOutbox, type OutboxRow } from "../db/outbox.ts";
import { bookViewing, createViewingSlots } from "../viewings/viewings.ts";
import {
  CLIENT_KINDS,
  type ClientKind,
  connectClient,
  type ConnectedClient,
  mcpWorld,
} from "./mcp_helpers.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;

const w = await fileWorld(() => mcpWorld());
const db = w.tdb.db;

/** A published sample listing of `officeId` with `status`. */
async function listing(officeId: string, seed: number, status: "published" | "draft" | "withdrawn") {
  const [id] = await insertListings(db, officeId, [
    { ...sampleListing(seed, prng(seed), Date.now()), beispiel: true, status },
  ]);
  return id!;
}

/** A person with an API key; `officeId` makes them a provider of that office. */
async function person(email: string, name: string, officeId?: string) {
  const userId = await insertUser(db, { email, name, role: "seeker" });
  if (officeId) await startMembership(db, userId, officeId);
  const k = await createApiKey(db, userId, `Key ${name}`);
  return { userId, key: k.key, keyId: k.id };
}

const office2 = await ensureOffice(db, "Zweitbüro");
const provider2 = await person("anbieter2@example.org", "Anbieter Zwei", office2);
const seeker2 = await person("suchende2@example.org", "Suchende Zwei");
const listing2 = await listing(office2, 21, "published");
const draft = await listing(w.officeId, 22, "draft");
const withdrawn = await listing(w.officeId, 23, "withdrawn");

/** Inserts an inquiry about `listingId` (of office 1 unless given); `seekerId` null makes an e-mail inquiry. */
async function inquiry(
  seekerId: string | null,
  opts: { listingId?: string; officeId?: string; status?: "open" | "rejected" | "closed"; name?: string } =
    {},
): Promise<string> {
  const r = await db.kysely.insertInto("inquiries").values({
    listing_id: opts.listingId ?? w.listingId,
    office_id: opts.officeId ?? w.officeId,
    quelle: seekerId ? "service" : "email",
    seeker_id: seekerId,
    name: opts.name ?? null,
    email: `${crypto.randomUUID().slice(0, 8)}@example.org`,
    status: opts.status ?? "open",
    created_at: new Date(w.t.now()),
    updated_at: new Date(w.t.now()),
  }).returning("id").executeTakeFirstOrThrow();
  return r.id;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** A whole minute `ms` after the domain clock's now. */
const later = (ms: number) => Math.floor(w.t.now() / MIN) * MIN + ms;

// deno-lint-ignore no-explicit-any
async function call(c: ConnectedClient, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await c.callTool(name, args);
  assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
  assert.equal(res.content[0].type, "text");
  assert.ok(res.content[0].text.length > 0);
  return res.structuredContent;
}

/** Calls a tool that must fail; returns the error code and the whole result content. */
async function fail(
  c: ConnectedClient,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; content: string }> {
  const res = await c.callTool(name, args);
  assert.equal(res.isError, true, `${name} ${JSON.stringify(args)} should fail`);
  assert.equal(res.structuredContent, undefined);
  return { code: JSON.parse(res.content[0].text).error, content: JSON.stringify(res.content) };
}

/** Runs `fn` and returns the outbox rows it added (sorted by name and data). */
async function eventsOf<T>(fn: () => Promise<T>): Promise<{ result: T; events: OutboxRow[] }> {
  const before = new Set((await listOutbox(db, { limit: 100_000 })).map((r) => r.id));
  const result = await fn();
  const events = (await listOutbox(db, { limit: 100_000 })).filter((r) => !before.has(r.id))
    .sort((a, b) => (a.name + JSON.stringify(a.data)).localeCompare(b.name + JSON.stringify(b.data)));
  return { result, events };
}

/** The expected part of an outbox row. */
interface Expected {
  name: string;
  data: Record<string, unknown>;
  office?: string;
  seeker?: string;
  apiKeyId: string;
}

/** JSON with object keys sorted (jsonb does not keep key order). */
function canonical(x: unknown): string {
  return JSON.stringify(
    x,
    (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
        : v,
  );
}

/** Asserts `rows` are exactly `expected` (in any order): whole data (satz a non-empty string), owner, origin. */
function assertEvents(rows: OutboxRow[], expected: Expected[]): void {
  const norm = (e: Expected) => ({
    server: e.office ? "anbieter" : "suche",
    name: e.name,
    data: e.data,
    ownerOfficeId: e.office ?? null,
    ownerUserId: e.seeker ?? null,
    originClientId: null,
    originApiKeyId: e.apiKeyId,
  });
  const actual = rows.map((r) => {
    assert.equal(typeof r.data.satz, "string");
    assert.ok((r.data.satz as string).length > 0, "satz is not empty");
    const { satz: _s, ...data } = r.data;
    return {
      server: r.server,
      name: r.name,
      data,
      ownerOfficeId: r.ownerOfficeId,
      ownerUserId: r.ownerUserId,
      originClientId: r.originClientId,
      originApiKeyId: r.originApiKeyId,
    };
  });
  const byKey = <T>(xs: T[]) =>
    xs.map((x) => [canonical(x), x] as const).sort(([a], [b]) => a.localeCompare(b));
  assert.deepEqual(byKey(actual).map(([, x]) => x), byKey(expected.map(norm)).map(([, x]) => x));
}

/** The stored bookings of `inquiryId`: slot and status, cancelled ones first (the active one is last). */
async function bookingsOf(inquiryId: string) {
  return await db.kysely.selectFrom("viewing_bookings").select(["slot_id", "status"])
    .where("inquiry_id", "=", inquiryId).orderBy("status", "desc").orderBy("created_at").execute();
}

/** Every viewing and outbox row, for "nothing changed" checks. */
async function snapshot(): Promise<string> {
  const [slots, bookings, reminders, outbox] = await Promise.all([
    db.kysely.selectFrom("viewing_slots").selectAll().orderBy("id").execute(),
    db.kysely.selectFrom("viewing_bookings").selectAll().orderBy("id").execute(),
    db.kysely.selectFrom("viewing_reminders").selectAll().orderBy("slot_id").execute(),
    db.kysely.selectFrom("event_outbox").select(["id", "name", "data"]).orderBy("id").execute(),
  ]);
  return JSON.stringify({ slots, bookings, reminders, outbox });
}

const SEEKER_TOOLS = {
  list_viewing_slots: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  book_viewing: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  cancel_viewing: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};
const PROVIDER_TOOLS = {
  create_viewing_slots: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  list_viewings: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  move_viewing_slot: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  cancel_viewing_slot: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

/** Asserts the tools of `c` include `expected` with these annotations and an output schema. */
async function assertTools(
  c: ConnectedClient,
  expected: Record<string, Record<string, boolean>>,
): Promise<void> {
  const { tools } = await c.listTools();
  for (const [name, hints] of Object.entries(expected)) {
    const tool = tools.find((t) => t.name === name);
    assert.ok(tool, `${name} is listed`);
    assert.ok(tool.outputSchema, `${name} has an output schema`);
    for (const [hint, value] of Object.entries(hints)) assert.equal(tool.annotations?.[hint], value, name);
  }
}

/** The full flow of one client kind. */
async function flow(kind: ClientKind, t: Deno.TestContext): Promise<void> {
  const p = await connectClient(kind, w.url, w.provider.key);
  const s = await connectClient(kind, w.url, w.seeker.key);
  const s2 = await connectClient(kind, w.url, seeker2.key);
  const p2 = await connectClient(kind, w.url, provider2.key);
  try {
    await t.step("tools and annotations", async () => {
      await assertTools(s, SEEKER_TOOLS);
      await assertTools(p, PROVIDER_TOOLS);
      const provTools = (await p.listTools()).tools.map((x) => x.name);
      assert.ok(!provTools.includes("book_viewing"), "seeker tools are not on the provider server");
    });

    const i1 = await inquiry(w.seeker.userId);
    const j1 = await inquiry(seeker2.userId);
    const k1 = await inquiry(null, { name: "Erika Mustermann" });
    const rejected = await inquiry(w.seeker.userId, { status: "rejected" });
    const startA = later(2 * 24 * HOUR);
    const startB = startA + 2 * HOUR;
    let slotA = "";
    let slotB = "";

    await t.step("provider creates slots", async () => {
      const { result: r, events } = await eventsOf(() =>
        call(p, "create_viewing_slots", {
          listing_id: w.listingId,
          slots: [
            { start: iso(startA), end: iso(startA + HOUR), places: 3 },
            { start: iso(startB), end: iso(startB + 30 * MIN), places: 1 },
          ],
        })
      );
      assert.equal(events.length, 0);
      assert.equal(r.listing_id, w.listingId);
      assert.equal(r.items.length, 2);
      [slotA, slotB] = [r.items[0].id, r.items[1].id];
      assert.deepEqual(r.items[0], {
        id: slotA,
        listing_id: w.listingId,
        start: iso(startA),
        end: iso(startA + HOUR),
        places: 3,
        booked: 0,
        free_places: 3,
        status: "open",
        bookings: [],
      });
      const rows = await db.kysely.selectFrom("viewing_slots").select(["id", "office_id", "places", "status"])
        .where("id", "in", [slotA, slotB]).orderBy("starts_at").execute();
      assert.deepEqual(rows, [
        { id: slotA, office_id: w.officeId, places: 3, status: "open" },
        { id: slotB, office_id: w.officeId, places: 1, status: "open" },
      ]);
    });

    await t.step("slot rules", async () => {
      const before = await snapshot();
      const one = (start: number, end: number, places = 2) => ({
        listing_id: w.listingId,
        slots: [{ start: iso(start), end: iso(end), places }],
      });
      const now = w.t.now();
      assert.equal((await fail(p, "create_viewing_slots", one(now - HOUR, now))).code, "invalid_request");
      assert.equal((await fail(p, "create_viewing_slots", one(startA, startA))).code, "invalid_request");
      assert.equal(
        (await fail(p, "create_viewing_slots", one(startA, startA + 13 * HOUR))).code,
        "invalid_request",
      );
      assert.equal(
        (await fail(p, "create_viewing_slots", one(startA, startA + HOUR, 0))).code,
        "invalid_arguments",
      );
      assert.equal(
        (await fail(p, "create_viewing_slots", one(startA, startA + HOUR, 501))).code,
        "invalid_arguments",
      );
      const many = Array.from(
        { length: 51 },
        () => ({ start: iso(startA), end: iso(startA + HOUR), places: 1 }),
      );
      assert.equal(
        (await fail(p, "create_viewing_slots", { listing_id: w.listingId, slots: many })).code,
        "invalid_arguments",
      );
      // One bad slot among good ones: none is created.
      const mixed = [{ start: iso(startA), end: iso(startA + HOUR), places: 1 }, {
        start: iso(now - MIN),
        end: iso(now + HOUR),
        places: 1,
      }];
      assert.equal(
        (await fail(p, "create_viewing_slots", { listing_id: w.listingId, slots: mixed })).code,
        "invalid_request",
      );
      assert.equal(
        (await fail(p, "create_viewing_slots", { ...one(startA, startA + HOUR), listing_id: withdrawn }))
          .code,
        "conflict",
      );
      assert.equal(
        (await fail(p, "move_viewing_slot", { slot_id: slotA, start: iso(now - HOUR), end: iso(now + HOUR) }))
          .code,
        "invalid_request",
      );
      assert.equal(await snapshot(), before);
      // Up to 50 at once, on a draft listing (not withdrawn) too; a seeker does not see a draft's slots.
      const fifty = Array.from({ length: 50 }, (_, i) => ({
        start: iso(startA + i * HOUR),
        end: iso(startA + i * HOUR + 12 * HOUR),
        places: 500,
      }));
      const r = await call(p, "create_viewing_slots", { listing_id: draft, slots: fifty });
      assert.equal(r.items.length, 50);
      assert.equal((await fail(s, "list_viewing_slots", { listing_id: draft })).code, "not_found");
    });

    await t.step("seeker lists and books", async () => {
      const list = await call(s, "list_viewing_slots", { listing_id: w.listingId, page_size: 60 });
      const a = list.items.find((x: { id: string }) => x.id === slotA);
      assert.deepEqual(a, {
        id: slotA,
        listing_id: w.listingId,
        start: iso(startA),
        end: iso(startA + HOUR),
        places: 3,
        free_places: 3,
        booked_by_me: false,
      });
      assert.ok(list.items.some((x: { id: string }) => x.id === slotB));
      assert.equal(list.page, 1);
      assert.equal(list.page_size, 60);
      assert.ok(list.total >= 2);

      const { result: r, events } = await eventsOf(() =>
        call(s, "book_viewing", { inquiry_id: i1, slot_id: slotA })
      );
      assert.equal(r.inquiry_id, i1);
      assert.equal(r.slot_id, slotA);
      assert.equal(r.moved, false);
      assert.equal(r.unchanged, false);
      assertEvents(events, [{
        name: "viewing.booked",
        data: {
          termin_id: slotA,
          anfrage_id: i1,
          objekt_id: w.listingId,
          beginn: iso(startA),
          umgebucht: false,
        },
        office: w.officeId,
        apiKeyId: w.seeker.keyId,
      }]);
      assert.deepEqual(await bookingsOf(i1), [{ slot_id: slotA, status: "booked" }]);
      const after = await call(s, "list_viewing_slots", { listing_id: w.listingId, page_size: 60 });
      const a2 = after.items.find((x: { id: string }) => x.id === slotA);
      assert.equal(a2.free_places, 2);
      assert.equal(a2.booked_by_me, true);
      // The other seeker sees the slot as not theirs.
      const other = await call(s2, "list_viewing_slots", { listing_id: w.listingId, page_size: 60 });
      assert.equal(other.items.find((x: { id: string }) => x.id === slotA).booked_by_me, false);

      // The same slot again: success, nothing changes, no event.
      const again = await eventsOf(() => call(s, "book_viewing", { inquiry_id: i1, slot_id: slotA }));
      assert.equal(again.result.unchanged, true);
      assert.equal(again.result.booking_id, r.booking_id);
      assert.equal(again.events.length, 0);
      assert.deepEqual(await bookingsOf(i1), [{ slot_id: slotA, status: "booked" }]);

      // A rejected inquiry cannot book.
      assert.equal(
        (await fail(s, "book_viewing", { inquiry_id: rejected, slot_id: slotA })).code,
        "conflict",
      );
    });

    await t.step("seeker moves to another slot (umgebucht)", async () => {
      const { result: r, events } = await eventsOf(() =>
        call(s, "book_viewing", { inquiry_id: i1, slot_id: slotB })
      );
      assert.equal(r.moved, true);
      assert.equal(r.start, iso(startB));
      assertEvents(events, [{
        name: "viewing.booked",
        data: {
          termin_id: slotB,
          anfrage_id: i1,
          objekt_id: w.listingId,
          beginn: iso(startB),
          umgebucht: true,
        },
        office: w.officeId,
        apiKeyId: w.seeker.keyId,
      }]);
      assert.deepEqual(await bookingsOf(i1), [
        { slot_id: slotA, status: "cancelled" },
        { slot_id: slotB, status: "booked" },
      ]);
    });

    await t.step("a full slot answers conflict", async () => {
      const before = await snapshot();
      const r = await fail(s2, "book_viewing", { inquiry_id: j1, slot_id: slotB });
      assert.equal(r.code, "conflict");
      assert.equal(await snapshot(), before);
      assert.deepEqual(await bookingsOf(j1), []);
    });

    await t.step("seeker gives up, then books again", async () => {
      const { result: r, events } = await eventsOf(() => call(s, "cancel_viewing", { inquiry_id: i1 }));
      assert.deepEqual(r, { inquiry_id: i1, cancelled: true, slot_id: slotB, start: iso(startB) });
      assertEvents(events, [{
        name: "viewing.cancelled",
        data: { termin_id: slotB, anfrage_id: i1, objekt_id: w.listingId, beginn: iso(startB) },
        office: w.officeId,
        apiKeyId: w.seeker.keyId,
      }]);
      const slots = await db.kysely.selectFrom("viewing_slots").select("status").where("id", "=", slotB)
        .executeTakeFirstOrThrow();
      assert.equal(slots.status, "open", "the slot stays");
      const again = await eventsOf(() => call(s, "cancel_viewing", { inquiry_id: i1 }));
      assert.deepEqual(again.result, { inquiry_id: i1, cancelled: false, slot_id: null, start: null });
      assert.equal(again.events.length, 0);

      const booked = await eventsOf(() => call(s, "book_viewing", { inquiry_id: i1, slot_id: slotA }));
      assert.equal(booked.result.moved, false);
      assertEvents(booked.events, [{
        name: "viewing.booked",
        data: {
          termin_id: slotA,
          anfrage_id: i1,
          objekt_id: w.listingId,
          beginn: iso(startA),
          umgebucht: false,
        },
        office: w.officeId,
        apiKeyId: w.seeker.keyId,
      }]);
      await call(s2, "book_viewing", { inquiry_id: j1, slot_id: slotA });
      // An e-mail inquiry without a seeker account, booked by the office.
      await db.kysely.insertInto("viewing_bookings")
        .values({ slot_id: slotA, inquiry_id: k1, created_at: new Date(w.t.now()) }).execute();
    });

    await t.step("provider lists viewings with bookings", async () => {
      const r = await call(p, "list_viewings", { listing_id: w.listingId, page_size: 60 });
      const a = r.items.find((x: { id: string }) => x.id === slotA);
      assert.equal(a.status, "open");
      assert.equal(a.booked, 3);
      assert.equal(a.free_places, 0);
      assert.deepEqual(
        a.bookings.map((b: { inquiry_id: string; name: string | null }) => [b.inquiry_id, b.name]).sort(),
        [[i1, "Suchende"], [j1, "Suchende Zwei"], [k1, "Erika Mustermann"]].sort(),
      );
      for (const b of a.bookings) {
        assert.match(b.id, /^[0-9a-f-]{36}$/);
        assert.ok(!Number.isNaN(Date.parse(b.booked_at)));
      }
      const ranged = await call(p, "list_viewings", { from: iso(startA), to: iso(startA + MIN) });
      assert.ok(ranged.items.every((x: { start: string }) => x.start === iso(startA)));
      assert.ok(ranged.items.some((x: { id: string }) => x.id === slotA));
      assert.ok(!ranged.items.some((x: { id: string }) => x.id === slotB));
      assert.equal(ranged.page_size, 24);
      // A full slot: another booking is refused.
      const i2 = await inquiry(w.seeker.userId);
      assert.equal((await fail(s, "book_viewing", { inquiry_id: i2, slot_id: slotA })).code, "conflict");
    });

    const movedStart = startA + 24 * HOUR;
    await t.step("provider moves the slot: viewing.changed moved per booked seeker", async () => {
      const { result: r, events } = await eventsOf(() =>
        call(p, "move_viewing_slot", { slot_id: slotA, start: iso(movedStart), end: iso(movedStart + HOUR) })
      );
      assert.equal(r.bookings_affected, 3);
      assert.equal(r.slot.start, iso(movedStart));
      assert.equal(r.slot.bookings.length, 3);
      assertEvents(events, [
        {
          name: "viewing.changed",
          data: { inquiry_id: i1, listing_id: w.listingId, change: "moved", start: iso(movedStart) },
          seeker: w.seeker.userId,
          apiKeyId: w.provider.keyId,
        },
        {
          name: "viewing.changed",
          data: { inquiry_id: j1, listing_id: w.listingId, change: "moved", start: iso(movedStart) },
          seeker: seeker2.userId,
          apiKeyId: w.provider.keyId,
        },
      ]);
      const row = await db.kysely.selectFrom("viewing_slots").select(["starts_at", "ends_at"])
        .where("id", "=", slotA).executeTakeFirstOrThrow();
      assert.equal(new Date(row.starts_at).toISOString(), iso(movedStart));
      assert.equal(new Date(row.ends_at).toISOString(), iso(movedStart + HOUR));
      for (const i of [i1, j1, k1]) assert.equal((await bookingsOf(i)).at(-1)?.status, "booked");
      const same = await eventsOf(() =>
        call(p, "move_viewing_slot", { slot_id: slotA, start: iso(movedStart), end: iso(movedStart + HOUR) })
      );
      assert.equal(same.result.bookings_affected, 0);
      assert.equal(same.events.length, 0);
      const seen = await call(s, "list_viewing_slots", { listing_id: w.listingId, page_size: 60 });
      assert.equal(seen.items.find((x: { id: string }) => x.id === slotA).start, iso(movedStart));
    });

    await t.step("isolation: foreign, unknown and malformed ids answer the same not_found", async () => {
      const foreign = await call(p2, "create_viewing_slots", {
        listing_id: listing2,
        slots: [{ start: iso(startA), end: iso(startA + HOUR), places: 5 }],
      });
      const slotOf2 = foreign.items[0].id;
      const before = await snapshot();
      const unknown = crypto.randomUUID();
      const attempts: Array<[ConnectedClient, string, Record<string, unknown>]> = [
        // seeker: other seekers' inquiries, unpublished listings, slots of other listings, unknown, malformed
        [s, "list_viewing_slots", { listing_id: draft }],
        [s, "list_viewing_slots", { listing_id: unknown }],
        [s, "list_viewing_slots", { listing_id: "kein-objekt" }],
        [s, "book_viewing", { inquiry_id: j1, slot_id: slotA }],
        [s, "book_viewing", { inquiry_id: i1, slot_id: unknown }],
        [s, "book_viewing", { inquiry_id: i1, slot_id: slotOf2 }],
        [s, "book_viewing", { inquiry_id: unknown, slot_id: slotA }],
        [s, "book_viewing", { inquiry_id: "1 or 1=1", slot_id: slotA }],
        [s, "book_viewing", { inquiry_id: i1, slot_id: "" }],
        [s2, "cancel_viewing", { inquiry_id: i1 }],
        [s, "cancel_viewing", { inquiry_id: unknown }],
        [s, "cancel_viewing", { inquiry_id: "x" }],
        // providers: other offices' listings and slots, unknown, malformed
        [p2, "create_viewing_slots", {
          listing_id: w.listingId,
          slots: [{ start: iso(startA), end: iso(startA + HOUR), places: 1 }],
        }],
        [p, "create_viewing_slots", {
          listing_id: listing2,
          slots: [{ start: iso(startA), end: iso(startA + HOUR), places: 1 }],
        }],
        [p, "create_viewing_slots", {
          listing_id: "abc",
          slots: [{ start: iso(startA), end: iso(startA + HOUR), places: 1 }],
        }],
        [p2, "list_viewings", { listing_id: w.listingId }],
        [p, "list_viewings", { listing_id: unknown }],
        [p, "list_viewings", { listing_id: "../etc" }],
        [p2, "move_viewing_slot", { slot_id: slotA, start: iso(startB), end: iso(startB + HOUR) }],
        [p, "move_viewing_slot", { slot_id: unknown, start: iso(startB), end: iso(startB + HOUR) }],
        [p, "move_viewing_slot", { slot_id: "slot", start: iso(startB), end: iso(startB + HOUR) }],
        [p2, "cancel_viewing_slot", { slot_id: slotA }],
        [p, "cancel_viewing_slot", { slot_id: slotOf2 }],
        [p, "move_viewing_slot", { slot_id: slotOf2, start: iso(startB), end: iso(startB + HOUR) }],
        [p, "cancel_viewing_slot", { slot_id: unknown }],
        [p, "cancel_viewing_slot", { slot_id: `${slotA}x` }],
      ];
      const answers = new Set<string>();
      for (const [c, name, args] of attempts) {
        const r = await fail(c, name, args);
        assert.equal(r.code, "not_found", `${name} ${JSON.stringify(args)}`);
        answers.add(r.content);
      }
      assert.equal(answers.size, 1, "every not_found answer is identical");
      assert.equal(await snapshot(), before, "nothing changed");
      // The second office's own view holds none of office 1's slots.
      const own = await call(p2, "list_viewings", {});
      assert.ok(!own.items.some((x: { id: string }) => x.id === slotA || x.id === slotB));
    });

    await t.step("provider cancels the slot: viewing.changed cancelled, bookings cancelled", async () => {
      const { result: r, events } = await eventsOf(() => call(p, "cancel_viewing_slot", { slot_id: slotA }));
      assert.equal(r.bookings_affected, 3);
      assert.equal(r.slot.status, "cancelled");
      assertEvents(events, [
        {
          name: "viewing.changed",
          data: { inquiry_id: i1, listing_id: w.listingId, change: "cancelled", start: null },
          seeker: w.seeker.userId,
          apiKeyId: w.provider.keyId,
        },
        {
          name: "viewing.changed",
          data: { inquiry_id: j1, listing_id: w.listingId, change: "cancelled", start: null },
          seeker: seeker2.userId,
          apiKeyId: w.provider.keyId,
        },
      ]);
      for (const i of [i1, j1, k1]) assert.equal((await bookingsOf(i)).at(-1)?.status, "cancelled");
      const row = await db.kysely.selectFrom("viewing_slots").select("status").where("id", "=", slotA)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, "cancelled");
      const again = await eventsOf(() => call(p, "cancel_viewing_slot", { slot_id: slotA }));
      assert.equal(again.result.bookings_affected, 0);
      assert.equal(again.events.length, 0);
      const list = await call(s, "list_viewing_slots", { listing_id: w.listingId, page_size: 60 });
      assert.ok(!list.items.some((x: { id: string }) => x.id === slotA), "a cancelled slot is not offered");
      assert.equal((await fail(s, "book_viewing", { inquiry_id: i1, slot_id: slotA })).code, "conflict");
      assert.equal(
        (await fail(p, "move_viewing_slot", { slot_id: slotA, start: iso(startB), end: iso(startB + HOUR) }))
          .code,
        "conflict",
      );
      const listed = await call(p, "list_viewings", { listing_id: w.listingId, page_size: 60 });
      const a = listed.items.find((x: { id: string }) => x.id === slotA);
      assert.deepEqual([a.status, a.booked, a.bookings], ["cancelled", 0, []]);
    });

    await t.step("a slot that has begun cannot be booked", async () => {
      const soon = later(HOUR);
      const r = await call(p, "create_viewing_slots", {
        listing_id: w.listingId,
        slots: [{ start: iso(soon), end: iso(soon + HOUR), places: 2 }],
      });
      w.t.advance(soon - w.t.now());
      const list = await call(s, "list_viewing_slots", { listing_id: w.listingId, page_size: 60 });
      assert.ok(!list.items.some((x: { id: string }) => x.id === r.items[0].id), "only future slots");
      assert.equal(
        (await fail(s, "book_viewing", { inquiry_id: i1, slot_id: r.items[0].id })).code,
        "conflict",
      );
    });
  } finally {
    for (const c of [p, s, s2, p2]) await c.close();
  }
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`${kind}: viewing tools, full flow`, async (t) => {
    await flow(kind, t);
  });
}

Deno.test("the last place goes to exactly one of several concurrent bookings", async () => {
  const key = () => ({ apiKeyId: crypto.randomUUID() });
  const deps = w.t.deps;
  const start = later(5 * 24 * HOUR);
  const created = await act(
    deps,
    officeWho(w.officeId, w.provider.userId, key()),
    (a) => createViewingSlots(a, w.listingId, [{ start: iso(start), end: iso(start + HOUR), places: 2 }]),
  );
  const slotId = created.items[0]!.id;
  const people = await Promise.all(
    Array.from(
      { length: 6 },
      (_, i) => insertUser(db, { email: `rennen${i}@example.org`, name: `R${i}`, role: "seeker" }),
    ),
  );
  const inquiries = await Promise.all(people.map((u) => inquiry(u)));
  const results = await Promise.allSettled(
    people.map((u, i) => act(deps, seekerWho(u, key()), (a) => bookViewing(a, inquiries[i]!, slotId))),
  );
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 2);
  for (const r of results) {
    if (r.status === "rejected") assert.equal((r.reason as { code?: string }).code, "conflict");
  }
  const n = await db.kysely.selectFrom("viewing_bookings").select((eb) => eb.fn.countAll<number>().as("n"))
    .where("slot_id", "=", slotId).where("status", "=", "booked").executeTakeFirstOrThrow();
  assert.equal(Number(n.n), 2);
  const events = (await listOutbox(db, { limit: 100_000, name: "viewing.booked" }))
    .filter((e) => e.data.termin_id === slotId);
  assert.equal(events.length, 2);
});
