/**
 * The event calls of docs/contract.md §6.1 (events/list, events/subscribe, events/unsubscribe, events/poll, events/stream)
 * through real MCP clients of both protocol eras, connected over a real OAuth connection (an "app"), with real
 * HTTPS receivers and the real database: the advertised capability, the catalogue, subscribing, renewal,
 * verification, rotation, every refusal of docs/contract.md §8.4 with its code and `data` (and that a refusal writes nothing),
 * and unsubscribing.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createPerson } from "../auth/accounts.ts";
import { createApiKey } from "../auth/api_keys.ts";
import type { Principal } from "../auth/principal.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { endMembership, setRole, startMembership } from "../db/accounts.ts";
import { attemptLog } from "../db/delivery_log.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { insertOptOut, subscriptionById } from "../db/subscriptions.ts";
import { EventCallError } from "../errors.ts";
import { EVENT_DATA, EVENT_FILTERS, EVENT_SERVER, type EventName, eventsOf } from "../events/catalogue.ts";
import { ROTATION_OVERLAP_MS } from "../events/webhook_message.ts";
import { createEventRuntime } from "../events/runtime.ts";
import { base64 } from "../crypto.ts";
import { listEvents, MAX_SUBSCRIPTIONS, subscribe, unsubscribe } from "../events/subscriptions.ts";
import type { AppDeps } from "../deps.ts";
import {
  connectApp,
  type ConnectedApp,
  connectWithToken,
  ERAS,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { initializeRequest, rawMcpPost, rpcMessages } from "./mcp_helpers.ts";
import { PASSWORD } from "./oauth_support.ts";
import type { Receiver } from "./webhook_receiver.ts";

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const MESSAGE = "Hallo, ist die Wohnung noch frei? Ich würde sie gern besichtigen.";

/** Receivers of the world, by role (index into `w.receivers`). */
const R = { main: 0, wrong: 1, status500: 2, noJson: 3, hang: 4, closed: 5 } as const;

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("event calls over MCP (both eras): capability, list, subscribe, refusals, unsubscribe", async (t) => {
  const w = await eventsWorld({
    receivers: [{}, { challenge: "wrong" }, { challenge: "status500" }, { challenge: "no-answer-json" }, {
      challenge: "hang",
    }, {}],
  });
  const db = w.tdb.db;
  const deps = w.t.deps;
  const open: ConnectedApp[] = [];
  const keep = <T extends ConnectedApp>(app: T): T => (open.push(app), app);
  try {
    const main = w.receivers[R.main]!;
    const trust = (secret: string, r: number = R.main) => w.secrets[r]!.push(secret);
    const iso = (ms: number) => new Date(ms).toISOString();

    // A receiver port that is allowed (WEBHOOK_LOOPBACK_PORTS) but closed: connection_refused.
    const closed = w.receivers[R.closed]!;
    await closed.close();
    // w.close() closes every receiver again; this one is already closed.
    w.receivers[R.closed] = { ...closed, close: () => Promise.resolve() };

    const counts = async () => {
      const r = await sql<{ subs: number; verifications: number }>`select
          (select count(*)::int from event_subscriptions) as subs,
          (select count(*)::int from webhook_verifications) as verifications`.execute(db.kysely);
      return r.rows[0]!;
    };

    /** Subscribing with `params` fails with exactly `code` and `data`, and writes nothing. */
    const refused = async (
      app: ConnectedApp,
      params: Record<string, unknown>,
      code: number,
      data: Record<string, unknown>,
      what: string,
    ) => {
      const before = await counts();
      const err = await app.fail("events/subscribe", params);
      assert.deepEqual({ code: err.code, data: err.data }, { code, data }, what);
      assert.equal(typeof err.message, "string", what);
      assert.deepEqual(await counts(), before, `${what}: nothing written`);
    };

    /** The domain call `run` throws an EventCallError with exactly `code` and `data`. */
    const domainRefuses = async (
      run: () => unknown,
      code: number,
      data: Record<string, unknown>,
      what: string,
    ) => {
      const before = await counts();
      await assert.rejects(async () => await run(), (err: unknown) => {
        assert.ok(err instanceof EventCallError, `${what}: ${err}`);
        assert.deepEqual({ code: err.code, data: err.data }, { code, data }, what);
        return true;
      });
      assert.deepEqual(await counts(), before, `${what}: nothing written`);
    };

    // --- shared fixtures -------------------------------------------------------------------------------------
    // Another office with a listing of its own (its id is never "in the account" of our provider).
    const otherOffice = await ensureOffice(db, "Anderes Büro Events");
    const [foreignListing] = await insertListings(db, otherOffice, [
      { ...sampleListing(7, prng(71), Date.now()), beispiel: true, status: "published" },
    ]);
    // 50 more listings of the provider's office: 50 subscriptions with 50 different filters.
    const ownListings = await insertListings(
      db,
      w.officeId,
      Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => ({
        ...sampleListing(100 + i, prng(100 + i), Date.now()),
        beispiel: true,
        status: "draft" as const,
      })),
    );
    assert.equal(ownListings.length, MAX_SUBSCRIPTIONS);

    // Another seeker with an inquiry and a saved search (through an API key: tools only need sign-in).
    const otherSeekerId = await createPerson(w.t.auth, db, {
      email: "zweite-sucherin@example.org",
      name: "Zweite Sucherin",
      password: PASSWORD,
      role: "seeker",
    });
    const otherSeeker = keep(
      await connectWithToken(
        w,
        "api-key",
        (await createApiKey(db, otherSeekerId, "Zweite")).key,
        "v2-legacy",
      ),
    );
    const foreignInquiry =
      (await otherSeeker.callTool("send_inquiry", { listing_id: w.listingId, message: MESSAGE }))
        .structuredContent.inquiry_id as string;
    const foreignSearch =
      (await otherSeeker.callTool("create_saved_search", { filters: { max_price: 900_000 } }))
        .structuredContent.id as string;
    assert.match(foreignInquiry, /^[0-9a-f-]{36}$/);
    assert.match(foreignSearch, /^[0-9a-f-]{36}$/);

    // A second provider of the same office (membership ended / role changed below, never the world's provider).
    const provider2 = { email: "zweite-anbieterin@example.org", userId: "" };
    provider2.userId = await createPerson(w.t.auth, db, {
      ...provider2,
      name: "Zweite Anbieterin",
      password: PASSWORD,
      role: "provider",
    });
    await startMembership(db, provider2.userId, w.officeId);

    const providerKey = await createApiKey(db, w.provider.userId, "Anbieter-Schlüssel");
    const seekerKey = await createApiKey(db, w.seeker.userId, "Sucher-Schlüssel");

    let timeoutTested = false;

    for (const era of ERAS) {
      await t.step(era, async (t) => {
        const provA = keep(await connectApp(w, w.provider.email, era));
        const seekA = keep(await connectApp(w, w.seeker.email, era));
        const s1 = newSecret();
        trust(s1);

        await t.step("capabilities.events is advertised (raw initialize / server/discover)", async () => {
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

        await t.step("events/list lists exactly the server's events with schemas from the code", async () => {
          const providerKeyApp = keep(await connectWithToken(w, "api-key", providerKey.key, era));
          const seekerKeyApp = keep(await connectWithToken(w, "api-key", seekerKey.key, era));
          const cases: Array<[string, ConnectedApp, "anbieter" | "suche", number]> = [
            ["provider (OAuth)", provA, "anbieter", 8],
            ["seeker (OAuth)", seekA, "suche", 3],
            ["provider (API key)", providerKeyApp, "anbieter", 8],
            ["seeker (API key)", seekerKeyApp, "suche", 3],
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

        let subId = "";
        await t.step(
          "subscribe: verification first, result, TTL clamps, renewal without a second challenge",
          async () => {
            const before = await counts();
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
            subId = r.id as string;
            assert.deepEqual(await counts(), {
              subs: before.subs + 1,
              verifications: before.verifications + 1,
            });

            // Exactly one challenge came first, signed with the secret (both receiver libraries agree).
            assert.equal(main.challenges.length, challenges + 1);
            const c = main.challenges.at(-1)!;
            assert.deepEqual(c.verified, { standardwebhooks: true, svix: true });
            assert.equal((c.json as Json).type, "verification");
            assert.equal(typeof (c.json as Json).challenge, "string");
            assert.ok((c.json as Json).challenge.length >= 16);
            assert.match(c.headers["webhook-id"]!, /^msg_verification_/);
            assert.match(c.headers["user-agent"]!, /-mcp-events$/);

            const row = await subscriptionById(db.kysely, subId);
            assert.equal(row?.userId, w.provider.userId);
            assert.equal(row?.clientId, provA.clientId);
            assert.equal(row?.officeId, w.officeId);
            assert.equal(row?.url, main.url);
            assert.deepEqual(row?.arguments, {});
            assert.equal(row?.expiresAt.getTime(), now + DAY);
            assert.equal(await deps.events.box!.open(row!.secretEnc), s1);
            assert.notEqual(row?.secretEnc, s1, "the secret is not stored in clear");

            // ttlMs is a suggestion clamped to 10 minutes … 24 hours (same address: no new challenge).
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
            // Within the bounds the suggestion is granted as asked; null (the draft's "no expiry") or a
            // non-number gets the default 24 hours.
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
            assert.notEqual(short.id, subId);
            assert.notEqual(long.id, short.id);
            assert.equal(
              main.challenges.length,
              challenges + 1,
              "a verified address is not challenged again",
            );

            // Renewal: same event, filter and address → same id, no second challenge, new expiry.
            w.t.advance(HOUR);
            const renewed = await provA.call(
              "events/subscribe",
              subscribeParams("inquiry.received", main.url, s1),
            );
            assert.equal(renewed.id, subId);
            assert.equal(renewed.refreshBefore, iso(w.t.now() + DAY));
            assert.deepEqual(renewed.deliveryStatus, { active: true, lastDeliveryAt: null, lastError: null });
            assert.equal(main.challenges.length, challenges + 1, "renewal within 24 h sends no challenge");
            assert.equal((await counts()).subs, before.subs + 4, "three live, one unsubscribed");
            const again = await subscriptionById(db.kysely, subId);
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

        await t.step("renewal with a new secret rotates: the old one signs 15 more minutes", async () => {
          const s2 = newSecret(48);
          trust(s2);
          const challenges = main.challenges.length;
          const before = await subscriptionById(db.kysely, subId);
          const now = w.t.now();
          const r = await provA.call("events/subscribe", subscribeParams("inquiry.received", main.url, s2));
          assert.equal(r.id, subId);
          assert.equal(main.challenges.length, challenges, "no challenge (verified within 24 h)");
          const row = await subscriptionById(db.kysely, subId);
          const box = deps.events.box!;
          assert.equal(await box.open(row!.secretEnc), s2);
          assert.equal(row!.previousSecretEnc, before!.secretEnc);
          assert.equal(await box.open(row!.previousSecretEnc!), s1);
          assert.equal(row!.previousSecretUntil?.getTime(), now + ROTATION_OVERLAP_MS);
          assert.equal(ROTATION_OVERLAP_MS, 15 * 60_000);
          assert.equal(row!.expiresAt.getTime(), now + DAY);

          // A verification older than 24 hours is made again on renewal (signed with the current secret).
          w.t.advance(DAY + 1);
          w.secrets[R.main] = w.secrets[R.main]!.filter((s) => s !== s1);
          const later = await provA.call(
            "events/subscribe",
            subscribeParams("inquiry.received", main.url, s2),
          );
          assert.equal(later.id, subId);
          assert.equal(later.refreshBefore, iso(w.t.now() + DAY));
          assert.equal(main.challenges.length, challenges + 1, "verified again after 24 h");
          assert.deepEqual(main.challenges.at(-1)!.verified, { standardwebhooks: true, svix: true });
          const verified = await db.kysely.selectFrom("webhook_verifications").select("verified_at")
            .where("user_id", "=", w.provider.userId).where("client_id", "=", provA.clientId)
            .where("url", "=", main.url).executeTakeFirstOrThrow();
          assert.equal(new Date(verified.verified_at as unknown as string).getTime(), w.t.now());
          w.secrets[R.main]!.push(s1);
        });

        await t.step("refusals of parameters: -32011, -32014, -32602", async () => {
          const ok = (extra: Record<string, unknown> = {}) =>
            subscribeParams("inquiry.received", main.url, s1, {}, extra);
          const event = { kind: "event" };
          await refused(
            provA,
            subscribeParams("no.such.event", main.url, s1),
            -32011,
            event,
            "unknown event",
          );
          await refused(
            provA,
            subscribeParams("matches.new", main.url, s1),
            -32011,
            event,
            "seeker event on provider",
          );
          await refused(
            seekA,
            subscribeParams("inquiry.received", main.url, s1),
            -32011,
            event,
            "provider event on seeker",
          );

          await refused(
            provA,
            { ...ok(), delivery: { mode: "poll", url: main.url, secret: s1 } },
            -32014,
            { feature: "deliveryMode", value: "poll" },
            "mode poll",
          );
          for (const [method, value] of [["events/poll", "poll"], ["events/stream", "push"]] as const) {
            for (const app of [provA, seekA]) {
              const err = await app.fail(method, { name: "inquiry.received", arguments: {} });
              assert.deepEqual({ code: err.code, data: err.data }, {
                code: -32014,
                data: { feature: "deliveryMode", value },
              }, method);
            }
          }

          const url = (u: string, reason: string) =>
            refused(provA, subscribeParams("inquiry.received", u, s1), -32602, {
              reason: `delivery.url:${reason}`,
            }, u);
          await url(main.url.replace("https:", "http:"), "not_https");
          await url(`${main.url}?pad=${"a".repeat(2100)}`, "too_long");
          await url(main.url.replace("https://", "https://nutzer:geheim@"), "userinfo");
          await url("https://10.0.0.1/x", "not_public");
          const notAllowed = notListedPort(w.receivers);
          await url(`https://[::1]:${notAllowed}/`, "not_public");
          await url(`https://127.0.0.1:${notAllowed}/hook`, "not_public");
          await url(`https://localhost:${notAllowed}/hook`, "not_public");

          const secret = (s: string, what: string) =>
            refused(
              provA,
              subscribeParams("inquiry.received", main.url, s),
              -32602,
              { reason: "delivery.secret" },
              what,
            );
          const ff = base64(new Uint8Array(32).fill(0xff)); // "////…" in standard Base64
          await secret(`sk_${ff}`, "no whsec_ prefix");
          await secret(`whsec_${ff.replaceAll("/", "_").replaceAll("+", "-")}`, "base64url characters");
          await secret(newSecret(23), "23 bytes");
          await secret(newSecret(65), "65 bytes");
          await secret("whsec_", "empty");

          const args = (a: unknown, what: string) =>
            refused(
              provA,
              { ...ok(), arguments: a },
              -32602,
              { reason: "arguments" },
              what,
            );
          await args({ unbekannt: "x" }, "unknown filter key");
          await args({ objekt_id: 5 }, "non-string filter");
          await args({ objekt_id: "" }, "empty filter");
          await args("objekt", "arguments not an object");
        });

        await t.step("refusals of filters outside the account: -32012 arguments_not_in_account", async () => {
          const notIn = { reason: "arguments_not_in_account" };
          const prov = (a: Record<string, string>, what: string, name = "inquiry.received") =>
            refused(provA, subscribeParams(name, main.url, s1, a), -32012, notIn, what);
          await prov({ objekt_id: foreignListing! }, "listing of another office");
          await prov({ objekt_id: crypto.randomUUID() }, "random uuid");
          await prov({ objekt_id: "keine-uuid" }, "malformed id");
          await prov({ anfrage_id: crypto.randomUUID() }, "random inquiry", "message.received");

          const seek = (name: string, a: Record<string, string>) =>
            refused(
              seekA,
              subscribeParams(name, main.url, s1, a),
              -32012,
              notIn,
              `${name} ${JSON.stringify(a)}`,
            );
          await seek("reply.received", { inquiry_id: foreignInquiry });
          await seek("viewing.changed", { inquiry_id: foreignInquiry });
          await seek("matches.new", { saved_search_id: foreignSearch });
          await seek("matches.new", { saved_search_id: crypto.randomUUID() });

          // The seeker's own saved search is in the account.
          const own = (await seekA.callTool("create_saved_search", { filters: { max_price: 800_000 } }))
            .structuredContent.id as string;
          const r = await seekA.call(
            "events/subscribe",
            subscribeParams("matches.new", main.url, s1, {
              saved_search_id: own,
            }),
          );
          assert.match(r.id as string, /^sub_/);
          const row = await subscriptionById(db.kysely, r.id as string);
          assert.equal(row?.server, "suche");
          assert.equal(row?.officeId, null);
        });

        await t.step("an API key may list but not subscribe: -32012 oauth_connection_required", async () => {
          const keyApp = keep(await connectWithToken(w, "api-key", providerKey.key, era));
          await refused(keyApp, subscribeParams("inquiry.received", main.url, s1), -32012, {
            reason: "oauth_connection_required",
          }, "API key");
          const err = await keyApp.fail("events/unsubscribe", {
            name: "inquiry.received",
            arguments: {},
            delivery: { url: main.url },
          });
          assert.deepEqual({ code: err.code, data: err.data }, {
            code: -32012,
            data: { reason: "oauth_connection_required" },
          });
        });

        await t.step(
          "membership ended / role changed: refused by the HTTP layer; domain gives access_closed",
          async () => {
            const app = keep(await connectApp(w, provider2.email, era, { scope: "lesen offline_access" }));
            const s = newSecret();
            trust(s);
            const r = await app.call("events/subscribe", subscribeParams("viewing.cancelled", main.url, s));
            assert.match(r.id as string, /^sub_/);
            const list = { jsonrpc: "2.0", id: 5, method: "events/list", params: {} };
            const headers = { "mcp-protocol-version": "2025-06-18" };
            try {
              // The HTTP layer re-reads access on every call: without a membership the token no longer counts.
              await endMembership(db, provider2.userId);
              const res = await rawMcpPost(w.resource, app.accessToken, list, headers);
              assert.equal(res.status, 401);
              assert.match(res.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
              await res.body?.cancel();
              await assert.rejects(() =>
                app.call("events/subscribe", subscribeParams("viewing.cancelled", main.url, s))
              );
              // So -32012 access_closed is the domain's own guard, for a provider principal without an office.
              const principal: Principal = {
                userId: provider2.userId,
                role: "provider",
                officeId: null,
                right: "lesen",
                origin: { kind: "oauth", clientId: app.clientId },
              };
              await domainRefuses(
                () => subscribe(deps, principal, subscribeParams("viewing.cancelled", main.url, s)),
                -32012,
                { reason: "access_closed" },
                "access_closed",
              );
            } finally {
              await startMembership(db, provider2.userId, w.officeId);
            }
            try {
              // A provider who became a seeker: the token holds lesen, the role now needs suchen → HTTP 403.
              await setRole(db, provider2.userId, "seeker");
              const res = await rawMcpPost(w.resource, app.accessToken, list, headers);
              assert.equal(res.status, 403);
              assert.deepEqual(await res.json(), { error: "insufficient_scope" });
            } finally {
              await setRole(db, provider2.userId, "provider");
            }
            const back = await app.call(
              "events/subscribe",
              subscribeParams("viewing.cancelled", main.url, s),
            );
            assert.equal(back.id, r.id, "restored access renews the same subscription");
          },
        );

        await t.step("verification failures: -32015 with the reason, nothing written", async () => {
          const app = keep(await connectApp(w, w.provider.email, era));
          const s = newSecret();
          for (const r of [R.wrong, R.status500, R.noJson]) trust(s, r);
          for (const r of [R.wrong, R.status500, R.noJson]) {
            const receiver = w.receivers[r]!;
            const n = receiver.challenges.length;
            await refused(app, subscribeParams("inquiry.received", receiver.url, s), -32015, {
              reason: "challenge_failed",
            }, `challenge ${r}`);
            assert.equal(receiver.challenges.length, n + 1, "the challenge was sent");
            assert.deepEqual(receiver.challenges.at(-1)!.verified, { standardwebhooks: true, svix: true });
          }
          await refused(app, subscribeParams("inquiry.received", closed.url, s), -32015, {
            reason: "connection_refused",
          }, "closed port");

          // TLS: a receiver whose certificate does not name the host. The test resolver (the documented DNS seam
          // of AddressPolicy) lets `hooks.example` stand for 127.0.0.1; the leaf covers only localhost/127.0.0.1/::1.
          const policy = deps.events.policy;
          const saved = policy.resolve;
          policy.resolve = (host) =>
            Promise.resolve(
              host === "hooks.example" ? ["127.0.0.1"] : host === "localhost" ? ["127.0.0.1", "::1"] : [],
            );
          try {
            const n = main.challenges.length;
            await refused(
              app,
              subscribeParams("inquiry.received", `https://hooks.example:${main.port}/hook`, s),
              -32015,
              {
                reason: "tls_error",
              },
              "tls",
            );
            assert.equal(main.challenges.length, n, "nothing reached the receiver");
          } finally {
            policy.resolve = saved;
          }

          if (!timeoutTested) {
            // Waits the full 10 seconds of docs/contract.md §9: done once, not per era.
            timeoutTested = true;
            const hang = w.receivers[R.hang]!;
            await refused(app, subscribeParams("inquiry.received", hang.url, s), -32015, {
              reason: "timeout",
            }, "hang");
            assert.equal(hang.challenges.length, 1);
          }

          // Nothing was subscribed: the app has no subscription at all.
          const rows = await db.kysely.selectFrom("event_subscriptions").select("id")
            .where("client_id", "=", app.clientId).execute();
          assert.deepEqual(rows, []);
        });

        await t.step("51st subscription of a person and app: -32013; another app still can", async () => {
          const app = keep(await connectApp(w, w.provider.email, era));
          const s = newSecret();
          trust(s);
          const url = `${main.url}?limit=${era}`;
          const ids: string[] = [];
          for (const listing of ownListings) {
            const r = await app.call(
              "events/subscribe",
              subscribeParams("inquiry.received", url, s, { objekt_id: listing }),
            );
            ids.push(r.id as string);
          }
          assert.equal(new Set(ids).size, MAX_SUBSCRIPTIONS);
          const limit = { limit: "subscriptions", max: 50 };
          await refused(app, subscribeParams("inquiry.received", url, s), -32013, limit, "51st");
          await refused(app, subscribeParams("viewing.upcoming", url, s), -32013, limit, "51st, other event");
          // At the limit a renewal still works (it takes no new slot).
          const renewed = await app.call(
            "events/subscribe",
            subscribeParams("inquiry.received", url, s, { objekt_id: ownListings[0]! }),
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
                arguments: { objekt_id: ownListings[1]! },
                delivery: { url },
              }),
            ),
            {},
          );
          const freed = await app.call("events/subscribe", subscribeParams("inquiry.received", url, s));
          assert.match(freed.id as string, /^sub_/);
        });

        await t.step(
          "switched off by the user: -32012 ended_by_user on renewal and on a new subscribe",
          async () => {
            const app = keep(await connectApp(w, w.provider.email, era));
            const s = newSecret();
            trust(s);
            const first = await app.call("events/subscribe", subscribeParams("viewing.booked", main.url, s));
            assert.match(first.id as string, /^sub_/);
            await insertOptOut(
              db.kysely,
              w.provider.userId,
              app.clientId,
              "viewing.booked",
              new Date(w.t.now()),
            );
            const ended = { reason: "ended_by_user" };
            await refused(app, subscribeParams("viewing.booked", main.url, s), -32012, ended, "renewal");
            await refused(
              app,
              subscribeParams("viewing.booked", main.url, s, { objekt_id: w.listingId }),
              -32012,
              ended,
              "new subscribe",
            );
            // Only that event of that app is switched off.
            const otherEvent = await app.call(
              "events/subscribe",
              subscribeParams("viewing.cancelled", main.url, s),
            );
            assert.match(otherEvent.id as string, /^sub_/);
            const otherApp = await provA.call(
              "events/subscribe",
              subscribeParams("viewing.booked", main.url, s1),
            );
            assert.match(otherApp.id as string, /^sub_/);
          },
        );

        await t.step("unsubscribe ends the subscription; again → -32011 subscription", async () => {
          const s = newSecret();
          trust(s);
          const filter = { objekt_id: w.listingId };
          const gone = `${main.url}?unsubscribed=${era}`;
          const control = `${main.url}?control=${era}`;
          const a = await provA.call(
            "events/subscribe",
            subscribeParams("inquiry.received", gone, s, filter),
          );
          const b = await provA.call(
            "events/subscribe",
            subscribeParams("inquiry.received", control, s, filter),
          );
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
          assert.deepEqual({ code: err.code, data: err.data }, {
            code: -32011,
            data: { kind: "subscription" },
          });
          const never = await seekA.fail("events/unsubscribe", {
            name: "reply.received",
            arguments: {},
            delivery: { url: gone },
          });
          assert.deepEqual({ code: never.code, data: never.data }, {
            code: -32011,
            data: { kind: "subscription" },
          });
          const wrongServer = await seekA.fail("events/unsubscribe", params);
          assert.deepEqual({ code: wrongServer.code, data: wrongServer.data }, {
            code: -32011,
            data: { kind: "event" },
          });
        });
      });
    }

    await t.step("without sign-in: HTTP 401; the domain answers -32012 authentication_required", async () => {
      const list = { jsonrpc: "2.0", id: 1, method: "events/list", params: {} };
      const legacy = await rawMcpPost(w.resource, undefined, list, { "mcp-protocol-version": "2025-06-18" });
      const modern = await rawMcpPost(w.resource, undefined, {
        ...list,
        params: { _meta: discoverRequest().params._meta },
      }, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "events/list" });
      for (const res of [legacy, modern]) {
        assert.equal(res.status, 401);
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
        await res.body?.cancel();
      }
      const need = { reason: "authentication_required" };
      const params = subscribeParams("inquiry.received", w.receivers[R.main]!.url, newSecret());
      await domainRefuses(() => listEvents(undefined), -32012, need, "listEvents");
      await domainRefuses(() => subscribe(deps, undefined, params), -32012, need, "subscribe");
      await domainRefuses(() => unsubscribe(deps, undefined, params), -32012, need, "unsubscribe");
    });

    await t.step("insufficient_scope: not reachable (documented), domain guards checked", async () => {
      // Over HTTP the right is the one of the person's role now and must be in the token (else HTTP 403, see the
      // role-change step), and the server is chosen by that right; the domain refuses an event of the other server
      // with -32011 before its right check, so a principal whose right does not fit the event never reaches
      // "insufficient_scope" in subscribe (that reason only appears in `terminated` messages of delivery).
      const main = w.receivers[R.main]!;
      const seekerAsProvider: Principal = {
        userId: w.seeker.userId,
        role: "seeker",
        officeId: null,
        right: "suchen",
        origin: { kind: "oauth", clientId: "irgendeine-app" },
      };
      await domainRefuses(
        () => subscribe(deps, seekerAsProvider, subscribeParams("inquiry.received", main.url, newSecret())),
        -32011,
        { kind: "event" },
        "seeker right, provider event",
      );
    });

    await t.step("events not configured (EVENTS=off): -32603 events_not_configured", async () => {
      // The runtime a process with EVENTS=off builds (no secret box); the HTTP path is the same adapter as above.
      const config = { ...deps.config, events: false };
      const off: AppDeps = { ...deps, config, events: createEventRuntime({ ...deps, config }, deps.jobs!) };
      assert.equal(off.events!.box, undefined);
      const principal: Principal = {
        userId: w.provider.userId,
        role: "provider",
        officeId: w.officeId,
        right: "lesen",
        origin: { kind: "oauth", clientId: "irgendeine-app" },
      };
      await domainRefuses(
        () =>
          subscribe(
            off,
            principal,
            subscribeParams("inquiry.received", w.receivers[R.main]!.url, newSecret()),
          ),
        -32603,
        { reason: "events_not_configured" },
        "EVENTS=off",
      );
      off.events!.client.close();
    });
  } finally {
    for (const app of open) await app.close().catch(() => {});
    await w.close();
  }
});

/**
 * A result without `_meta`: in the 2026-07-28 era every result carries
 * `_meta["io.modelcontextprotocol/serverInfo"]` (added by the SDK, not by the event methods).
 */
function withoutMeta(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _drop, ...rest } = result;
  return rest;
}

/** A 2026-07-28 `server/discover` request. */
function discoverRequest() {
  return {
    jsonrpc: "2.0",
    id: 3,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw-events-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
}

/** A TCP port that is not one of the receivers' (so not in WEBHOOK_LOOPBACK_PORTS). */
function notListedPort(receivers: Receiver[]): number {
  const taken = new Set(receivers.map((r) => r.port));
  let port = 1;
  while (taken.has(port)) port++;
  return port;
}
