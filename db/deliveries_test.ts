/**
 * The outbox hold of event delivery (SQL level, both databases): a drain holds its events until it releases them,
 * another drainer gets nothing meanwhile, a hold that ran out passes to the next drainer with only the deliveries
 * still missing, a renewal or release by a drainer whose hold changed hands does nothing, and an attempt recorded
 * after its delivery was written by another drainer is logged against that row.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { addSubscription, preparePeople, recordInquiries } from "../tests/service_process.ts";
import { openTestDb } from "../tests/helpers.ts";
import {
  type AttemptRecord,
  drainOutbox,
  firstAttemptAgain,
  markDispatched,
  recordAttempts,
  renewHolds,
} from "./deliveries.ts";
import type { ClaimedAttempt } from "./deliveries.ts";
import type { Db } from "./connection.ts";
import { ensureOffice } from "./offices.ts";

const SECRET = `whsec_${btoa("0123456789abcdefghijklmnopqrstuv")}`;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, 0) + ms);
const machine = (ms: number, leaseMs = 15_000) => ({ now: at(ms), leaseUntil: at(ms + leaseMs) });

function delivered(c: ClaimedAttempt, startedMs: number): AttemptRecord {
  return {
    deliveryId: c.deliveryId,
    attempt: 1,
    startedAt: at(startedMs),
    durationMs: 12,
    status: 204,
    errorClass: null,
    outcome: "delivered",
    create: { outboxId: c.outboxId, subscriptionId: c.subscriptionId },
    subscriptionId: c.subscriptionId,
    category: null,
  };
}

async function deliveries(db: Db, outboxId: string) {
  const r = await sql<{ id: string; subscription_id: string; state: string; attempts: number }>`select d.id,
      d.subscription_id, d.state, (select count(*) from event_delivery_attempts a where a.delivery_id = d.id)::int
      as attempts
    from event_deliveries d where d.outbox_id = ${outboxId} order by d.subscription_id`.execute(db.kysely);
  return r.rows;
}

async function outboxRow(db: Db, id: string) {
  return await db.kysely.selectFrom("event_outbox").select(["dispatched_at", "lease_until"]).where(
    "id",
    "=",
    id,
  )
    .executeTakeFirstOrThrow();
}

Deno.test("the outbox hold: one drainer at a time, hand-over after a hold ran out, each delivery written once", async (t) => {
  const tdb = await openTestDb();
  const db = tdb.db;
  try {
    const people = await preparePeople(db);
    const subs = [
      await addSubscription(db, people, "https://hooks.example.org/a", SECRET),
      await addSubscription(db, people, "https://hooks.example.org/b", SECRET),
    ].sort();
    const [eventId] = await recordInquiries(db, people, 1);
    const now = new Date();
    let first: Awaited<ReturnType<typeof drainOutbox>>;

    await t.step(
      "a drain holds the event and returns one first attempt per subscription, writing no delivery",
      async () => {
        first = await drainOutbox(db, { limit: 10, now, machine: machine(0) });
        assert.deepEqual(first.outboxIds, [eventId]);
        assert.deepEqual(first.claimed.map((c) => c.subscriptionId).sort(), subs);
        assert.ok(first.claimed.every((c) => c.isNew && c.attempt === 1 && c.outboxId === eventId));
        assert.deepEqual(await deliveries(db, eventId!), []);
        const row = await outboxRow(db, eventId!);
        assert.equal(row.dispatched_at, null);
        assert.equal(new Date(row.lease_until!).getTime(), at(15_000).getTime());
      },
    );

    await t.step("while it is held, another drainer gets nothing", async () => {
      const other = await drainOutbox(db, { limit: 10, now, machine: machine(14_000) });
      assert.deepEqual(other, { outboxIds: [], claimed: [] });
    });

    await t.step("a first attempt read again has fresh facts while its delivery is unwritten", async () => {
      const sub = first.claimed[0]!.subscriptionId;
      await sql`update event_subscriptions set url = 'https://hooks.example.org/moved' where id = ${sub}`
        .execute(db.kysely);
      const again = await firstAttemptAgain(db, first.claimed[0]!);
      assert.equal(again?.url, "https://hooks.example.org/moved");
      assert.equal(again?.deliveryId, first.claimed[0]!.deliveryId);
      assert.equal(again?.isNew, true);
    });

    await t.step(
      "one first attempt recorded writes its delivery, delivered, with one logged attempt",
      async () => {
        await recordAttempts(db, [delivered(first.claimed[0]!, 100)]);
        const rows = await deliveries(db, eventId!);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.id, first.claimed[0]!.deliveryId);
        assert.equal(rows[0]!.state, "delivered");
        assert.equal(rows[0]!.attempts, 1);
        assert.equal(await firstAttemptAgain(db, first.claimed[0]!), undefined);
      },
    );

    let second: Awaited<ReturnType<typeof drainOutbox>>;
    await t.step(
      "after the hold ran out, the next drainer gets the event with only the missing delivery",
      async () => {
        second = await drainOutbox(db, { limit: 10, now, machine: machine(16_000) });
        assert.deepEqual(second.outboxIds, [eventId]);
        assert.deepEqual(second.claimed.map((c) => c.subscriptionId), [first.claimed[1]!.subscriptionId]);
      },
    );

    await t.step("the first drainer can neither renew nor release a hold that changed hands", async () => {
      assert.deepEqual(await renewHolds(db, [eventId!], at(15_000), machine(16_500)), []);
      await markDispatched(db, [eventId!], at(15_000), now);
      assert.equal((await outboxRow(db, eventId!)).dispatched_at, null);
    });

    await t.step(
      "both drainers record the same delivery: written once, both attempts logged against it",
      async () => {
        await recordAttempts(db, [delivered(second.claimed[0]!, 16_100)]);
        await recordAttempts(db, [delivered(first.claimed[1]!, 16_200)]);
        const rows = await deliveries(db, eventId!);
        assert.equal(rows.length, 2);
        const late = rows.find((r) => r.subscription_id === first.claimed[1]!.subscriptionId)!;
        assert.equal(late.id, second.claimed[0]!.deliveryId);
        assert.equal(late.attempts, 2);
      },
    );

    await t.step(
      "the holder renews its hold and releases the event: dispatched, no longer drained",
      async () => {
        assert.deepEqual(await renewHolds(db, [eventId!], at(31_000), machine(17_000)), [eventId]);
        await markDispatched(db, [eventId!], at(32_000), now);
        const row = await outboxRow(db, eventId!);
        assert.notEqual(row.dispatched_at, null);
        assert.equal(row.lease_until, null);
        assert.deepEqual(await drainOutbox(db, { limit: 10, now, machine: machine(60_000) }), {
          outboxIds: [],
          claimed: [],
        });
      },
    );
  } finally {
    await tdb.close();
  }
});

Deno.test("event rows go with their parents (statement triggers, migration 0016), and no delivery is written for a deleted one", async (t) => {
  const tdb = await openTestDb();
  const db = tdb.db;
  const count = async (
    table: "event_outbox" | "event_deliveries" | "event_delivery_attempts",
    ids: string[],
  ) => {
    const column = table === "event_delivery_attempts" ? "delivery_id" : "id";
    const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}
      where ${sql.ref(column)} = any (${sql.val(ids)}::uuid[])`.execute(db.kysely);
    return r.rows[0]!.n;
  };
  try {
    const people = await preparePeople(db);
    const subs = [
      await addSubscription(db, people, "https://hooks.example.org/a", SECRET),
      await addSubscription(db, people, "https://hooks.example.org/b", SECRET),
    ];
    const events = await recordInquiries(db, people, 2);
    const drained = await drainOutbox(db, { limit: 10, now: new Date(), machine: machine(0) });
    assert.equal(drained.claimed.length, 4);
    const ofEvent = (e: string) => drained.claimed.filter((c) => c.outboxId === e);
    const gone = drained.claimed.find((c) => c.outboxId === events[1] && c.subscriptionId === subs[0])!;
    await recordAttempts(db, drained.claimed.filter((c) => c !== gone).map((c) => delivered(c, 100)));
    const deliveryIds = (cs: ClaimedAttempt[]) => cs.map((c) => c.deliveryId);

    await t.step(
      "a first attempt whose subscription was deleted meanwhile writes neither delivery nor attempt",
      async () => {
        await db.kysely.deleteFrom("event_subscriptions").where("id", "=", subs[0]!).execute();
        await recordAttempts(db, [delivered(gone, 200)]);
        assert.equal(await count("event_deliveries", [gone.deliveryId]), 0);
        assert.equal(await count("event_delivery_attempts", [gone.deliveryId]), 0);
      },
    );

    await t.step(
      "deleting a subscription removed its deliveries and their attempts, not the others",
      async () => {
        const mine = drained.claimed.filter((c) => c.subscriptionId === subs[0]);
        const others = drained.claimed.filter((c) => c.subscriptionId === subs[1]);
        assert.equal(await count("event_deliveries", deliveryIds(mine)), 0);
        assert.equal(await count("event_delivery_attempts", deliveryIds(mine)), 0);
        assert.equal(await count("event_deliveries", deliveryIds(others)), 2);
        assert.equal(await count("event_delivery_attempts", deliveryIds(others)), 2);
      },
    );

    await t.step("deleting an event removes its deliveries and their attempts", async () => {
      await db.kysely.deleteFrom("event_outbox").where("id", "=", events[0]!).execute();
      assert.equal(await count("event_deliveries", deliveryIds(ofEvent(events[0]!))), 0);
      assert.equal(await count("event_delivery_attempts", deliveryIds(ofEvent(events[0]!))), 0);
      assert.equal(await count("event_deliveries", deliveryIds(ofEvent(events[1]!))), 1);
    });

    await t.step(
      "deleting an office removes its events (and with them their deliveries), not those of other offices",
      async () => {
        const officeId = await ensureOffice(db, `Büro ohne Bestand ${crypto.randomUUID().slice(0, 8)}`);
        const [own] = await recordInquiries(db, { ...people, officeId }, 1);
        await db.kysely.deleteFrom("offices").where("id", "=", officeId).execute();
        assert.equal(await count("event_outbox", [own!]), 0);
        assert.equal(await count("event_outbox", [events[1]!]), 1);
      },
    );
  } finally {
    await tdb.close();
  }
});
