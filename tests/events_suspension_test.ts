/**
 * Suspended delivery and its recovery (docs/contract.md §6.1 `deliveryStatus`, §6.4 "Suspension and replay"),
 * through real MCP SDK clients and a receiver that verifies every POST with both Standard Webhooks libraries:
 * - the events/subscribe answer (new, renewal) carries the draft's `deliveryStatus`;
 * - when the fourth attempt of a delivery fails, delivery is suspended: new events are kept, nothing is sent;
 * - the renewal reports `active: false` with the category and since when, and has reactivated delivery: the missed
 *   events arrive once each, in event order, each with its event id as `webhook-id`;
 * - events older than 24 hours are not sent again (the service's clock is moved).
 * The inquiries come from the seeker's `send_inquiry` tool; the test schedule is 0, 300, 600, 900 ms.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "../db/connection.ts";
import { attemptLog } from "../db/delivery_log.ts";
import { eventIdOf } from "../db/outbox.ts";
import {
  connectApp,
  type ConnectedApp,
  type EventsWorld,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import type { ReceivedDelivery } from "./webhook_receiver.ts";

const HOUR = 60 * 60_000;
const BOTH = { standardwebhooks: true, svix: true };

/** The event id of the `inquiry.received` of inquiry `inquiryId`. */
async function eventOfInquiry(db: Db, inquiryId: string): Promise<string> {
  const r = await sql<{ id: string }>`select id from event_outbox
    where name = 'inquiry.received' and data->>'anfrage_id' = ${inquiryId}`.execute(db.kysely);
  assert.equal(r.rows.length, 1, `one inquiry.received for ${inquiryId}`);
  return eventIdOf(r.rows[0]!.id);
}

/** The subscription row's delivery columns. */
async function subRow(db: Db, id: string) {
  const r = await sql<Record<string, Date | string | null>>`select suspended_at, last_delivery_at,
      last_failure_at, last_error, failing_since from event_subscriptions where id = ${id}`.execute(
    db.kysely,
  );
  return r.rows[0]!;
}

/** The state of the delivery of `eventId` to subscription `subscriptionId`. */
async function deliveryState(db: Db, subscriptionId: string, eventId: string): Promise<string | undefined> {
  const r = await sql<{ state: string }>`select state from event_deliveries
    where subscription_id = ${subscriptionId} and outbox_id = ${eventId.slice(4)}::uuid`.execute(db.kysely);
  return r.rows[0]?.state;
}

/** Sends an inquiry as the seeker; returns its event id. */
async function inquire(w: EventsWorld, seeker: ConnectedApp, text: string): Promise<string> {
  const sent = await seeker.callTool("send_inquiry", { listing_id: w.listingId, message: text });
  assert.notEqual(sent.isError, true, JSON.stringify(sent.content));
  return await eventOfInquiry(w.tdb.db, sent.structuredContent?.inquiry_id as string);
}

const idOf = (d: ReceivedDelivery) => d.headers["webhook-id"];

Deno.test("suspension: four failed attempts suspend, the renewal reactivates and replays in order", async (t) => {
  let failing = false;
  const w = await eventsWorld({
    receivers: [{ respond: () => new Response(null, { status: failing ? 500 : 204 }) }],
  });
  const rx = w.receivers[0]!;
  const apps: ConnectedApp[] = [];
  try {
    const db = w.tdb.db;
    const secret = newSecret();
    w.secrets[0]!.push(secret);
    const provider = await connectApp(w, w.provider.email, "v2-modern");
    const seeker = await connectApp(w, w.seeker.email, "v2-legacy");
    apps.push(provider, seeker);
    const params = subscribeParams("inquiry.received", rx.url, secret);
    let subId = "";

    await t.step("a new subscription is active and has delivered nothing", async () => {
      const r = await provider.call("events/subscribe", params);
      subId = r.id as string;
      assert.deepEqual(r.deliveryStatus, { active: true, lastDeliveryAt: null, lastError: null });
      assert.equal(r.cursor, null);
      assert.equal(r.truncated, false);
    });

    let lastDeliveryAt = "";
    await t.step("a delivered event: the renewal reports when, and no error", async () => {
      const before = new Date();
      const e = await inquire(w, seeker, "Noch frei? (1)");
      await until(() => rx.deliveries.some((d) => idOf(d) === e), 15_000, "the first event");
      await until(async () => (await subRow(db, subId)).last_delivery_at !== null, 15_000, "noted");
      const r = await provider.call("events/subscribe", params);
      assert.equal(r.id, subId);
      const s = r.deliveryStatus as Record<string, unknown>;
      assert.deepEqual(Object.keys(s).sort(), ["active", "lastDeliveryAt", "lastError"]);
      assert.equal(s.active, true);
      assert.equal(s.lastError, null);
      lastDeliveryAt = s.lastDeliveryAt as string;
      const at = Date.parse(lastDeliveryAt);
      assert.ok(at >= before.getTime() && at <= Date.now(), lastDeliveryAt);
    });

    const missed: string[] = [];
    await t.step("the fourth failed attempt suspends delivery; new events are kept, not sent", async () => {
      failing = true;
      const e0 = await inquire(w, seeker, "Noch frei? (2)");
      missed.push(e0);
      await until(() => rx.deliveries.filter((d) => idOf(d) === e0).length === 4, 15_000, "four attempts");
      await until(async () => (await subRow(db, subId)).suspended_at !== null, 15_000, "suspended");
      const log = await attemptLog(db, { outboxId: e0.slice(4) }, 10);
      assert.deepEqual(log.map((l) => [l.attempt, l.status, l.outcome]), [
        [1, 500, "retry"],
        [2, 500, "retry"],
        [3, 500, "retry"],
        [4, 500, "failed"],
      ]);
      assert.equal(await deliveryState(db, subId, e0), "held", "the failed event is kept for the replay");
      const posts = rx.deliveries.length;
      for (const text of ["Noch frei? (3)", "Noch frei? (4)"]) missed.push(await inquire(w, seeker, text));
      for (const e of missed.slice(1)) {
        await until(async () => await deliveryState(db, subId, e) === "held", 15_000, `${e} kept`);
        assert.deepEqual(await attemptLog(db, { outboxId: e.slice(4) }, 10), [], "no attempt made");
      }
      assert.equal(rx.deliveries.length, posts, "nothing was sent while suspended");
      const row = await subRow(db, subId);
      assert.equal(row.last_error, "http_5xx");
    });

    await t.step(
      "the renewal reports active: false and reactivates: each missed event once, in order",
      async () => {
        failing = false;
        const row = await subRow(db, subId);
        const posts = rx.deliveries.length;
        const r = await provider.call("events/subscribe", params);
        assert.equal(r.id, subId);
        assert.deepEqual(r.deliveryStatus, {
          active: false,
          lastDeliveryAt,
          lastError: "http_5xx",
          failedSince: new Date(row.failing_since as string).toISOString(),
        });
        const failedSince = Date.parse((r.deliveryStatus as { failedSince: string }).failedSince);
        assert.ok(failedSince > Date.parse(lastDeliveryAt), "failing since after the last delivery");
        assert.ok(failedSince <= new Date(row.suspended_at as string).getTime());
        await until(() => rx.deliveries.length >= posts + missed.length, 15_000, "the replay");
        await until(
          async () =>
            (await Promise.all(missed.map((e) => deliveryState(db, subId, e)))).every((s) =>
              s === "delivered"
            ),
          15_000,
          "all delivered",
        );
        const replayed = rx.deliveries.slice(posts);
        assert.deepEqual(replayed.map(idOf), missed, "each once, in event order");
        for (const d of replayed) {
          assert.deepEqual(d.verified, BOTH);
          assert.equal((d.json as { eventId: string }).eventId, idOf(d));
          assert.equal(d.headers["x-mcp-subscription-id"], subId);
        }
        assert.equal((await subRow(db, subId)).suspended_at, null);
      },
    );

    await t.step("the next renewal: active, no error, the replay's delivery time", async () => {
      await until(
        async () => {
          const s = await subRow(db, subId);
          return new Date(s.last_delivery_at as string) > new Date(s.last_failure_at as string);
        },
        15_000,
        "the replay noted",
      );
      const r = await provider.call("events/subscribe", params);
      const s = r.deliveryStatus as Record<string, unknown>;
      assert.deepEqual(Object.keys(s).sort(), ["active", "lastDeliveryAt", "lastError"]);
      assert.equal(s.active, true);
      assert.equal(s.lastError, null);
      assert.ok(Date.parse(s.lastDeliveryAt as string) > Date.parse(lastDeliveryAt));
    });
  } finally {
    for (const app of apps) await app.close().catch(() => {});
    await w.close();
  }
});

Deno.test("suspension: a reactivation sends no event older than 24 hours", async (t) => {
  let failing = true;
  const w = await eventsWorld({
    receivers: [{ respond: () => new Response(null, { status: failing ? 503 : 204 }) }],
  });
  const rx = w.receivers[0]!;
  const apps: ConnectedApp[] = [];
  try {
    const db = w.tdb.db;
    const secret = newSecret();
    w.secrets[0]!.push(secret);
    const provider = await connectApp(w, w.provider.email, "v2-legacy");
    const seeker = await connectApp(w, w.seeker.email, "v2-modern");
    apps.push(provider, seeker);
    const params = subscribeParams("inquiry.received", rx.url, secret);
    const sub = await provider.call("events/subscribe", params);
    const subId = sub.id as string;

    const old = await inquire(w, seeker, "Noch frei? (alt)");
    await until(
      async () => await deliveryState(db, subId, old) === "held",
      15_000,
      "suspended, the event kept",
    );
    w.t.advance(13 * HOUR);
    const kept = await inquire(w, seeker, "Noch frei? (später)");
    await until(async () => await deliveryState(db, subId, kept) === "held", 15_000, "kept while suspended");

    await t.step("25 hours after the first event: the renewal sends the later one only", async () => {
      w.t.advance(12 * HOUR);
      failing = false;
      const posts = rx.deliveries.length;
      const r = await provider.call("events/subscribe", params);
      assert.equal(r.id, subId, "the expired subscription is renewed (same id)");
      assert.equal((r.deliveryStatus as { active: boolean }).active, false);
      assert.equal((r.deliveryStatus as { lastError: string }).lastError, "http_5xx");
      await until(async () => await deliveryState(db, subId, kept) === "delivered", 15_000, "replayed");
      assert.deepEqual(rx.deliveries.slice(posts).map(idOf), [kept]);
      assert.equal(await deliveryState(db, subId, old), "dropped", "older than 24 hours: not sent again");
      assert.equal(rx.deliveries.filter((d) => idOf(d) === old).length, 4, "only its four attempts");
    });
  } finally {
    for (const app of apps) await app.close().catch(() => {});
    await w.close();
  }
});
