/**
 * The event calls of docs/contract.md §6.1 that succeed, through real MCP clients of both protocol eras connected
 * over a real OAuth connection (an "app"), with a real HTTPS receiver and the real database: the advertised
 * capability, events/list, subscribing (one signed challenge first), the TTL clamps, renewal, secret rotation,
 * verification again after 24 hours, the limit of 50, the user's switch and unsubscribing. The refusals are in
 * events_refusals_test.ts and events_verification_test.ts.
 */
import assert from "node:assert/strict";
import { attemptLog } from "../db/delivery_log.ts";
import { insertOptOut, subscriptionById } from "../db/subscriptions.ts";
import { EVENT_DATA, EVENT_FILTERS, EVENT_SERVER, type EventName, eventsOf } from "../events/catalogue.ts";
import { ROTATION_OVERLAP_MS } from "../events/webhook_message.ts";
import { MAX_SUBSCRIPTIONS } from "../events/subscriptions.ts";
import { type ConnectedApp, newSecret, subscribeParams, until } from "./events_support.ts";
import {
  callsWorld,
  DAY,
  discoverRequest,
  eraTest,
  HOUR,
  iso,
  type Json,
  MESSAGE,
  R,
  withoutMeta,
} from "./events_calls_support.ts";
import { fileWorld } from "./helpers.ts";
import { initializeRequest, rawMcpPost, rpcMessages } from "./mcp_helpers.ts";

const w = await fileWorld(callsWorld);
const db = w.tdb.db;
const main = w.main;

eraTest(w, "capabilities.events is advertised (raw initialize / server/discover)", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const seekA = await c.app(w.seeker.email, era);
  for (const [who, token] of [["provider", provA.accessToken], ["seeker", seekA.accessToken]]) {
    const res = era === "v2-legacy"
      ? await rawMcpPost(w.resource, token, initializeRequest("2025-06-18"))
      : await rawMcpPost(w.resource, token, discoverRequest(), {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "server/discover",
      });
    assert.equal(res.status, 200, who);
    const [msg] = await rpcMessages(res) as Json[];
    assert.deepEqual(
      msg.result?.capabilities?.events,
      { listChanged: false },
      `${who}: ${JSON.stringify(msg)}`,
    );
  }
});

eraTest(w, "events/list lists exactly the server's events with schemas from the code", async (c, era) => {
  const cases: Array<[string, ConnectedApp, "anbieter" | "suche", number]> = [
    ["provider (OAuth)", await c.app(w.provider.email, era), "anbieter", 8],
    ["seeker (OAuth)", await c.app(w.seeker.email, era), "suche", 3],
    ["provider (API key)", await c.keyApp(w.providerKey, era), "anbieter", 8],
    ["seeker (API key)", await c.keyApp(w.seekerKey, era), "suche", 3],
  ];
  for (const [who, app, server, n] of cases) {
    const { events } = await app.call("events/list", {}) as { events: Json[] };
    assert.equal(events.length, n, who);
    assert.deepEqual(events.map((e) => e.name).sort(), eventsOf(server).sort(), who);
    for (const e of events) {
      const name = e.name as EventName;
      assert.equal(EVENT_SERVER[name], server);
      assert.deepEqual(
        Object.keys(e).sort(),
        ["delivery", "description", "inputSchema", "name", "payloadSchema"],
        `${who} ${name}`,
      );
      assert.equal(typeof e.description, "string");
      assert.ok(e.description.length > 20, `${who} ${name}: description`);
      assert.deepEqual(e.delivery, ["webhook"], `${who} ${name}`);
      assert.equal(e.inputSchema.type, "object", `${who} ${name}`);
      assert.equal(e.payloadSchema.type, "object", `${who} ${name}`);
      assert.deepEqual(
        Object.keys(e.inputSchema.properties ?? {}).sort(),
        Object.keys(EVENT_FILTERS[name].shape).sort(),
        `${who} ${name}: inputSchema keys = filter keys`,
      );
      assert.deepEqual(
        Object.keys(e.payloadSchema.properties).sort(),
        Object.keys(EVENT_DATA[name].shape).sort(),
        `${who} ${name}: payloadSchema keys = data fields`,
      );
      // Every filter names a field of the data (docs/contract.md §6.6, §6.7 "Filters").
      for (const k of Object.keys(e.inputSchema.properties ?? {})) {
        assert.ok(k in e.payloadSchema.properties, `${who} ${name}: filter ${k} is a data field`);
      }
      // Data fields are all required; filters all optional.
      assert.deepEqual(
        [...(e.payloadSchema.required ?? [])].sort(),
        Object.keys(EVENT_DATA[name].shape).sort(),
      );
      assert.deepEqual(e.inputSchema.required ?? [], [], `${who} ${name}: filters optional`);
    }
  }
});

eraTest(
  w,
  "subscribe sends one signed challenge first, then answers with the id and deliveryStatus",
  async (c, era) => {
    const provA = await c.app(w.provider.email, era);
    const s1 = newSecret();
    w.trust(s1);
    const before = await w.counts();
    const challenges = main.challenges.length;
    const now = w.t.now();
    const r = await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s1));
    assert.deepEqual(Object.keys(withoutMeta(r)).sort(), [
      "cursor",
      "deliveryStatus",
      "id",
      "refreshBefore",
      "truncated",
    ]);
    assert.match(r.id as string, /^sub_[a-z2-7]{26}$/);
    assert.equal(r.refreshBefore, iso(now + DAY));
    assert.equal(r.cursor, null);
    assert.equal(r.truncated, false);
    // The draft's deliveryStatus: a new subscription is active and has delivered nothing yet.
    assert.deepEqual(r.deliveryStatus, { active: true, lastDeliveryAt: null, lastError: null });
    const subId = r.id as string;
    assert.deepEqual(await w.counts(), { subs: before.subs + 1, verifications: before.verifications + 1 });

    // Exactly one challenge came first, signed with the secret (both receiver libraries agree).
    assert.equal(main.challenges.length, challenges + 1);
    const ch = main.challenges.at(-1)!;
    assert.deepEqual(ch.verified, { standardwebhooks: true, svix: true });
    assert.equal((ch.json as Json).type, "verification");
    assert.equal(typeof (ch.json as Json).challenge, "string");
    assert.ok((ch.json as Json).challenge.length >= 16);
    assert.match(ch.headers["webhook-id"]!, /^msg_verification_/);
    assert.match(ch.headers["user-agent"]!, /-mcp-events$/);

    const row = await subscriptionById(db.kysely, subId);
    assert.equal(row?.userId, w.provider.userId);
    assert.equal(row?.clientId, provA.clientId);
    assert.equal(row?.officeId, w.officeId);
    assert.equal(row?.url, main.url);
    assert.deepEqual(row?.arguments, {});
    assert.equal(row?.expiresAt.getTime(), now + DAY);
    assert.equal(await w.t.deps.events.box!.open(row!.secretEnc), s1);
    assert.notEqual(row?.secretEnc, s1, "the secret is not stored in clear");
  },
);

eraTest(
  w,
  "ttlMs is a suggestion clamped to 10 minutes … 24 hours; null or a non-number gets 24 hours",
  async (c, era) => {
    const provA = await c.app(w.provider.email, era);
    const s1 = newSecret();
    w.trust(s1);
    const before = await w.counts();
    const challenges = main.challenges.length;
    const now = w.t.now();
    const first = await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s1));
    // Same address: no new challenge.
    const short = await provA.call(
      "events/subscribe",
      subscribeParams("message.received", main.url, s1, {}, { ttlMs: 1000 }),
    );
    assert.equal(short.refreshBefore, iso(now + 10 * 60_000));
    const long = await provA.call(
      "events/subscribe",
      subscribeParams("viewing.booked", main.url, s1, {}, { ttlMs: 10 * DAY }),
    );
    assert.equal(long.refreshBefore, iso(now + DAY));
    // Within the bounds the suggestion is granted as asked; null (the draft's "no expiry") or a non-number gets the
    // default 24 hours.
    const hour = await provA.call(
      "events/subscribe",
      subscribeParams("viewing.cancelled", main.url, s1, {}, { ttlMs: HOUR }),
    );
    assert.equal(hour.refreshBefore, iso(now + HOUR));
    for (const ttlMs of [null, "3600000", -5]) {
      const r2 = await provA.call(
        "events/subscribe",
        subscribeParams("viewing.cancelled", main.url, s1, {}, { ttlMs }),
      );
      assert.equal(r2.id, hour.id, "a renewal");
      assert.equal(r2.refreshBefore, iso(now + (ttlMs === -5 ? 10 * 60_000 : DAY)), String(ttlMs));
    }
    await provA.call("events/unsubscribe", {
      name: "viewing.cancelled",
      arguments: {},
      delivery: { url: main.url },
    });
    assert.notEqual(short.id, first.id);
    assert.notEqual(long.id, short.id);
    assert.equal(main.challenges.length, challenges + 1, "a verified address is not challenged again");
    assert.equal((await w.counts()).subs, before.subs + 4, "three live, one unsubscribed");
  },
);

eraTest(
  w,
  "renewal: same event, filter and address keep the id, send no challenge and move the expiry",
  async (c, era) => {
    const provA = await c.app(w.provider.email, era);
    const s1 = newSecret();
    w.trust(s1);
    const before = await w.counts();
    const challenges = main.challenges.length;
    const subId =
      (await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s1))).id;

    w.t.advance(HOUR);
    const renewed = await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s1));
    assert.equal(renewed.id, subId);
    assert.equal(renewed.refreshBefore, iso(w.t.now() + DAY));
    assert.deepEqual(renewed.deliveryStatus, { active: true, lastDeliveryAt: null, lastError: null });
    assert.equal(main.challenges.length, challenges + 1, "renewal within 24 h sends no challenge");
    assert.equal((await w.counts()).subs, before.subs + 1, "a renewal adds no subscription");
    const again = await subscriptionById(db.kysely, subId as string);
    assert.equal(again?.previousSecretEnc, null, "same secret: no rotation");
    assert.equal(again?.previousSecretUntil, null);
    // Another filter is another subscription.
    const filtered = await provA.call(
      "events/subscribe",
      subscribeParams("inquiry.received", main.url, s1, { objekt_id: w.listingId }),
    );
    assert.notEqual(filtered.id, subId);
  },
);

eraTest(w, "renewal with a new secret rotates: the old one signs 15 more minutes", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const s1 = newSecret();
  const s2 = newSecret(48);
  w.trust(s1);
  w.trust(s2);
  const subId = (await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s1))).id;
  const challenges = main.challenges.length;
  const before = await subscriptionById(db.kysely, subId as string);
  const now = w.t.now();
  const r = await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s2));
  assert.equal(r.id, subId);
  assert.equal(main.challenges.length, challenges, "no challenge (verified within 24 h)");
  const row = await subscriptionById(db.kysely, subId as string);
  const box = w.t.deps.events.box!;
  assert.equal(await box.open(row!.secretEnc), s2);
  assert.equal(row!.previousSecretEnc, before!.secretEnc);
  assert.equal(await box.open(row!.previousSecretEnc!), s1);
  assert.equal(row!.previousSecretUntil?.getTime(), now + ROTATION_OVERLAP_MS);
  assert.equal(ROTATION_OVERLAP_MS, 15 * 60_000);
  assert.equal(row!.expiresAt.getTime(), now + DAY);
});

eraTest(
  w,
  "a verification older than 24 hours is made again on renewal, signed with the current secret",
  async (c, era) => {
    const provA = await c.app(w.provider.email, era);
    const s1 = newSecret();
    const s2 = newSecret(48);
    w.trust(s1);
    w.trust(s2);
    const subId =
      (await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s1))).id;
    const challenges = main.challenges.length;

    w.t.advance(DAY + 1);
    w.secrets[R.main] = w.secrets[R.main]!.filter((s) => s !== s1);
    const later = await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s2));
    assert.equal(later.id, subId);
    assert.equal(later.refreshBefore, iso(w.t.now() + DAY));
    assert.equal(main.challenges.length, challenges + 1, "verified again after 24 h");
    assert.deepEqual(main.challenges.at(-1)!.verified, { standardwebhooks: true, svix: true });
    const verified = await db.kysely.selectFrom("webhook_verifications").select("verified_at")
      .where("user_id", "=", w.provider.userId).where("client_id", "=", provA.clientId)
      .where("url", "=", main.url).executeTakeFirstOrThrow();
    assert.equal(new Date(verified.verified_at as unknown as string).getTime(), w.t.now());
  },
);

eraTest(w, "51st subscription of a person and app: -32013; another app still can", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const app = await c.app(w.provider.email, era);
  const s = newSecret();
  w.trust(s);
  const url = `${main.url}?limit=${era}`;
  const ids: string[] = [];
  for (const listing of w.ownListings) {
    const r = await app.call(
      "events/subscribe",
      subscribeParams("inquiry.received", url, s, { objekt_id: listing }),
    );
    ids.push(r.id as string);
  }
  assert.equal(new Set(ids).size, MAX_SUBSCRIPTIONS);
  const limit = { limit: "subscriptions", max: 50 };
  await w.refused(app, subscribeParams("inquiry.received", url, s), -32013, limit, "51st");
  await w.refused(app, subscribeParams("viewing.upcoming", url, s), -32013, limit, "51st, other event");
  // At the limit a renewal still works (it takes no new slot).
  const renewed = await app.call(
    "events/subscribe",
    subscribeParams("inquiry.received", url, s, { objekt_id: w.ownListings[0]! }),
  );
  assert.equal(renewed.id, ids[0]);
  // Another app of the same person has its own 50.
  const other = await provA.call("events/subscribe", subscribeParams("viewing.upcoming", url, s));
  assert.match(other.id as string, /^sub_/);
  // Ending one frees a slot.
  assert.deepEqual(
    withoutMeta(
      await app.call("events/unsubscribe", {
        name: "inquiry.received",
        arguments: { objekt_id: w.ownListings[1]! },
        delivery: { url },
      }),
    ),
    {},
  );
  const freed = await app.call("events/subscribe", subscribeParams("inquiry.received", url, s));
  assert.match(freed.id as string, /^sub_/);
});

eraTest(
  w,
  "switched off by the user: -32012 ended_by_user on renewal and on a new subscribe",
  async (c, era) => {
    const provA = await c.app(w.provider.email, era);
    const app = await c.app(w.provider.email, era);
    const s = newSecret();
    w.trust(s);
    const first = await app.call("events/subscribe", subscribeParams("viewing.booked", main.url, s));
    assert.match(first.id as string, /^sub_/);
    await insertOptOut(db.kysely, w.provider.userId, app.clientId, "viewing.booked", new Date(w.t.now()));
    const ended = { reason: "ended_by_user" };
    await w.refused(app, subscribeParams("viewing.booked", main.url, s), -32012, ended, "renewal");
    await w.refused(
      app,
      subscribeParams("viewing.booked", main.url, s, { objekt_id: w.listingId }),
      -32012,
      ended,
      "new subscribe",
    );
    // Only that event of that app is switched off.
    const otherEvent = await app.call("events/subscribe", subscribeParams("viewing.cancelled", main.url, s));
    assert.match(otherEvent.id as string, /^sub_/);
    const otherApp = await provA.call("events/subscribe", subscribeParams("viewing.booked", main.url, s));
    assert.match(otherApp.id as string, /^sub_/);
  },
);

eraTest(w, "unsubscribe ends the subscription; again → -32011 subscription", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const seekA = await c.app(w.seeker.email, era);
  const s = newSecret();
  w.trust(s);
  const filter = { objekt_id: w.listingId };
  const gone = `${main.url}?unsubscribed=${era}`;
  const control = `${main.url}?control=${era}`;
  const a = await provA.call("events/subscribe", subscribeParams("inquiry.received", gone, s, filter));
  const b = await provA.call("events/subscribe", subscribeParams("inquiry.received", control, s, filter));
  const params = { name: "inquiry.received", arguments: filter, delivery: { url: gone } };
  assert.deepEqual(withoutMeta(await provA.call("events/unsubscribe", params)), {});
  const row = await subscriptionById(db.kysely, a.id as string);
  assert.equal(row?.endedAt?.getTime(), w.t.now());
  assert.equal(row?.endReason, "unsubscribed");

  // A later event reaches the control subscription only.
  const from = main.deliveries.length;
  const sent = await seekA.callTool("send_inquiry", { listing_id: w.listingId, message: MESSAGE });
  const inquiryId = sent.structuredContent.inquiry_id as string;
  const mine = (id: unknown) =>
    main.deliveries.slice(from).filter((d) =>
      d.headers["x-mcp-subscription-id"] === id && (d.json as Json)?.data?.anfrage_id === inquiryId
    );
  await until(() => mine(b.id).length > 0, 10_000, "delivery to the control subscription");
  assert.deepEqual(mine(b.id)[0]!.verified, { standardwebhooks: true, svix: true });
  // The drain fans out in one go: the ended subscription got no delivery row at all.
  assert.deepEqual(mine(a.id), []);
  assert.deepEqual(await attemptLog(db, { subscriptionId: a.id as string }, 10), []);

  const err = await provA.fail("events/unsubscribe", params);
  assert.deepEqual({ code: err.code, data: err.data }, { code: -32011, data: { kind: "subscription" } });
  const never = await seekA.fail("events/unsubscribe", {
    name: "reply.received",
    arguments: {},
    delivery: { url: gone },
  });
  assert.deepEqual({ code: never.code, data: never.data }, { code: -32011, data: { kind: "subscription" } });
  const wrongServer = await seekA.fail("events/unsubscribe", params);
  assert.deepEqual({ code: wrongServer.code, data: wrongServer.data }, {
    code: -32011,
    data: { kind: "event" },
  });
});
