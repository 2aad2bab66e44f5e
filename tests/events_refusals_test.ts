/**
 * The refusals of events/subscribe and events/unsubscribe (docs/contract.md §8.4) with their code and `data`, and
 * that a refusal writes nothing: unknown events and events of the other server, delivery modes, addresses,
 * secrets, filters, filters outside the account, API keys, closed access, no sign-in, EVENTS=off. Through real MCP
 * clients of both eras over real OAuth connections, and the domain calls where HTTP cannot reach a guard. The
 * refusals of the address's verification are in events_verification_test.ts.
 */
import assert from "node:assert/strict";
import type { Principal } from "../auth/principal.ts";
import { endMembership, setRole, startMembership } from "../db/accounts.ts";
import { subscriptionById } from "../db/subscriptions.ts";
import { createEventRuntime } from "../events/runtime.ts";
import { base64 } from "../crypto.ts";
import { listEvents, subscribe, unsubscribe } from "../events/subscriptions.ts";
import type { AppDeps } from "../deps.ts";
import { newSecret, subscribeParams } from "./events_support.ts";
import { callsTest, callsWorld, discoverRequest, eraTest, notListedPort } from "./events_calls_support.ts";
import { fileWorld } from "./helpers.ts";
import { rawMcpPost } from "./mcp_helpers.ts";

const w = await fileWorld(callsWorld);
const db = w.tdb.db;
const deps = w.t.deps;
const main = w.main;

/** A secret the main receiver trusts. */
function trusted(): string {
  const s = newSecret();
  w.trust(s);
  return s;
}

eraTest(w, "an unknown event or an event of the other server: -32011 event", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const seekA = await c.app(w.seeker.email, era);
  const s1 = trusted();
  const event = { kind: "event" };
  await w.refused(provA, subscribeParams("no.such.event", main.url, s1), -32011, event, "unknown event");
  await w.refused(
    provA,
    subscribeParams("matches.new", main.url, s1),
    -32011,
    event,
    "seeker event on provider",
  );
  await w.refused(
    seekA,
    subscribeParams("inquiry.received", main.url, s1),
    -32011,
    event,
    "provider event on seeker",
  );
});

eraTest(w, "poll and push delivery: -32014 deliveryMode", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const seekA = await c.app(w.seeker.email, era);
  const s1 = trusted();
  await w.refused(
    provA,
    {
      ...subscribeParams("inquiry.received", main.url, s1),
      delivery: { mode: "poll", url: main.url, secret: s1 },
    },
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
});

eraTest(w, "a delivery address that is not public HTTPS: -32602 delivery.url:<reason>", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const s1 = trusted();
  const url = (u: string, reason: string) =>
    w.refused(provA, subscribeParams("inquiry.received", u, s1), -32602, {
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
});

eraTest(
  w,
  "a secret that is not whsec_ and 24–64 bytes of Base64: -32602 delivery.secret",
  async (c, era) => {
    const provA = await c.app(w.provider.email, era);
    const secret = (s: string, what: string) =>
      w.refused(provA, subscribeParams("inquiry.received", main.url, s), -32602, {
        reason: "delivery.secret",
      }, what);
    const ff = base64(new Uint8Array(32).fill(0xff)); // "////…" in standard Base64
    await secret(`sk_${ff}`, "no whsec_ prefix");
    await secret(`whsec_${ff.replaceAll("/", "_").replaceAll("+", "-")}`, "base64url characters");
    await secret(newSecret(23), "23 bytes");
    await secret(newSecret(65), "65 bytes");
    await secret("whsec_", "empty");
  },
);

eraTest(w, "filters that are not the event's: -32602 arguments", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const s1 = trusted();
  const args = (a: unknown, what: string) =>
    w.refused(
      provA,
      { ...subscribeParams("inquiry.received", main.url, s1), arguments: a },
      -32602,
      { reason: "arguments" },
      what,
    );
  await args({ unbekannt: "x" }, "unknown filter key");
  await args({ objekt_id: 5 }, "non-string filter");
  await args({ objekt_id: "" }, "empty filter");
  await args("objekt", "arguments not an object");
});

eraTest(w, "filters outside the account: -32012 arguments_not_in_account", async (c, era) => {
  const provA = await c.app(w.provider.email, era);
  const seekA = await c.app(w.seeker.email, era);
  const s1 = trusted();
  const notIn = { reason: "arguments_not_in_account" };
  const prov = (a: Record<string, string>, what: string, name = "inquiry.received") =>
    w.refused(provA, subscribeParams(name, main.url, s1, a), -32012, notIn, what);
  await prov({ objekt_id: w.foreignListing }, "listing of another office");
  await prov({ objekt_id: crypto.randomUUID() }, "random uuid");
  await prov({ objekt_id: "keine-uuid" }, "malformed id");
  await prov({ anfrage_id: crypto.randomUUID() }, "random inquiry", "message.received");

  const seek = (name: string, a: Record<string, string>) =>
    w.refused(seekA, subscribeParams(name, main.url, s1, a), -32012, notIn, `${name} ${JSON.stringify(a)}`);
  await seek("reply.received", { inquiry_id: w.foreignInquiry });
  await seek("viewing.changed", { inquiry_id: w.foreignInquiry });
  await seek("matches.new", { saved_search_id: w.foreignSearch });
  await seek("matches.new", { saved_search_id: crypto.randomUUID() });
});

eraTest(
  w,
  "the seeker's own saved search is in the account: a seeker subscription without office",
  async (c, era) => {
    const seekA = await c.app(w.seeker.email, era);
    const s1 = trusted();
    const own = (await seekA.callTool("create_saved_search", { filters: { max_price: 800_000 } }))
      .structuredContent.id as string;
    const r = await seekA.call(
      "events/subscribe",
      subscribeParams("matches.new", main.url, s1, { saved_search_id: own }),
    );
    assert.match(r.id as string, /^sub_/);
    const row = await subscriptionById(db.kysely, r.id as string);
    assert.equal(row?.server, "suche");
    assert.equal(row?.officeId, null);
  },
);

eraTest(w, "an API key may list but not subscribe: -32012 oauth_connection_required", async (c, era) => {
  const keyApp = await c.keyApp(w.providerKey, era);
  await w.refused(keyApp, subscribeParams("inquiry.received", main.url, trusted()), -32012, {
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

const LIST = { jsonrpc: "2.0", id: 5, method: "events/list", params: {} };
const LEGACY = { "mcp-protocol-version": "2025-06-18" };

eraTest(
  w,
  "membership ended: HTTP 401 invalid_token; the domain gives access_closed; restored access renews",
  async (c, era) => {
    const { provider2 } = w;
    const app = await c.app(provider2.email, era, { scope: "lesen offline_access" });
    const s = trusted();
    const r = await app.call("events/subscribe", subscribeParams("viewing.cancelled", main.url, s));
    assert.match(r.id as string, /^sub_/);
    try {
      // The HTTP layer re-reads access on every call: without a membership the token no longer counts.
      await endMembership(db, provider2.userId);
      const res = await rawMcpPost(w.resource, app.accessToken, LIST, LEGACY);
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
      await w.domainRefuses(
        () => subscribe(deps, principal, subscribeParams("viewing.cancelled", main.url, s)),
        -32012,
        { reason: "access_closed" },
        "access_closed",
      );
    } finally {
      await startMembership(db, provider2.userId, w.officeId);
    }
    const back = await app.call("events/subscribe", subscribeParams("viewing.cancelled", main.url, s));
    assert.equal(back.id, r.id, "restored access renews the same subscription");
  },
);

eraTest(
  w,
  "a provider who became a seeker: HTTP 403 insufficient_scope; restored access renews",
  async (c, era) => {
    const { provider2 } = w;
    const app = await c.app(provider2.email, era, { scope: "lesen offline_access" });
    const s = trusted();
    const r = await app.call("events/subscribe", subscribeParams("viewing.cancelled", main.url, s));
    assert.match(r.id as string, /^sub_/);
    try {
      // The token holds lesen, the role now needs suchen → HTTP 403.
      await setRole(db, provider2.userId, "seeker");
      const res = await rawMcpPost(w.resource, app.accessToken, LIST, LEGACY);
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), { error: "insufficient_scope" });
    } finally {
      await setRole(db, provider2.userId, "provider");
    }
    const back = await app.call("events/subscribe", subscribeParams("viewing.cancelled", main.url, s));
    assert.equal(back.id, r.id, "restored access renews the same subscription");
  },
);

callsTest(w, "without sign-in: HTTP 401; the domain answers -32012 authentication_required", async () => {
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
  const params = subscribeParams("inquiry.received", main.url, newSecret());
  await w.domainRefuses(() => listEvents(undefined), -32012, need, "listEvents");
  await w.domainRefuses(() => subscribe(deps, undefined, params), -32012, need, "subscribe");
  await w.domainRefuses(() => unsubscribe(deps, undefined, params), -32012, need, "unsubscribe");
});

callsTest(w, "insufficient_scope: not reachable (documented), domain guards checked", async () => {
  // Over HTTP the right is the one of the person's role now and must be in the token (else HTTP 403, see the
  // role-change test), and the server is chosen by that right; the domain refuses an event of the other server
  // with -32011 before its right check, so a principal whose right does not fit the event never reaches
  // "insufficient_scope" in subscribe (that reason only appears in `terminated` messages of delivery).
  const seekerAsProvider: Principal = {
    userId: w.seeker.userId,
    role: "seeker",
    officeId: null,
    right: "suchen",
    origin: { kind: "oauth", clientId: "irgendeine-app" },
  };
  await w.domainRefuses(
    () => subscribe(deps, seekerAsProvider, subscribeParams("inquiry.received", main.url, newSecret())),
    -32011,
    { kind: "event" },
    "seeker right, provider event",
  );
});

callsTest(w, "events not configured (EVENTS=off): -32603 events_not_configured", async () => {
  // The runtime a process with EVENTS=off builds (no secret box); the HTTP path is the same adapter as above.
  const config = { ...deps.config, events: false };
  const off: AppDeps = { ...deps, config, events: createEventRuntime({ ...deps, config }, deps.jobs!) };
  try {
    assert.equal(off.events!.box, undefined);
    const principal: Principal = {
      userId: w.provider.userId,
      role: "provider",
      officeId: w.officeId,
      right: "lesen",
      origin: { kind: "oauth", clientId: "irgendeine-app" },
    };
    await w.domainRefuses(
      () => subscribe(off, principal, subscribeParams("inquiry.received", main.url, newSecret())),
      -32603,
      { reason: "events_not_configured" },
      "EVENTS=off",
    );
  } finally {
    off.events!.client.close();
  }
});
