import assert from "node:assert/strict";
import { type Receiver, type ReceiverOptions, startReceiver, testCa } from "./webhook_receiver.ts";

function encodeBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** A whsec_ secret of 32 random bytes (standard Base64). */
function newSecret(): string {
  return `whsec_${encodeBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** Standard Webhooks signature `v1,<base64 HMAC-SHA256(key, id.ts.body)>`, made with Web Crypto. */
async function sign(secret: string, id: string, ts: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    decodeBase64(secret.slice("whsec_".length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${ts}.${body}`));
  return `v1,${encodeBase64(new Uint8Array(mac))}`;
}

interface Sent {
  status: number;
  text: string;
}

/** POSTs `body` to `url` over TLS trusting only the test CA (besides the default roots). */
async function post(url: string, headers: Record<string, string>, body: string): Promise<Sent> {
  const client = Deno.createHttpClient({ caCerts: [(await testCa()).caPem] });
  try {
    const res = await fetch(url, { method: "POST", headers, body, client });
    return { status: res.status, text: await res.text() };
  } finally {
    client.close();
  }
}

async function signedHeaders(secret: string, body: string, ts = Math.floor(Date.now() / 1000)) {
  const id = `evt_${crypto.randomUUID()}`;
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(ts),
    "webhook-signature": await sign(secret, id, ts, body),
  };
}

async function withReceiver(opts: ReceiverOptions, fn: (r: Receiver) => Promise<void>) {
  const receiver = await startReceiver(opts);
  try {
    await fn(receiver);
  } finally {
    await receiver.close();
  }
}

Deno.test("the test CA is a CA plus a leaf for localhost", async () => {
  const ca = await testCa();
  assert.match(ca.caPem, /^-----BEGIN CERTIFICATE-----/);
  assert.match(ca.certPem, /^-----BEGIN CERTIFICATE-----/);
  assert.match(ca.keyPem, /PRIVATE KEY-----/);
  assert.notEqual(ca.caPem, ca.certPem);
  assert.equal(await testCa(), ca);
});

Deno.test("the receiver verifies signatures with both libraries and records deliveries", async (t) => {
  const secret = newSecret();
  const trusted = [secret];
  await withReceiver({ secrets: () => trusted }, async (r) => {
    assert.equal(r.url, `https://localhost:${r.port}/hook`);

    await t.step("a correctly signed event is verified by both and answered 204", async () => {
      const body = JSON.stringify({
        eventId: "evt_1",
        name: "inquiry.received",
        data: { satz: "x" },
        cursor: null,
      });
      const headers = await signedHeaders(secret, body);
      assert.deepEqual(await post(r.url, headers, body), { status: 204, text: "" });
      await r.waitFor(1);
      const [d] = r.deliveries;
      assert.deepEqual(d?.verified, { standardwebhooks: true, svix: true });
      assert.equal(d?.raw, body);
      assert.deepEqual(d?.json, JSON.parse(body));
      assert.equal(d?.headers["webhook-id"], headers["webhook-id"]);
      assert.equal(r.challenges.length, 0);
    });

    await t.step("a bad signature, a foreign secret and a stale timestamp are not verified", async () => {
      const body = JSON.stringify({ eventId: "evt_2" });
      const good = await signedHeaders(secret, body);
      // Change the first signature character to a different one (always "A" was a no-op 1 time in 64).
      const tampered = {
        ...good,
        "webhook-signature": good["webhook-signature"].replace(
          /^v1,(.)/,
          (_, c) => `v1,${c === "A" ? "B" : "A"}`,
        ),
      };
      const foreign = await signedHeaders(newSecret(), body);
      const stale = await signedHeaders(secret, body, Math.floor(Date.now() / 1000) - 3600);
      for (const headers of [tampered, foreign, stale]) await post(r.url, headers, body);
      await post(r.url, good, `${body} `);
      await r.waitFor(5);
      for (const d of r.deliveries.slice(1)) {
        assert.deepEqual(d.verified, { standardwebhooks: false, svix: false });
      }
    });

    await t.step(
      "during rotation one of two signatures is enough; the trusted list is read per request",
      async () => {
        const next = newSecret();
        const body = JSON.stringify({ eventId: "evt_3" });
        const h = await signedHeaders(next, body);
        const old = await sign(secret, h["webhook-id"], Number(h["webhook-timestamp"]), body);
        await post(r.url, { ...h, "webhook-signature": `${old} ${h["webhook-signature"]}` }, body);
        await post(r.url, h, body);
        trusted.push(next);
        await post(r.url, h, body);
        await r.waitFor(8);
        assert.deepEqual(r.deliveries.slice(5).map((d) => d.verified.svix && d.verified.standardwebhooks), [
          true,
          false,
          true,
        ]);
      },
    );
  });
});

Deno.test("challenges are recorded apart and answered as configured", async () => {
  const secret = newSecret();
  const body = JSON.stringify({ type: "verification", challenge: "c-123" });
  await withReceiver({ secrets: () => [secret] }, async (r) => {
    const res = await post(r.url, await signedHeaders(secret, body), body);
    assert.deepEqual({ status: res.status, json: JSON.parse(res.text) }, {
      status: 200,
      json: { challenge: "c-123" },
    });
    assert.equal(r.challenges.length, 1);
    assert.equal(r.deliveries.length, 0);
    assert.deepEqual(r.challenges[0]?.verified, { standardwebhooks: true, svix: true });
  });
  for (const [mode, status] of [["wrong", 200], ["status500", 500], ["no-answer-json", 200]] as const) {
    await withReceiver({ secrets: () => [secret], challenge: mode }, async (r) => {
      const res = await post(r.url, await signedHeaders(secret, body), body);
      assert.equal(res.status, status, mode);
      assert.notDeepEqual(res.status === 200 ? parseOrNull(res.text) : null, { challenge: "c-123" }, mode);
    });
  }
});

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

Deno.test("a hanging challenge gets no answer, and close does not wait for it", async () => {
  const secret = newSecret();
  const body = JSON.stringify({ type: "verification", challenge: "c-hang" });
  await withReceiver({ secrets: () => [secret], challenge: "hang" }, async (r) => {
    const client = Deno.createHttpClient({ caCerts: [(await testCa()).caPem] });
    const stop = new AbortController();
    const sent = fetch(r.url, {
      method: "POST",
      body,
      headers: await signedHeaders(secret, body),
      client,
      signal: stop.signal,
    });
    while (r.challenges.length === 0) await new Promise((ok) => setTimeout(ok, 10));
    stop.abort();
    await assert.rejects(sent);
    client.close();
  });
});

Deno.test("custom answers, and the receiver's clock decides the timestamp window", async () => {
  const secret = newSecret();
  const shift = 3 * 3600_000;
  await withReceiver({
    secrets: () => [secret],
    now: () => Date.now() + shift,
    respond: (d) => new Response(`seen ${(d.json as { n: number }).n}`, { status: 410 }),
  }, async (r) => {
    const body = JSON.stringify({ n: 7 });
    const shifted = Math.floor((Date.now() + shift) / 1000);
    assert.deepEqual(await post(r.url, await signedHeaders(secret, body, shifted), body), {
      status: 410,
      text: "seen 7",
    });
    await post(r.url, await signedHeaders(secret, body), body);
    await r.waitFor(2);
    assert.deepEqual(r.deliveries.map((d) => d.verified), [
      { standardwebhooks: true, svix: true },
      { standardwebhooks: false, svix: false },
    ]);
    assert.ok(r.deliveries[0]!.at >= shifted * 1000);
  });
});

Deno.test("waitFor rejects when too few deliveries arrive", async () => {
  await withReceiver({ secrets: () => [] }, async (r) => {
    await assert.rejects(r.waitFor(1, 50), /0 of 1 deliveries/);
  });
});
