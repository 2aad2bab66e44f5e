/**
 * Event delivery end to end (docs/contract.md §5, §6.4–§6.5): real MCP clients connected over OAuth cause the 8 built events
 * through their tools (or the reminder / saved-search runs), and real HTTPS receivers check every delivery with
 * `standardwebhooks` AND `svix`. Covers the exact headers and body of §6.3, the exact `data` fields of each event,
 * filters, "not sent back to the app that caused it", revocation before an attempt (consent, right, membership)
 * with exactly one signed `terminated` control message, and the 15-minute secret rotation window.
 *
 * One world, one receiver: every subscription gets its own path on it (so its own address and subscription) and
 * its own secret; deliveries are told apart by `x-mcp-subscription-id`. "Not delivered" is checked without
 * waiting: once an event's outbox row is dispatched, its delivery rows exist; once they are all finished, no more
 * POSTs for it will come.
 */
import assert from "node:assert/strict";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { createPerson } from "../auth/accounts.ts";
import { disconnectApp } from "../auth/connections.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { endMembership, setRole, startMembership } from "../db/accounts.ts";
import { attemptLog } from "../db/delivery_log.ts";
import { insertListings } from "../db/listings.ts";
import { listOutbox, type OutboxRow } from "../db/outbox.ts";
import { EVENT_DATA, type EventName } from "../events/catalogue.ts";
import { runSavedSearches } from "../searches/saved_searches.ts";
import { runViewingReminders } from "../viewings/reminders.ts";
import {
  connectApp,
  type ConnectedApp,
  type Era,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { PASSWORD } from "./oauth_support.ts";
import type { ReceivedDelivery } from "./webhook_receiver.ts";
import { act, SERVICE } from "../deps.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Headers the transport adds by itself (not part of the §6.3 table). */
const TRANSPORT_HEADERS = new Set(["host", "content-length", "connection", "accept", "accept-encoding"]);
const SPEC_HEADERS = [
  "content-type",
  "user-agent",
  "webhook-id",
  "webhook-signature",
  "webhook-timestamp",
  "x-mcp-subscription-id",
].sort();

/** Whether each receiver library accepts `d` with exactly `secret` (and only it). */
function verifyWith(secret: string, d: ReceivedDelivery): { standardwebhooks: boolean; svix: boolean } {
  const ok = (f: () => unknown) => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  return {
    standardwebhooks: ok(() => new StandardWebhook(secret).verify(d.raw, d.headers)),
    svix: ok(() => new SvixWebhook(secret).verify(d.raw, d.headers)),
  };
}

const BOTH = { standardwebhooks: true, svix: true };
const NEITHER = { standardwebhooks: false, svix: false };

/** `evt_` + the outbox id without dashes. */
const eventIdOf = (row: OutboxRow) => `evt_${row.id.replaceAll("-", "")}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** A subscription made by a test: its id, secret and address. */
interface Sub {
  id: string;
  secret: string;
  url: string;
  name: EventName;
}

Deno.test("event delivery: headers, body, data, filters, no echo, revocation, rotation", async (t) => {
  const w = await eventsWorld();
  const db = w.tdb.db;
  const rx = w.receivers[0]!;
  const apps: ConnectedApp[] = [];
  let seq = 0;

  /** Connects an app (keeps it for closing). */
  const connect = async (email: string, era: Era, opts: { scope?: string; clientId?: string } = {}) => {
    const app = await connectApp(w, email, era, opts);
    apps.push(app);
    return app;
  };

  /** A new person with a password; a provider becomes a member of the world's office. */
  const person = async (label: string, role: "seeker" | "provider") => {
    const email = `${label}-${++seq}@example.org`;
    const userId = await createPerson(w.t.auth, db, { email, name: label, password: PASSWORD, role });
    if (role === "provider") await startMembership(db, userId, w.officeId);
    return { email, userId };
  };

  /** Subscribes `app` to `name` at a fresh path of the receiver with a fresh secret (trusted by the receiver). */
  const subscribe = async (
    app: ConnectedApp,
    name: EventName,
    args: Record<string, unknown> = {},
    opts: { secret?: string; url?: string } = {},
  ): Promise<Sub> => {
    const secret = opts.secret ?? newSecret();
    const url = opts.url ?? `${rx.url}/s${++seq}`;
    w.secrets[0]!.push(secret);
    const r = await app.call("events/subscribe", subscribeParams(name, url, secret, args));
    assert.match(r.id as string, /^sub_[a-z2-7]{26}$/);
    assert.equal(r.cursor, null);
    return { id: r.id as string, secret, url, name };
  };

  /** Deliveries (events and control messages) the receiver got for subscription `id`. */
  const to = (id: string) => rx.deliveries.filter((d) => d.headers["x-mcp-subscription-id"] === id);
  /** Event deliveries of `row` the receiver got for subscription `id`. */
  const eventTo = (id: string, row: OutboxRow) =>
    to(id).filter((d) => d.headers["webhook-id"] === eventIdOf(row));
  const terminatedTo = (id: string) =>
    to(id).filter((d) => (d.json as { type?: unknown } | undefined)?.type === "terminated");

  /** Runs `fn` and returns the outbox rows it wrote, oldest first. */
  const newEvents = async <T>(fn: () => Promise<T>): Promise<{ result: T; rows: OutboxRow[] }> => {
    const before = new Set((await listOutbox(db, { limit: 100_000 })).map((r) => r.id));
    const result = await fn();
    // proposal.pending (the agent's draft for each new inquiry) is tested in agent_test.ts.
    const rows = (await listOutbox(db, { limit: 100_000 })).filter((r) =>
      !before.has(r.id) && r.name !== "proposal.pending"
    ).reverse();
    return { result, rows };
  };

  /** Waits until `rows` are dispatched and all their deliveries finished; returns (subscription → state). */
  const settled = async (rows: OutboxRow[]): Promise<Map<string, Map<string, string>>> => {
    const ids = rows.map((r) => r.id);
    let result = new Map<string, Map<string, string>>();
    await until(
      async () => {
        const pending = await db.kysely.selectFrom("event_outbox").select("id").where("id", "in", ids)
          .where("dispatched_at", "is", null).execute();
        if (pending.length > 0) return false;
        const ds = await db.kysely.selectFrom("event_deliveries").select([
          "outbox_id",
          "subscription_id",
          "state",
        ])
          .where("outbox_id", "in", ids).execute();
        if (ds.some((d) => d.state === "pending" || d.state === "sending")) return false;
        result = new Map(ids.map((id) => [id, new Map()]));
        for (const d of ds) result.get(d.outbox_id)!.set(d.subscription_id, d.state);
        return true;
      },
      15_000,
      "deliveries finished",
    );
    return result;
  };

  /** The subscription row. */
  const subRow = (id: string) =>
    db.kysely.selectFrom("event_subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  /**
   * Asserts `row` was delivered exactly once to each of `subs` and to no other subscription, each delivery
   * exactly as docs/contract.md §6.4 says.
   */
  const assertDelivered = async (row: OutboxRow, subs: Sub[], sentAfterMs: number) => {
    const states = (await settled([row])).get(row.id)!;
    assert.deepEqual(
      [...states.entries()].sort(),
      subs.map((s) => [s.id, "delivered"]).sort(),
      `${row.name}: delivery rows`,
    );
    for (const s of subs) {
      const got = eventTo(s.id, row);
      assert.equal(got.length, 1, `${row.name} → ${s.id}: exactly one POST`);
      assertDelivery(got[0]!, row, s, sentAfterMs);
      const log = (await attemptLog(db, { subscriptionId: s.id }, 1000)).filter((l) =>
        l.eventId === eventIdOf(row)
      );
      assert.deepEqual(
        log.map((l) => [l.attempt, l.status, l.errorClass, l.outcome, l.state]),
        [[1, 204, null, "delivered", "delivered"]],
      );
    }
  };

  /** One delivery of `row` to `s` as docs/contract.md §6.4 says. */
  const assertDelivery = (d: ReceivedDelivery, row: OutboxRow, s: Sub, sentAfterMs: number) => {
    const names = Object.keys(d.headers).filter((h) => !TRANSPORT_HEADERS.has(h)).sort();
    assert.deepEqual(names, SPEC_HEADERS, "exactly the headers of §6.3");
    assert.equal(d.headers["content-type"], "application/json");
    assert.equal(d.headers["webhook-id"], eventIdOf(row));
    assert.match(d.headers["webhook-id"]!, /^evt_[0-9a-f]{32}$/);
    assert.equal(d.headers["x-mcp-subscription-id"], s.id);
    assert.match(d.headers["user-agent"]!, /-mcp-events$/);
    // Real wall-clock seconds: not before the action started, not after the receiver got it.
    const ts = Number(d.headers["webhook-timestamp"]);
    assert.ok(Number.isInteger(ts), "webhook-timestamp is whole seconds");
    assert.ok(ts >= Math.floor(sentAfterMs / 1000) && ts <= Math.ceil(d.at / 1000), `timestamp ${ts}`);
    assert.match(d.headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/]+=*$/, "one signature");
    assert.deepEqual(d.verified, BOTH, "the receiver verified it");
    assert.deepEqual(verifyWith(s.secret, d), BOTH, "its own secret verifies it");

    const body = d.json as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ["cursor", "data", "eventId", "name", "timestamp"]);
    assert.equal(body.eventId, d.headers["webhook-id"]);
    assert.equal(body.name, row.name);
    assert.equal(body.name, s.name);
    assert.equal(body.cursor, null);
    assert.equal(body.timestamp, row.createdAt.toISOString());
    const data = body.data as Record<string, unknown>;
    const shape = EVENT_DATA[row.name as EventName].shape;
    assert.deepEqual(Object.keys(data).sort(), Object.keys(shape).sort(), `${row.name}: data fields`);
    EVENT_DATA[row.name as EventName].parse(data);
    assert.deepEqual(data, row.data);
  };

  /** Asserts `row` reached none of `subs` (no delivery row, no POST). */
  const assertNotDelivered = async (row: OutboxRow, subs: Sub[]) => {
    const states = (await settled([row])).get(row.id)!;
    for (const s of subs) {
      assert.equal(states.has(s.id), false, `${row.name} must not go to ${s.id}`);
      assert.equal(eventTo(s.id, row).length, 0);
    }
  };

  /** Calls a tool that must succeed; returns its structured content. */
  // deno-lint-ignore no-explicit-any
  const tool = async (app: ConnectedApp, name: string, args: Record<string, unknown>): Promise<any> => {
    const res = await app.callTool(name, args);
    assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
    return res.structuredContent;
  };

  const one = (rows: OutboxRow[], name: EventName) => {
    assert.deepEqual(rows.map((r) => r.name), [name]);
    return rows[0]!;
  };

  try {
    const provider = await connect(w.provider.email, "v2-modern");
    const seeker = await connect(w.seeker.email, "v2-legacy");
    const [listingB] = await insertListings(db, w.officeId, [
      { ...sampleListing(7, prng(7), Date.now()), beispiel: true, status: "published" },
    ]);
    const subs = {} as Record<EventName, Sub>;
    // The eight events of the inquiry, viewing and saved-search actions; proposal.pending, file.processed and
    // social.received are delivered end to end in agent_test, documents_test and social_test.
    const own = ["proposal.pending", "file.processed", "social.received"];
    for (const name of (Object.keys(EVENT_DATA) as EventName[]).filter((n) => !own.includes(n))) {
      const app = ["matches.new", "reply.received", "viewing.changed"].includes(name) ? seeker : provider;
      subs[name] = await subscribe(app, name);
    }

    await t.step("all 8 events: one signed delivery per subscription, exactly as §6.3", async () => {
      // inquiry.received
      let at = Date.now();
      const sent = await newEvents(() =>
        tool(seeker, "send_inquiry", { listing_id: w.listingId, message: "Ist die Wohnung noch frei?" })
      );
      const inquiryId: string = sent.result.inquiry_id;
      const received = one(sent.rows, "inquiry.received");
      assert.deepEqual({ ...received.data, satz: "" }, {
        anfrage_id: inquiryId,
        objekt_id: w.listingId,
        quelle: "service",
        satz: "",
      });
      await assertDelivered(received, [subs["inquiry.received"]], at);

      // message.received
      at = Date.now();
      const msg = await newEvents(() =>
        tool(seeker, "send_message", { inquiry_id: inquiryId, message: "Und gibt es einen Keller?" })
      );
      const msgRow = one(msg.rows, "message.received");
      assert.deepEqual({ ...msgRow.data, satz: "" }, {
        anfrage_id: inquiryId,
        objekt_id: w.listingId,
        nachricht_id: msg.result.message_id,
        satz: "",
      });
      await assertDelivered(msgRow, [subs["message.received"]], at);

      // reply.received (provider replies → the seeker's app)
      at = Date.now();
      const reply = await newEvents(() =>
        tool(provider, "reply_to_inquiry", { inquiry_id: inquiryId, message: "Ja, gerne." })
      );
      const replyRow = one(reply.rows, "reply.received");
      assert.deepEqual({ ...replyRow.data, satz: "" }, {
        inquiry_id: inquiryId,
        listing_id: w.listingId,
        satz: "",
      });
      await assertDelivered(replyRow, [subs["reply.received"]], at);

      // viewing.booked (new, then moved to another slot)
      const base = Math.floor(w.t.now() / MIN) * MIN;
      const created = await newEvents(() =>
        tool(provider, "create_viewing_slots", {
          listing_id: w.listingId,
          slots: [
            { start: iso(base + 3 * HOUR), end: iso(base + 4 * HOUR), places: 3 },
            { start: iso(base + 5 * HOUR), end: iso(base + 6 * HOUR), places: 3 },
          ],
        })
      );
      assert.equal(created.rows.length, 0);
      const [slot1, slot2] = created.result.items.map((s: { id: string }) => s.id) as [string, string];
      at = Date.now();
      const booked = await newEvents(() =>
        tool(seeker, "book_viewing", { inquiry_id: inquiryId, slot_id: slot1 })
      );
      const bookedRow = one(booked.rows, "viewing.booked");
      assert.deepEqual({ ...bookedRow.data, satz: "" }, {
        termin_id: slot1,
        anfrage_id: inquiryId,
        objekt_id: w.listingId,
        beginn: iso(base + 3 * HOUR),
        umgebucht: false,
        satz: "",
      });
      await assertDelivered(bookedRow, [subs["viewing.booked"]], at);
      at = Date.now();
      const rebooked = await newEvents(() =>
        tool(seeker, "book_viewing", { inquiry_id: inquiryId, slot_id: slot2 })
      );
      const rebookedRow = one(rebooked.rows, "viewing.booked");
      assert.equal(rebookedRow.data.termin_id, slot2);
      assert.equal(rebookedRow.data.umgebucht, true);
      await assertDelivered(rebookedRow, [subs["viewing.booked"]], at);

      // viewing.upcoming: 24h window now (start in 5 h), 1h window after moving the clock
      at = Date.now();
      const upcoming = await newEvents(() => runViewingReminders(w.t.deps));
      const upRow = one(upcoming.rows, "viewing.upcoming");
      assert.deepEqual({ ...upRow.data, satz: "" }, {
        termin_id: slot2,
        objekt_id: w.listingId,
        beginn: iso(base + 5 * HOUR),
        fenster: "24h",
        satz: "",
      });
      await assertDelivered(upRow, [subs["viewing.upcoming"]], at);
      w.t.advance(4 * HOUR + 30 * MIN);
      at = Date.now();
      const upcoming1h = await newEvents(() => runViewingReminders(w.t.deps));
      const up1Row = one(upcoming1h.rows, "viewing.upcoming");
      assert.equal(up1Row.data.termin_id, slot2);
      assert.equal(up1Row.data.fenster, "1h");
      await assertDelivered(up1Row, [subs["viewing.upcoming"]], at);

      // viewing.changed moved (provider moves the booked slot → the seeker's app)
      const newStart = Math.floor(w.t.now() / MIN) * MIN + 3 * HOUR;
      at = Date.now();
      const moved = await newEvents(() =>
        tool(provider, "move_viewing_slot", {
          slot_id: slot2,
          start: iso(newStart),
          end: iso(newStart + HOUR),
        })
      );
      const movedRow = one(moved.rows, "viewing.changed");
      assert.deepEqual({ ...movedRow.data, satz: "" }, {
        inquiry_id: inquiryId,
        listing_id: w.listingId,
        change: "moved",
        start: iso(newStart),
        satz: "",
      });
      await assertDelivered(movedRow, [subs["viewing.changed"]], at);

      // viewing.cancelled (the seeker gives up the booking)
      at = Date.now();
      const cancelled = await newEvents(() => tool(seeker, "cancel_viewing", { inquiry_id: inquiryId }));
      const cancelledRow = one(cancelled.rows, "viewing.cancelled");
      assert.deepEqual({ ...cancelledRow.data, satz: "" }, {
        termin_id: slot2,
        anfrage_id: inquiryId,
        objekt_id: w.listingId,
        beginn: iso(newStart),
        satz: "",
      });
      await assertDelivered(cancelledRow, [subs["viewing.cancelled"]], at);

      // viewing.changed cancelled (booked again, then the provider cancels the slot)
      const again = await newEvents(() =>
        tool(seeker, "book_viewing", { inquiry_id: inquiryId, slot_id: slot2 })
      );
      await assertDelivered(one(again.rows, "viewing.booked"), [subs["viewing.booked"]], 0);
      at = Date.now();
      const slotGone = await newEvents(() => tool(provider, "cancel_viewing_slot", { slot_id: slot2 }));
      const slotGoneRow = one(slotGone.rows, "viewing.changed");
      assert.deepEqual({ ...slotGoneRow.data, satz: "" }, {
        inquiry_id: inquiryId,
        listing_id: w.listingId,
        change: "cancelled",
        start: null,
        satz: "",
      });
      await assertDelivered(slotGoneRow, [subs["viewing.changed"]], at);

      // matches.new: a saved search, a listing published after it, a run
      const city = "Ereignisstadt";
      const search = await tool(seeker, "create_saved_search", { filters: { city } });
      w.t.advance(MIN);
      await insertListings(db, w.officeId, [{
        ...sampleListing(11, prng(11), Date.now()),
        city,
        beispiel: false,
        status: "published",
        published_at: new Date(w.t.now()),
      }]);
      w.t.advance(MIN);
      at = Date.now();
      const run = await newEvents(() => runSavedSearches(w.t.deps));
      const matchesRow = one(run.rows, "matches.new");
      assert.deepEqual({ ...matchesRow.data, satz: "" }, { saved_search_id: search.id, count: 1, satz: "" });
      await assertDelivered(matchesRow, [subs["matches.new"]], at);

      // each of the 8 events reached its subscription
      for (const [name, s] of Object.entries(subs)) {
        assert.ok(to(s.id).some((d) => (d.json as { name?: string }).name === name), `${name} delivered`);
      }
    });

    await t.step("filters: objekt_id, anfrage_id and inquiry_id", async () => {
      const seeker2 = await person("filter-sucher", "seeker");
      const s2 = await connect(seeker2.email, "v2-modern");
      const onA = await subscribe(provider, "inquiry.received", { objekt_id: w.listingId });
      const onB = await subscribe(provider, "inquiry.received", { objekt_id: listingB });
      assert.notEqual(onA.id, onB.id);

      let at = Date.now();
      const a = await newEvents(() =>
        tool(s2, "send_inquiry", { listing_id: w.listingId, message: "Anfrage A" })
      );
      await assertDelivered(one(a.rows, "inquiry.received"), [subs["inquiry.received"], onA], at);
      at = Date.now();
      const b = await newEvents(() =>
        tool(s2, "send_inquiry", { listing_id: listingB, message: "Anfrage B" })
      );
      await assertDelivered(one(b.rows, "inquiry.received"), [subs["inquiry.received"], onB], at);
      await assertNotDelivered(a.rows[0]!, [onB]);
      await assertNotDelivered(b.rows[0]!, [onA]);
      const inqA: string = a.result.inquiry_id;
      const inqB: string = b.result.inquiry_id;

      // message.received with anfrage_id (and with objekt_id of B)
      const msgA = await subscribe(provider, "message.received", { anfrage_id: inqA });
      const msgOnB = await subscribe(provider, "message.received", { objekt_id: listingB });
      at = Date.now();
      const mB = await newEvents(() =>
        tool(s2, "send_message", { inquiry_id: inqB, message: "Nachricht B" })
      );
      await assertDelivered(one(mB.rows, "message.received"), [subs["message.received"], msgOnB], at);
      at = Date.now();
      const mA = await newEvents(() =>
        tool(s2, "send_message", { inquiry_id: inqA, message: "Nachricht A" })
      );
      await assertDelivered(one(mA.rows, "message.received"), [subs["message.received"], msgA], at);

      // the seeker's reply.received with inquiry_id
      const replyA = await subscribe(s2, "reply.received", { inquiry_id: inqA });
      const replyAll = await subscribe(s2, "reply.received");
      at = Date.now();
      const rB = await newEvents(() =>
        tool(provider, "reply_to_inquiry", { inquiry_id: inqB, message: "Antwort B" })
      );
      await assertDelivered(one(rB.rows, "reply.received"), [replyAll], at);
      at = Date.now();
      const rA = await newEvents(() =>
        tool(provider, "reject_inquiry", { inquiry_id: inqA, message: "Leider nein" })
      );
      await assertDelivered(one(rA.rows, "reply.received"), [replyAll, replyA], at);
      // the first seeker's subscription never sees the second seeker's events
      assert.equal(eventTo(subs["reply.received"].id, rA.rows[0]!).length, 0);

      // the filtered subscriptions end here (events/unsubscribe), so later steps see only their own
      for (
        const [app, s, args] of [
          [provider, onA, { objekt_id: w.listingId }],
          [provider, onB, { objekt_id: listingB }],
          [provider, msgA, { anfrage_id: inqA }],
          [provider, msgOnB, { objekt_id: listingB }],
          [s2, replyA, { inquiry_id: inqA }],
          [s2, replyAll, {}],
        ] as const
      ) {
        const { _meta: _, ...answer } = await app.call("events/unsubscribe", {
          name: s.name,
          arguments: args,
          delivery: { url: s.url },
        });
        assert.deepEqual(answer, {});
        assert.equal((await subRow(s.id)).end_reason, "unsubscribed");
      }
    });

    await t.step("no echo: an event is not sent back to the app that caused it", async () => {
      const seeker3 = await person("echo-sucher", "seeker");
      const x = await connect(seeker3.email, "v2-modern"); // app X, for the seeker
      const providerX = await connect(w.provider.email, "v2-legacy", { clientId: x.clientId }); // X, provider
      assert.equal(providerX.clientId, x.clientId);
      const z = await connect(seeker3.email, "v2-legacy"); // app Z, for the seeker
      const viaX = await subscribe(providerX, "inquiry.received");

      let at = Date.now();
      const sent = await newEvents(() =>
        tool(x, "send_inquiry", { listing_id: w.listingId, message: "Über X" })
      );
      const row = one(sent.rows, "inquiry.received");
      assert.equal(row.originClientId, x.clientId);
      // delivered to the provider's subscription through app Y (the first provider app), not through X
      await assertDelivered(row, [subs["inquiry.received"]], at);
      await assertNotDelivered(row, [viaX]);

      // the other way round: the provider replies through X; the seeker's X subscription gets nothing, Z's does
      const replyX = await subscribe(x, "reply.received");
      const replyZ = await subscribe(z, "reply.received");
      at = Date.now();
      const reply = await newEvents(() =>
        tool(providerX, "reply_to_inquiry", { inquiry_id: sent.result.inquiry_id, message: "Antwort über X" })
      );
      const replyRow = one(reply.rows, "reply.received");
      assert.equal(replyRow.originClientId, x.clientId);
      await assertDelivered(replyRow, [replyZ], at);
      await assertNotDelivered(replyRow, [replyX]);

      // an event X did not cause does reach X
      at = Date.now();
      const other = await newEvents(() =>
        tool(seeker, "send_inquiry", { listing_id: w.listingId, message: "Über Y" })
      );
      await assertDelivered(one(other.rows, "inquiry.received"), [subs["inquiry.received"], viaX], at);
    });

    const revoked: Array<{ sub: Sub; reason: string }> = [];
    await t.step("revocation before delivery: consent, right, membership", async () => {
      const mk = async (label: string) => {
        const p = await person(label, "provider");
        const app = await connect(p.email, "v2-modern", { scope: "lesen offline_access" });
        return { ...p, app, sub: await subscribe(app, "inquiry.received") };
      };
      const disconnected = await mk("getrennt");
      const noConsent = await mk("ohne-zustimmung");
      const noRight = await mk("ohne-recht");
      const noMember = await mk("ohne-buero");

      // consent gone through the connected-apps disconnect: the subscription ends at once
      assert.equal(
        await act(w.t.deps, SERVICE, (a) => disconnectApp(a, disconnected.userId, disconnected.app.clientId)),
        true,
      );
      const ended = await subRow(disconnected.sub.id);
      assert.ok(ended.ended_at !== null);
      assert.equal(ended.end_reason, "disconnected");
      // consent gone (the consent row alone): found by the check before the attempt
      await db.kysely.deleteFrom("oauthConsent").where("userId", "=", noConsent.userId)
        .where("clientId", "=", noConsent.app.clientId).execute();
      // right gone: no longer a provider
      await setRole(db, noRight.userId, "seeker");
      await endMembership(db, noRight.userId);
      // membership gone
      assert.equal(await endMembership(db, noMember.userId), true);

      const seeker4 = await person("revoke-sucher", "seeker");
      const s4 = await connect(seeker4.email, "v2-legacy");
      const at = Date.now();
      const sent = await newEvents(() =>
        tool(s4, "send_inquiry", { listing_id: w.listingId, message: "Hallo" })
      );
      const row = one(sent.rows, "inquiry.received");
      const states = (await settled([row])).get(row.id)!;
      assert.equal(states.get(subs["inquiry.received"].id), "delivered");
      assertDelivery(eventTo(subs["inquiry.received"].id, row)[0]!, row, subs["inquiry.received"], at);
      // the disconnected subscription ended before the event: no delivery row at all
      assert.equal(states.has(disconnected.sub.id), false);
      const cases = [
        { c: noConsent, end: "access_closed", reason: "access_closed" },
        { c: noRight, end: "insufficient_scope", reason: "insufficient_scope" },
        { c: noMember, end: "access_closed", reason: "access_closed" },
      ];
      for (const { c, end } of cases) {
        assert.equal(states.get(c.sub.id), "dropped", `${c.email}: delivery dropped`);
        const log = await attemptLog(db, { subscriptionId: c.sub.id }, 10);
        assert.deepEqual(
          log.map((l) => [l.eventId, l.attempt, l.status, l.errorClass, l.outcome]),
          [[eventIdOf(row), 1, null, `revoked_${end}`, "dropped"]],
        );
        const s = await subRow(c.sub.id);
        assert.ok(s.ended_at !== null, `${c.email}: ended`);
        assert.equal(s.end_reason, end);
      }
      for (const c of [noConsent, noRight, noMember, disconnected]) {
        assert.equal(eventTo(c.sub.id, row).length, 0);
      }

      // exactly one signed terminated control message each
      const all = [...cases.map((x) => ({ sub: x.c.sub, reason: x.reason })), {
        sub: disconnected.sub,
        reason: "access_closed",
      }];
      for (const { sub, reason } of all) {
        await until(() => terminatedTo(sub.id).length > 0, 10_000, `terminated for ${sub.id}`);
        await until(async () => (await subRow(sub.id)).terminate_pending === false, 5_000, "terminate sent");
        const got = to(sub.id);
        assert.equal(got.length, 1, "only the terminated message");
        const d = got[0]!;
        assert.match(d.headers["webhook-id"]!, /^msg_terminated_[0-9a-f]{24}$/);
        assert.equal(d.headers["x-mcp-subscription-id"], sub.id);
        assert.equal(d.headers["content-type"], "application/json");
        assert.match(d.headers["user-agent"]!, /-mcp-events$/);
        assert.deepEqual(d.verified, BOTH);
        assert.deepEqual(verifyWith(sub.secret, d), BOTH);
        const body = d.json as { type: string; error: { code: number; message: unknown; data: unknown } };
        assert.deepEqual(Object.keys(body).sort(), ["error", "type"]);
        assert.equal(body.type, "terminated");
        assert.equal(body.error.code, -32012);
        assert.equal(typeof body.error.message, "string");
        assert.deepEqual(body.error.data, { reason });
        revoked.push({ sub, reason });
      }
    });

    await t.step("secret rotation: two signatures for 15 minutes, then only the new secret", async () => {
      const s1 = newSecret();
      const s2 = newSecret(48);
      const first = await subscribe(provider, "inquiry.received", {}, { secret: s1 });
      const renewed = await subscribe(provider, "inquiry.received", {}, { secret: s2, url: first.url });
      assert.equal(renewed.id, first.id, "renewal keeps the id");
      const sub = { ...renewed, secret: s2 };
      const seeker5 = await person("rotation-sucher", "seeker");
      const s5 = await connect(seeker5.email, "v2-modern");

      let at = Date.now();
      const during = await newEvents(() =>
        tool(s5, "send_inquiry", { listing_id: w.listingId, message: "Eins" })
      );
      const row1 = one(during.rows, "inquiry.received");
      await settled([row1]);
      const [d1] = eventTo(sub.id, row1);
      assert.ok(d1, "delivered during the rotation window");
      assert.equal(eventTo(sub.id, row1).length, 1);
      const sigs = d1.headers["webhook-signature"]!.split(" ");
      assert.equal(sigs.length, 2, "two signatures");
      for (const s of sigs) assert.match(s, /^v1,[A-Za-z0-9+/]+=*$/);
      assert.deepEqual(verifyWith(s1, d1), BOTH, "a receiver trusting only S1 verifies it");
      assert.deepEqual(verifyWith(s2, d1), BOTH, "a receiver trusting only S2 verifies it");
      assert.ok(Number(d1.headers["webhook-timestamp"]) >= Math.floor(at / 1000));

      w.t.advance(15 * MIN + 1);
      at = Date.now();
      const after = await newEvents(() =>
        tool(s5, "send_inquiry", { listing_id: w.listingId, message: "Zwei" })
      );
      const row2 = one(after.rows, "inquiry.received");
      await settled([row2]);
      const got = eventTo(sub.id, row2);
      assert.equal(got.length, 1);
      assertDelivery(got[0]!, row2, sub, at);
      assert.deepEqual(verifyWith(s1, got[0]!), NEITHER, "S1 no longer verifies");
    });

    await t.step("revoked subscriptions got no second terminated message and no events", async () => {
      await until(async () => (await listOutbox(db, { limit: 1, pendingOnly: true })).length === 0);
      for (const { sub } of revoked) {
        assert.equal(to(sub.id).length, 1);
        assert.equal(terminatedTo(sub.id).length, 1);
      }
    });
  } finally {
    for (const app of apps) await app.close().catch(() => {});
    await w.close();
  }
});
