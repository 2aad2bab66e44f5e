/**
 * The verification of a delivery address before events/subscribe (docs/contract.md §6.1, §8.4, §9): a receiver
 * that answers the challenge wrongly, with a 500 or without JSON, a closed port, a certificate that does not name
 * the host and a receiver that does not answer in 10 seconds are each refused with -32015 and their reason, and
 * nothing is written. Real HTTPS receivers, real MCP clients of both eras over real OAuth connections.
 */
import assert from "node:assert/strict";
import type { ConnectedApp } from "./events_support.ts";
import { newSecret, subscribeParams } from "./events_support.ts";
import { callsTest, callsWorld, eraTest, R } from "./events_calls_support.ts";
import { fileWorld } from "./helpers.ts";

const w = await fileWorld(callsWorld);
const db = w.tdb.db;
const main = w.main;

/** Nothing was subscribed: the app has no subscription at all. */
async function noSubscriptionOf(app: ConnectedApp): Promise<void> {
  const rows = await db.kysely.selectFrom("event_subscriptions").select("id")
    .where("client_id", "=", app.clientId).execute();
  assert.deepEqual(rows, []);
}

eraTest(
  w,
  "a challenge answered wrongly, with a 500 or without JSON: -32015 challenge_failed",
  async (c, era) => {
    const app = await c.app(w.provider.email, era);
    const s = newSecret();
    for (const r of [R.wrong, R.status500, R.noJson]) w.trust(s, r);
    for (const r of [R.wrong, R.status500, R.noJson]) {
      const receiver = w.receivers[r]!;
      const n = receiver.challenges.length;
      await w.refused(app, subscribeParams("inquiry.received", receiver.url, s), -32015, {
        reason: "challenge_failed",
      }, `challenge ${r}`);
      assert.equal(receiver.challenges.length, n + 1, "the challenge was sent");
      assert.deepEqual(receiver.challenges.at(-1)!.verified, { standardwebhooks: true, svix: true });
    }
    await noSubscriptionOf(app);
  },
);

eraTest(w, "an allowed port where nothing listens: -32015 connection_refused", async (c, era) => {
  const app = await c.app(w.provider.email, era);
  await w.refused(app, subscribeParams("inquiry.received", w.closed.url, newSecret()), -32015, {
    reason: "connection_refused",
  }, "closed port");
  await noSubscriptionOf(app);
});

eraTest(
  w,
  "a certificate that does not name the host: -32015 tls_error, nothing reaches the receiver",
  async (c, era) => {
    const app = await c.app(w.provider.email, era);
    const s = newSecret();
    w.trust(s);
    // The test resolver (the documented DNS seam of AddressPolicy) lets `hooks.example` stand for 127.0.0.1; the
    // leaf covers only localhost/127.0.0.1/::1.
    const policy = w.t.deps.events.policy;
    const saved = policy.resolve;
    policy.resolve = (host) =>
      Promise.resolve(
        host === "hooks.example" ? ["127.0.0.1"] : host === "localhost" ? ["127.0.0.1", "::1"] : [],
      );
    try {
      const n = main.challenges.length;
      await w.refused(
        app,
        subscribeParams("inquiry.received", `https://hooks.example:${main.port}/hook`, s),
        -32015,
        { reason: "tls_error" },
        "tls",
      );
      assert.equal(main.challenges.length, n, "nothing reached the receiver");
    } finally {
      policy.resolve = saved;
    }
    await noSubscriptionOf(app);
  },
);

// Waits the full 10 seconds of docs/contract.md §9: one era only.
callsTest(w, "v2-modern: a receiver that does not answer in 10 seconds: -32015 timeout", async (c) => {
  const app = await c.app(w.provider.email, "v2-modern");
  const s = newSecret();
  w.trust(s, R.hang);
  const hang = w.receivers[R.hang]!;
  const n = hang.challenges.length;
  await w.refused(app, subscribeParams("inquiry.received", hang.url, s), -32015, {
    reason: "timeout",
  }, "hang");
  assert.equal(hang.challenges.length, n + 1);
  await noSubscriptionOf(app);
});
