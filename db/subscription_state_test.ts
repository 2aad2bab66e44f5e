/**
 * A subscription's delivery state at the SQL level (both databases), with explicit machine times: what recorded
 * attempts note (last delivery at most about once a second, the last failure's category, failing since the first
 * failure after the last success, in whatever order they are noted; the suspension keeps its event), keeping an
 * event for a suspended subscription (due at once when it was reactivated meanwhile), and events sent again: per
 * subscription only the earliest in event order, one at a time, at most one start per pace gap.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { addSubscription, preparePeople, recordInquiries } from "../tests/service_process.ts";
import { openTestDb } from "../tests/helpers.ts";
import type { Db } from "./connection.ts";
import {
  type AttemptNote,
  claimReplay,
  deliveryState,
  dueReplays,
  keepDelivery,
  noteDeliveryState,
  sendAgain,
  unsuspend,
} from "./subscription_state.ts";

const SECRET = `whsec_${btoa("0123456789abcdefghijklmnopqrstuv")}`;
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const at = (ms: number) => new Date(T0 + ms);

/** Inserts a delivery of `outboxId` to `subscriptionId` in `state` (attempt `n` next); returns its id. */
async function delivery(db: Db, outboxId: string, subscriptionId: string, state: string, createdMs = 0) {
  const id = crypto.randomUUID();
  await sql`insert into event_deliveries (id, outbox_id, subscription_id, state, next_attempt, next_attempt_at,
      created_at) values (${id}::uuid, ${outboxId}::uuid, ${subscriptionId}, ${state}, 4, ${at(0)},
      ${at(createdMs)})`.execute(db.kysely);
  return id;
}

async function stateOf(db: Db, id: string) {
  const r = await sql<
    { state: string; next_attempt: number }
  >`select state, next_attempt from event_deliveries
    where id = ${id}::uuid`.execute(db.kysely);
  return r.rows[0];
}

Deno.test("delivery state of a subscription, kept events and events sent again (SQL)", async (t) => {
  const tdb = await openTestDb();
  const db = tdb.db;
  try {
    const people = await preparePeople(db);
    const sub = await addSubscription(db, people, "https://hooks.example.org/a", SECRET);
    const [e1, e2, e3] = await recordInquiries(db, people, 3);
    for (const [i, e] of [e1, e2, e3].entries()) {
      await sql`update event_outbox set created_at = ${at(i)} where id = ${e}::uuid`.execute(db.kysely);
    }
    const note = (ms: number, ok: boolean, extra: Partial<AttemptNote> = {}): AttemptNote => ({
      subscriptionId: sub,
      deliveryId: crypto.randomUUID(),
      at: at(ms),
      ok,
      category: ok ? null : "http_5xx",
      suspend: false,
      ...extra,
    });
    const state = async () => (await deliveryState(db.kysely, sub))!;

    await t.step("a success is noted; another within a second is not written", async () => {
      await noteDeliveryState(db, [note(1_000, true)]);
      assert.equal((await state()).lastDeliveryAt?.getTime(), at(1_000).getTime());
      await noteDeliveryState(db, [note(1_500, true)]);
      assert.equal((await state()).lastDeliveryAt?.getTime(), at(1_000).getTime());
      await noteDeliveryState(db, [note(2_100, true)]);
      assert.equal((await state()).lastDeliveryAt?.getTime(), at(2_100).getTime());
    });

    await t.step(
      "failures: the newest category, failing since the first after the last success",
      async () => {
        await noteDeliveryState(db, [note(5_000, false, { category: "timeout" })]);
        await noteDeliveryState(db, [note(3_000, false, { category: "connection_refused" })]);
        const s = await state();
        assert.equal(s.lastFailureAt?.getTime(), at(5_000).getTime());
        assert.equal(s.lastError, "timeout", "a failure noted late does not replace a newer one");
        assert.equal(s.failingSince?.getTime(), at(3_000).getTime());
        assert.equal(s.suspendedAt, null);
      },
    );

    await t.step("a success after a failure is written at once, even within the second", async () => {
      await noteDeliveryState(db, [note(5_500, true)]);
      const s = await state();
      assert.equal(s.lastDeliveryAt?.getTime(), at(5_500).getTime());
      await noteDeliveryState(db, [note(6_000, false, { category: "http_4xx" })]);
      assert.equal((await state()).failingSince?.getTime(), at(6_000).getTime(), "a new streak");
    });

    const held: string[] = [];
    await t.step("the suspension: the failed delivery is kept, the subscription suspended", async () => {
      const d1 = await delivery(db, e1!, sub, "failed", 1);
      await noteDeliveryState(db, [note(7_000, false, { deliveryId: d1, suspend: true })]);
      const s = await state();
      assert.equal(s.suspendedAt?.getTime(), at(7_000).getTime());
      assert.equal(s.failingSince?.getTime(), at(6_000).getTime());
      assert.equal((await stateOf(db, d1))?.state, "held");
      held.push(d1);
    });

    await t.step("keeping: held while suspended; due at once when reactivated meanwhile", async () => {
      const c = { deliveryId: crypto.randomUUID(), isNew: true, outboxId: e2!, subscriptionId: sub };
      assert.equal(await keepDelivery(db, c, at(8_000)), "held");
      held.push(c.deliveryId);
      const d3 = await delivery(db, e3!, sub, "sending", 3);
      await db.kysely.transaction().execute((tx) => unsuspend(tx, sub));
      const c3 = { deliveryId: d3, isNew: false, outboxId: e3!, subscriptionId: sub };
      assert.equal(await keepDelivery(db, c3, at(8_000)), "pending");
      await sql`update event_deliveries set state = 'held' where id = ${d3}::uuid`.execute(db.kysely);
      held.push(d3);
    });

    await t.step("sent again: one at a time in event order, one start per pace gap", async () => {
      const n = await db.kysely.transaction().execute((tx) =>
        sendAgain(tx, sub, { states: ["held"], since: at(-3_600_000) }, at(10_000))
      );
      assert.equal(n, 3);
      for (const id of held) assert.deepEqual(await stateOf(db, id), { state: "pending", next_attempt: 1 });
      assert.deepEqual(await dueReplays(db, at(9_999), 10), [], "not due before their time");
      assert.deepEqual(await dueReplays(db, at(10_000), 10), [{ id: held[0], attempt: 1 }]);
      const lease = (ms: number) => ({ now: at(ms), leaseUntil: at(ms + 15_000) });
      const first = await claimReplay(db, held[0]!, lease(10_000), 100);
      assert.equal(first?.deliveryId, held[0]);
      assert.deepEqual(await dueReplays(db, at(10_200), 10), [], "none while the first is being sent");
      await sql`update event_deliveries set state = 'delivered' where id = ${held[0]}::uuid`.execute(
        db.kysely,
      );
      assert.deepEqual(await dueReplays(db, at(10_050), 10), [], "the pace: not within 100 ms");
      assert.equal(await claimReplay(db, held[1]!, lease(10_050), 100), undefined);
      assert.deepEqual(await dueReplays(db, at(10_100), 10), [{ id: held[1], attempt: 1 }]);
      assert.equal((await claimReplay(db, held[1]!, lease(10_100), 100))?.deliveryId, held[1]);
    });
  } finally {
    await tdb.close();
  }
});
