/**
 * Delivery attempts and retries (docs/contract.md §6.4 rules 3–5) with the test schedule (`EVENTS_RETRY_DELAYS_MS`
 * 0,300,600,900): one inquiry goes to one subscription per scripted HTTPS receiver, all at once: 500 three times
 * then 204, always 500, 410, 413, a redirect (not followed), a receiver slower than the 10 s attempt timeout once,
 * and a receiver that is down and comes back on the same port. Checks the attempt log, the `webhook-id` kept
 * across attempts, fresh timestamps and signatures, and what happens to the subscription. The retry schedule
 * itself (`classify`, `retryDelay`) is unit-tested below.
 */
import assert from "node:assert/strict";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { DEFAULT_RETRY_DELAYS_MS, loadConfig } from "../config.ts";
import { attemptLog } from "../db/delivery_log.ts";
import { listOutbox, type OutboxRow } from "../db/outbox.ts";
import { classify, retryDelay } from "../events/delivery.ts";
import type { PostOutcome } from "../events/http_client.ts";
import { ATTEMPT_TIMEOUT_MS } from "../events/runtime.ts";
import {
  connectApp,
  type ConnectedApp,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { type ReceivedDelivery, testCa } from "./webhook_receiver.ts";

/** Whether each receiver library accepts a message with `secret`. */
function verifyWith(
  secret: string,
  raw: string,
  headers: Record<string, string>,
): { standardwebhooks: boolean; svix: boolean } {
  const ok = (f: () => unknown) => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  return {
    standardwebhooks: ok(() => new StandardWebhook(secret).verify(raw, headers)),
    svix: ok(() => new SvixWebhook(secret).verify(raw, headers)),
  };
}

const BOTH = { standardwebhooks: true, svix: true };
const status = (s: number) => new Response(null, { status: s });

Deno.test("delivery attempts: retries, 410, 413, redirects, timeout, a receiver that comes back", async (t) => {
  // Scripted answers, per receiver, by call number.
  let flakyCalls = 0;
  let slowCalls = 0;
  let releaseSlow = () => {};
  const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
  const ids = ["flaky", "always500", "gone", "tooLarge", "redirect", "target", "slow", "down"] as const;
  type Id = typeof ids[number];
  const w = await eventsWorld({
    receivers: [
      { respond: () => status(++flakyCalls <= 3 ? 500 : 204) },
      { respond: () => status(500) },
      { respond: () => status(410) },
      { respond: () => status(413) },
      // redirect: answered below, once the target's address is known
      { respond: () => new Response(null, { status: 302, headers: { location: targetUrl } }) },
      {},
      {
        respond: async () => {
          if (++slowCalls === 1) {
            await slowReleased; // longer than the attempt timeout: released by the next attempt
            return status(204);
          }
          releaseSlow();
          return status(204);
        },
      },
      {},
    ],
  });
  const rx = Object.fromEntries(ids.map((id, i) => [id, w.receivers[i]!])) as Record<
    Id,
    typeof w.receivers[0]
  >;
  const targetUrl = rx.target.url;
  const apps: ConnectedApp[] = [];
  let revived: Deno.HttpServer | undefined;
  const db = w.tdb.db;
  try {
    await t.step("the world runs the short test schedule", () => {
      assert.deepEqual(w.t.deps.config.retryDelaysMs, [0, 300, 600, 900]);
      assert.equal(ATTEMPT_TIMEOUT_MS, 10_000);
    });

    const provider = await connectApp(w, w.provider.email, "v2-modern");
    const seeker = await connectApp(w, w.seeker.email, "v2-legacy");
    apps.push(provider, seeker);
    const subs = {} as Record<Exclude<Id, "target">, { id: string; secret: string }>;
    for (const [i, id] of ids.entries()) {
      if (id === "target") continue;
      const secret = newSecret();
      w.secrets[i]!.push(secret);
      const r = await provider.call(
        "events/subscribe",
        subscribeParams("inquiry.received", rx[id].url, secret),
      );
      subs[id] = { id: r.id as string, secret };
    }
    const downPort = rx.down.port;
    await rx.down.close();

    // The one event: an inquiry.
    const before = new Set((await listOutbox(db, { limit: 1000 })).map((r) => r.id));
    const sentAt = Date.now();
    const res = await seeker.callTool("send_inquiry", { listing_id: w.listingId, message: "Noch frei?" });
    assert.notEqual(res.isError, true, JSON.stringify(res.content));
    const rows = (await listOutbox(db, { limit: 1000 })).filter((r) =>
      !before.has(r.id) && r.name !== "proposal.pending"
    );
    assert.deepEqual(rows.map((r) => r.name), ["inquiry.received"]);
    const row: OutboxRow = rows[0]!;
    const eventId = `evt_${row.id.replaceAll("-", "")}`;

    // The down receiver comes back on the same port once the first attempt was refused.
    const revivedGot: Array<{ headers: Record<string, string>; raw: string }> = [];
    await until(async () => (await attemptLog(db, { subscriptionId: subs.down.id }, 10)).length > 0, 10_000);
    const ca = await testCa();
    revived = Deno.serve({
      port: downPort,
      hostname: "127.0.0.1",
      cert: ca.certPem,
      key: ca.keyPem,
      onListen() {},
    }, async (req) => {
      revivedGot.push({ headers: Object.fromEntries(req.headers), raw: await req.text() });
      return status(204);
    });

    // Everything settles: the slow receiver's first attempt ends with the 10 s timeout.
    await until(
      async () => {
        const ds = await db.kysely.selectFrom("event_deliveries").select("state").where(
          "outbox_id",
          "=",
          row.id,
        )
          .execute();
        return ds.length === 7 && ds.every((d) => d.state !== "pending" && d.state !== "sending");
      },
      30_000,
      "all deliveries finished",
    );

    const log = async (id: Exclude<Id, "target">) =>
      (await attemptLog(db, { subscriptionId: subs[id].id }, 100)).map((l) => {
        assert.equal(l.eventId, eventId);
        return {
          attempt: l.attempt,
          status: l.status,
          errorClass: l.errorClass,
          outcome: l.outcome,
          state: l.state,
        };
      });
    const subRow = (id: Exclude<Id, "target">) =>
      db.kysely.selectFrom("event_subscriptions").selectAll().where("id", "=", subs[id].id)
        .executeTakeFirstOrThrow();
    /** Same webhook-id on every attempt, each freshly signed and timestamped after the one before. */
    const assertAttempts = (got: ReceivedDelivery[], secret: string) => {
      let previousAt = sentAt;
      for (const d of got) {
        assert.equal(d.headers["webhook-id"], eventId);
        assert.equal(d.raw, got[0]!.raw, "the same body on every attempt");
        assert.deepEqual(d.verified, BOTH);
        assert.deepEqual(verifyWith(secret, d.raw, d.headers), BOTH);
        const ts = Number(d.headers["webhook-timestamp"]);
        assert.ok(
          ts >= Math.floor(previousAt / 1000) && ts <= Math.ceil(d.at / 1000),
          `fresh timestamp ${ts}`,
        );
        previousAt = d.at;
      }
    };

    await t.step("500 three times, then 204: four attempts, delivered on the fourth", async () => {
      assert.deepEqual((await log("flaky")).map((l) => [l.attempt, l.status, l.outcome]), [
        [1, 500, "retry"],
        [2, 500, "retry"],
        [3, 500, "retry"],
        [4, 204, "delivered"],
      ]);
      assert.ok((await log("flaky")).every((l) => l.state === "delivered" && l.errorClass === null));
      assert.equal(rx.flaky.deliveries.length, 4);
      assertAttempts(rx.flaky.deliveries, subs.flaky.secret);
      const s = await subRow("flaky");
      assert.equal(s.ended_at, null);
      assert.equal(s.suspended_at, null, "delivered on the fourth attempt: not suspended");
      assert.ok(s.last_failure_at !== null && s.last_delivery_at !== null);
      assert.ok(new Date(s.last_delivery_at) > new Date(s.last_failure_at), "the success came last");
    });

    await t.step(
      "always 500: exactly four attempts, then delivery is suspended and the event kept",
      async () => {
        assert.deepEqual((await log("always500")).map((l) => [l.attempt, l.status, l.outcome, l.state]), [
          [1, 500, "retry", "held"],
          [2, 500, "retry", "held"],
          [3, 500, "retry", "held"],
          [4, 500, "failed", "held"],
        ]);
        assert.equal(rx.always500.deliveries.length, 4);
        assertAttempts(rx.always500.deliveries, subs.always500.secret);
        const s = await subRow("always500");
        assert.equal(s.ended_at, null);
        assert.ok(s.suspended_at !== null, "suspended");
        assert.equal(s.last_error, "http_5xx");
      },
    );

    await t.step("410: one attempt, the subscription ends (gone), no terminated message", async () => {
      assert.deepEqual(await log("gone"), [
        { attempt: 1, status: 410, errorClass: null, outcome: "gone", state: "failed" },
      ]);
      assert.equal(rx.gone.deliveries.length, 1);
      assertAttempts(rx.gone.deliveries, subs.gone.secret);
      const s = await subRow("gone");
      assert.ok(s.ended_at !== null);
      assert.equal(s.end_reason, "gone");
      assert.equal(s.terminate_pending, false);
      assert.equal(s.terminated_sent_at, null);
    });

    await t.step("413: one attempt, failed, the subscription stays", async () => {
      assert.deepEqual(await log("tooLarge"), [
        { attempt: 1, status: 413, errorClass: null, outcome: "failed", state: "failed" },
      ]);
      assert.equal(rx.tooLarge.deliveries.length, 1);
      assertAttempts(rx.tooLarge.deliveries, subs.tooLarge.secret);
      const s = await subRow("tooLarge");
      assert.equal(s.ended_at, null);
      assert.equal(s.end_reason, null);
      assert.equal(s.suspended_at, null, "a 413 fails its event only");
      assert.equal(s.last_error, "http_4xx");
    });

    await t.step(
      "a redirect is not followed: a failure, retried; the other address gets nothing",
      async () => {
        assert.deepEqual((await log("redirect")).map((l) => [l.attempt, l.status, l.outcome]), [
          [1, 302, "retry"],
          [2, 302, "retry"],
          [3, 302, "retry"],
          [4, 302, "failed"],
        ]);
        assert.equal((await subRow("redirect")).last_error, "http_4xx", "an unfollowed redirect is http_4xx");
        assert.equal(rx.redirect.deliveries.length, 4);
        assertAttempts(rx.redirect.deliveries, subs.redirect.secret);
        assert.equal(rx.target.deliveries.length, 0);
        assert.equal(rx.target.challenges.length, 0);
      },
    );

    await t.step("slower than the attempt timeout: timeout, then delivered on the retry", async () => {
      assert.deepEqual(await log("slow"), [
        { attempt: 1, status: null, errorClass: "timeout", outcome: "retry", state: "delivered" },
        { attempt: 2, status: 204, errorClass: null, outcome: "delivered", state: "delivered" },
      ]);
      // Every POST is this event, signed; the retry carries a fresh timestamp (sent ≥ 10 s after the first).
      const got = rx.slow.deliveries;
      assert.ok(got.length >= 2, `${got.length} POSTs`);
      for (const d of got) {
        assert.equal(d.headers["webhook-id"], eventId);
        assert.equal(d.raw, got[0]!.raw);
        assert.deepEqual(verifyWith(subs.slow.secret, d.raw, d.headers), BOTH);
      }
      const firstTs = Number(got[0]!.headers["webhook-timestamp"]);
      const lastTs = Number(got.at(-1)!.headers["webhook-timestamp"]);
      assert.ok(lastTs >= Math.floor(got[0]!.at / 1000) + 9 && lastTs > firstTs, "the retry is signed anew");
    });

    await t.step("slower than the attempt timeout: one POST per logged attempt, none re-sent", () => {
      // The timed-out attempt is not sent again on another connection: attempt 1 and attempt 2, nothing else.
      assert.equal(rx.slow.deliveries.length, 2);
    });

    await t.step("a receiver that was down and came back: delivered on a later attempt", async () => {
      const lines = await log("down");
      assert.ok(lines.length >= 2 && lines.length <= 4, `${lines.length} attempts`);
      const last = lines.at(-1)!;
      assert.deepEqual([last.status, last.outcome, last.state], [204, "delivered", "delivered"]);
      for (const l of lines.slice(0, -1)) {
        assert.deepEqual([l.status, l.errorClass, l.outcome], [null, "connection_refused", "retry"]);
      }
      assert.deepEqual(lines.map((l) => l.attempt), lines.map((_, i) => i + 1));
      assert.equal(revivedGot.length, 1);
      const d = revivedGot[0]!;
      assert.equal(d.headers["webhook-id"], eventId);
      assert.equal(d.headers["x-mcp-subscription-id"], subs.down.id);
      assert.deepEqual(verifyWith(subs.down.secret, d.raw, d.headers), BOTH);
      assert.equal(d.raw, rx.flaky.deliveries[0]!.raw);
    });
  } finally {
    releaseSlow();
    for (const app of apps) await app.close().catch(() => {});
    await revived?.shutdown();
    await w.close();
  }
});

Deno.test("the retry schedule is data: classify and retryDelay", async (t) => {
  const response = (s: number): PostOutcome => ({ kind: "response", status: s, body: "", durationMs: 1 });
  const failure = (errorClass: "timeout" | "connection_refused" | "tls_error" | "network"): PostOutcome => ({
    kind: "failure",
    errorClass,
    durationMs: 1,
  });

  await t.step("the default schedule: immediately, then about 30 s, 2 min and 8 min", () => {
    assert.deepEqual(DEFAULT_RETRY_DELAYS_MS, [0, 30_000, 120_000, 480_000]);
    const config = loadConfig({ DATA_DIR: ":memory:" });
    assert.deepEqual(config.retryDelaysMs, DEFAULT_RETRY_DELAYS_MS);
    assert.deepEqual(
      loadConfig({ DATA_DIR: ":memory:", EVENTS_RETRY_DELAYS_MS: "0,300,600,900" }).retryDelaysMs,
      [0, 300, 600, 900],
    );
  });

  await t.step(
    "classify: 2xx delivered, 410 gone, 413 failed, the rest retried until the last attempt",
    () => {
      for (const s of [200, 201, 202, 204, 299]) {
        for (const n of [1, 2, 3, 4]) assert.equal(classify(response(s), n, 4), "delivered", `${s} #${n}`);
      }
      for (const n of [1, 4]) {
        assert.equal(classify(response(410), n, 4), "gone");
        assert.equal(classify(response(413), n, 4), "failed");
      }
      const retried: PostOutcome[] = [
        response(100),
        response(301),
        response(302),
        response(307),
        response(400),
        response(404),
        response(429),
        response(500),
        response(503),
        failure("timeout"),
        failure("connection_refused"),
        failure("tls_error"),
        failure("network"),
        { kind: "refused", reason: "not_public", durationMs: 0 } as PostOutcome,
      ];
      for (const r of retried) {
        for (const n of [1, 2, 3]) assert.equal(classify(r, n, 4), "retry", `${JSON.stringify(r)} #${n}`);
        assert.equal(classify(r, 4, 4), "failed", `${JSON.stringify(r)} #4`);
        assert.equal(classify(r, 1, 1), "failed", "a one-attempt schedule never retries");
      }
    },
  );

  await t.step("retryDelay: the next entry with ±10 % jitter; the last entry beyond the list", () => {
    const delays = DEFAULT_RETRY_DELAYS_MS;
    const cases: Array<[number, number]> = [[1, 30_000], [2, 120_000], [3, 480_000], [4, 480_000], [
      9,
      480_000,
    ]];
    for (const [n, base] of cases) {
      const seen = new Set<number>();
      for (let i = 0; i < 500; i++) {
        const d = retryDelay(delays, n);
        assert.ok(Number.isInteger(d), `${d} is whole milliseconds`);
        assert.ok(
          d >= base * 0.9 && d <= base * 1.1,
          `delay after attempt ${n}: ${d} within ±10 % of ${base}`,
        );
        seen.add(d);
      }
      assert.ok(seen.size > 1, "jittered");
    }
    assert.equal(retryDelay(delays, 0), 0);
    assert.equal(retryDelay([], 1), 0);
    for (let i = 0; i < 200; i++) {
      const d = retryDelay([0, 300, 600, 900], 1);
      assert.ok(d >= 270 && d <= 330, `${d}`);
    }
  });
});
