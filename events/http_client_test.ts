import assert from "node:assert/strict";
import { type Receiver, type ReceiverOptions, startReceiver, testCa } from "../tests/webhook_receiver.ts";
import type { AddressPolicy } from "./address.ts";
import {
  type DeliveryErrorCategory,
  errorCategory,
  type PostOutcome,
  webhookClient,
  type WebhookClientOptions,
} from "./http_client.ts";
import { classify } from "./delivery.ts";

const AGENT = "test-mcp-events";
const BODY = JSON.stringify({
  eventId: "evt_1",
  name: "inquiry.received",
  data: { satz: "Neu." },
  cursor: null,
});

async function withReceiver(
  opts: Partial<ReceiverOptions>,
  fn: (r: Receiver) => Promise<void>,
): Promise<void> {
  const receiver = await startReceiver({ secrets: () => [], ...opts });
  try {
    await fn(receiver);
  } finally {
    await receiver.close();
  }
}

/** A client that trusts the test CA and allows loopback on `ports`. */
async function clientFor(ports: number[], extra: Partial<WebhookClientOptions> = {}) {
  const policy: AddressPolicy = { loopbackPorts: new Set(ports) };
  return webhookClient({ policy, caCerts: [(await testCa()).caPem], userAgent: AGENT, ...extra });
}

async function postOnce(
  r: Receiver,
  extra: Partial<WebhookClientOptions> = {},
  url = r.url,
): Promise<PostOutcome> {
  const client = await clientFor([r.port], extra);
  try {
    return await client.post(new URL(url), { "webhook-id": "evt_1" }, BODY);
  } finally {
    client.close();
  }
}

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("a 2xx answer: headers and body arrive, status and body come back", async () => {
  await withReceiver({ respond: () => new Response("thanks", { status: 200 }) }, async (r) => {
    const out = await postOnce(r);
    assert.equal(out.kind, "response");
    assert.deepEqual(out.kind === "response" && { status: out.status, body: out.body }, {
      status: 200,
      body: "thanks",
    });
    const [d] = r.deliveries;
    assert.equal(d?.raw, BODY);
    assert.equal(d?.headers["content-type"], "application/json");
    assert.equal(d?.headers["user-agent"], AGENT);
    assert.equal(d?.headers["webhook-id"], "evt_1");
    assert.equal(d?.headers["host"], `localhost:${r.port}`);
  });
});

Deno.test("headers given by the caller win over the defaults", async () => {
  await withReceiver({}, async (r) => {
    const client = await clientFor([r.port]);
    try {
      const out = await client.post(
        new URL(r.url),
        { "Content-Type": "text/plain", "User-Agent": "other" },
        "x",
      );
      assert.equal(out.kind === "response" && out.status, 204);
    } finally {
      client.close();
    }
    assert.equal(r.deliveries[0]?.headers["content-type"], "text/plain");
    assert.equal(r.deliveries[0]?.headers["user-agent"], "other");
  });
});

Deno.test("410 and 3xx are plain responses; a redirect is not followed", async () => {
  let status = 410;
  await withReceiver({
    respond: () => new Response(null, { status, headers: { location: "https://localhost:1/elsewhere" } }),
  }, async (r) => {
    const gone = await postOnce(r);
    assert.equal(gone.kind === "response" && gone.status, 410);
    status = 302;
    const moved = await postOnce(r);
    assert.equal(moved.kind === "response" && moved.status, 302);
    assert.equal(r.deliveries.length, 2);
  });
});

Deno.test("a receiver slower than timeoutMs gives a timeout", async () => {
  const never = Promise.withResolvers<Response>();
  await withReceiver({ respond: () => never.promise }, async (r) => {
    const out = await postOnce(r, { timeoutMs: 200 });
    assert.deepEqual(out.kind === "failure" && out.errorClass, "timeout");
    assert.equal(r.deliveries.length, 1);
  });
});

Deno.test(
  "an answer over maxResponseBytes is response_too_large with its status; reading stops",
  async () => {
    const chunk = new TextEncoder().encode("x".repeat(4096));
    let pulled = 0;
    const endless = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull: (c) => {
            pulled++;
            c.enqueue(chunk);
          },
        }),
        { status: 500 },
      );
    await withReceiver({ respond: endless }, async (r) => {
      const out = await postOnce(r, { maxResponseBytes: 10_000 });
      assert.deepEqual(out.kind === "failure" && [out.errorClass, "status" in out && out.status], [
        "response_too_large",
        500,
      ]);
      assert.ok(pulled < 1_000, `${pulled} chunks pulled`);
    });
  },
);

Deno.test("an answer of exactly maxResponseBytes is a response", async () => {
  await withReceiver({ respond: () => new Response("y".repeat(10_000), { status: 200 }) }, async (r) => {
    const out = await postOnce(r, { maxResponseBytes: 10_000 });
    assert.equal(out.kind === "response" && out.body, "y".repeat(10_000));
  });
});

Deno.test(
  "TLS: an unknown CA or a certificate for another name is a tls_error, and nothing is delivered",
  async () => {
    const ca = await testCa();
    await withReceiver({}, async (r) => {
      const policy = (resolve?: AddressPolicy["resolve"]) => ({ loopbackPorts: new Set([r.port]), resolve });
      const cases: [string, Partial<WebhookClientOptions>][] = [
        ["default roots only", { caCerts: undefined }],
        ["the leaf as CA", { caCerts: [ca.certPem] }],
        ["another name", { policy: policy(() => Promise.resolve(["127.0.0.1"])) }],
      ];
      for (const [name, extra] of cases) {
        const url = name === "another name" ? `https://hooks.example:${r.port}/hook` : r.url;
        const out = await postOnce(r, extra, url);
        assert.deepEqual(out.kind === "failure" && out.errorClass, "tls_error", name);
      }
      assert.equal(r.deliveries.length, 0);
    });
  },
);

Deno.test("a closed port is connection_refused", async () => {
  const port = closedPort();
  const client = await clientFor([port]);
  try {
    const out = await client.post(new URL(`https://localhost:${port}/hook`), {}, BODY);
    assert.equal(out.kind === "failure" && out.errorClass, "connection_refused");
  } finally {
    client.close();
  }
});

Deno.test("loopback on a port that is not allowed is refused before any request", async () => {
  await withReceiver({}, async (r) => {
    const client = await clientFor([r.port + 1]);
    try {
      const out = await client.post(new URL(r.url), {}, BODY);
      assert.deepEqual(out.kind === "refused" && out.reason, "not_public");
      const literal = await client.post(new URL(`https://127.0.0.1:${r.port}/hook`), {}, BODY);
      assert.deepEqual(literal.kind === "refused" && literal.reason, "not_public");
    } finally {
      client.close();
    }
    assert.equal(r.deliveries.length, 0);
  });
});

Deno.test(
  "DNS rebinding: every call re-resolves; a private second answer is refused and never reached",
  async () => {
    await withReceiver({}, async (r) => {
      const answers = [["127.0.0.1"], ["10.0.0.1", "127.0.0.1"]];
      let lookups = 0;
      const resolve = () => {
        lookups++;
        return Promise.resolve(answers.shift() ?? []);
      };
      const client = await clientFor([], { policy: { loopbackPorts: new Set([r.port]), resolve } });
      try {
        const first = await client.post(new URL(r.url), {}, BODY);
        assert.equal(first.kind === "response" && first.status, 204);
        const second = await client.post(new URL(r.url), {}, BODY);
        assert.deepEqual(second.kind === "refused" && second.reason, "not_public");
        const third = await client.post(new URL(r.url), {}, BODY);
        assert.deepEqual(third.kind === "refused" && third.reason, "unresolvable");
      } finally {
        client.close();
      }
      assert.equal(lookups, 3);
      assert.equal(r.deliveries.length, 1);
    });
  },
);

Deno.test("keep-alive: sequential posts to one receiver reuse one connection; close() ends it", async () => {
  await withReceiver({}, async (r) => {
    const client = await clientFor([r.port]);
    try {
      for (let i = 0; i < 5; i++) {
        const out = await client.post(new URL(r.url), {}, BODY);
        assert.equal(out.kind === "response" && out.status, 204);
      }
      client.close();
      const after = await client.post(new URL(r.url), {}, BODY);
      assert.equal(after.kind === "response" && after.status, 204);
    } finally {
      client.close();
    }
    const ports = r.deliveries.map((d) => d.remotePort);
    assert.equal(new Set(ports.slice(0, 5)).size, 1);
    assert.notEqual(ports[5], ports[0]);
  });
});

/** Reads one HTTP/1.1 request (headers and content-length body) from `conn`; false at end of stream. */
async function readRequest(conn: Deno.Conn): Promise<boolean> {
  let text = "";
  const buf = new Uint8Array(16 * 1024);
  const decoder = new TextDecoder();
  while (true) {
    const end = text.indexOf("\r\n\r\n");
    const length = Number(/content-length: *(\d+)/i.exec(text)?.[1] ?? 0);
    if (end >= 0 && text.length >= end + 4 + length) return true;
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return false;
    text += decoder.decode(buf.subarray(0, n));
  }
}

/** Counts of a {@linkcode tlsServer}: connections accepted and requests read. */
interface ServerStats {
  connections: number;
  requests: number;
}

/** A TLS server (test CA) on loopback that runs `serve` for each accepted connection and closes it afterwards. */
async function tlsServer(serve: (conn: Deno.Conn, stats: ServerStats) => Promise<void>) {
  const ca = await testCa();
  const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert: ca.certPem, key: ca.keyPem });
  const stats: ServerStats = { connections: 0, requests: 0 };
  const open: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      stats.connections++;
      open.push(
        serve(conn, stats).finally(() => {
          try {
            conn.close();
          } catch { /* already closed */ }
        }),
      );
    }
  })();
  const close = async () => {
    listener.close();
    await accepting;
    await Promise.all(open);
  };
  return { port: listener.addr.port, stats, close };
}

/** A TLS server that answers the first request of each connection with 204 and drops the connection on the next. */
function oneShotServer() {
  return tlsServer(async (conn, stats) => {
    if (!(await readRequest(conn))) return;
    stats.requests++;
    await conn.write(new TextEncoder().encode("HTTP/1.1 204 No Content\r\nconnection: keep-alive\r\n\r\n"));
    if (await readRequest(conn)) stats.requests++;
  });
}

Deno.test("a kept-alive connection the receiver dropped is replaced once, on a new connection", async () => {
  const server = await oneShotServer();
  const client = await clientFor([server.port]);
  try {
    const url = new URL(`https://localhost:${server.port}/hook`);
    const first = await client.post(url, {}, BODY);
    const second = await client.post(url, {}, BODY);
    assert.deepEqual([first, second].map((o) => o.kind === "response" && o.status), [204, 204]);
  } finally {
    client.close();
    await server.close();
  }
  assert.deepEqual(server.stats, { connections: 2, requests: 3 });
});

Deno.test("a URL that fails the check is refused with its reason", async () => {
  const client = await clientFor([]);
  try {
    const out = await client.post(new URL("https://[fd00::1]/hook"), {}, BODY);
    assert.deepEqual(out.kind === "refused" && out.reason, "not_public");
  } finally {
    client.close();
  }
});

/** A TLS server answering every request on a connection with `answer(n)` (n counts from 0 per server). */
function scriptedServer(answer: (n: number) => string) {
  return tlsServer(async (conn, stats) => {
    while (await readRequest(conn)) {
      await conn.write(new TextEncoder().encode(answer(stats.requests++))).catch(() => {});
    }
  });
}

Deno.test(
  "answers larger than the reader's first buffer arrive whole, one after another on one connection",
  async () => {
    // Request 0: a 10 KiB header and a 30 KiB body; request 1: a small answer; request 2: a chunked 20 KiB body.
    const big = "x".repeat(10 * 1024);
    const body = (n: number) => `${n}`.repeat(30 * 1024 / `${n}`.length);
    const chunk = "z".repeat(10 * 1024);
    const server = await scriptedServer((n) =>
      n === 0
        ? `HTTP/1.1 200 OK\r\nx-big: ${big}\r\ncontent-length: ${body(7).length}\r\n\r\n${body(7)}`
        : n === 1
        ? "HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok"
        : `HTTP/1.1 202 Accepted\r\ntransfer-encoding: chunked\r\n\r\n2800\r\n${chunk}\r\n2800\r\n${chunk}\r\n0\r\n\r\n`
          .replace(
            /2800/g,
            chunk.length.toString(16),
          )
    );
    const client = await clientFor([server.port]);
    try {
      const url = new URL(`https://localhost:${server.port}/hook`);
      const outs: PostOutcome[] = [];
      for (let i = 0; i < 3; i++) outs.push(await client.post(url, {}, BODY));
      assert.deepEqual(
        outs.map((o) => o.kind === "response" && [o.status, o.body.length, o.body.slice(0, 3)]),
        [[200, 30 * 1024, "777"], [201, 2, "ok"], [202, 2 * chunk.length, "zzz"]],
      );
    } finally {
      client.close();
      await server.close();
    }
    assert.deepEqual(server.stats, { connections: 1, requests: 3 });
  },
);

Deno.test(
  "a post waiting for one of the 16 connections to a busy receiver times out in line, like those sent",
  async () => {
    // Reads the requests and never answers; the client's deadline closes the connection.
    const server = await tlsServer(async (conn) => {
      while (await readRequest(conn));
    });
    const client = await clientFor([server.port], { timeoutMs: 300 });
    try {
      const url = new URL(`https://localhost:${server.port}/hook`);
      const outs = await Promise.all(Array.from({ length: 17 }, () => client.post(url, {}, BODY)));
      assert.deepEqual(new Set(outs.map((o) => o.kind === "failure" && o.errorClass)), new Set(["timeout"]));
      assert.ok(outs.every((o) => o.durationMs >= 300 && o.durationMs < 2_000), JSON.stringify(outs));
    } finally {
      client.close();
      await server.close();
    }
    assert.equal(server.stats.connections, 16);
  },
);

Deno.test("an answer whose head is over 16 KiB is response_too_large without a status", async () => {
  const server = await scriptedServer(() =>
    `HTTP/1.1 200 OK\r\nx-big: ${"h".repeat(20 * 1024)}\r\ncontent-length: 0\r\n\r\n`
  );
  const client = await clientFor([server.port]);
  try {
    const out = await client.post(new URL(`https://localhost:${server.port}/hook`), {}, BODY);
    assert.deepEqual(out.kind === "failure" && [out.errorClass, "status" in out && out.status], [
      "response_too_large",
      null,
    ]);
  } finally {
    client.close();
    await server.close();
  }
});

/** A `response_too_large` failure with `status`. */
const tooLarge = (status: number | null): PostOutcome => ({
  kind: "failure",
  errorClass: "response_too_large",
  status,
  durationMs: 1,
});

Deno.test("an answer over the read limit is never retried: it counts by its status, else fails", () => {
  const outcomes = [200, 410, 500, 503, null].map((s) => classify(tooLarge(s), 1, 4));
  assert.deepEqual(outcomes, ["delivered", "gone", "failed", "failed", "failed"]);
  assert.equal(classify({ kind: "failure", errorClass: "network", durationMs: 1 }, 1, 4), "retry");
});

Deno.test("every outcome maps to one of the MCP events draft's lastError categories (null when accepted)", () => {
  const response = (status: number): PostOutcome => ({ kind: "response", status, body: "", durationMs: 1 });
  const failure = (errorClass: "timeout" | "connection_refused" | "tls_error" | "network"): PostOutcome => ({
    kind: "failure",
    errorClass,
    durationMs: 1,
  });
  const cases: Array<[PostOutcome, DeliveryErrorCategory | null]> = [
    [response(204), null],
    [response(302), "http_4xx"],
    [response(404), "http_4xx"],
    [response(500), "http_5xx"],
    [failure("timeout"), "timeout"],
    [failure("connection_refused"), "connection_refused"],
    [failure("tls_error"), "tls_error"],
    [failure("network"), "connection_refused"],
    [tooLarge(200), null],
    [tooLarge(429), "http_4xx"],
    [tooLarge(502), "http_5xx"],
    [tooLarge(null), "http_5xx"],
    [{ kind: "refused", reason: "not_public", durationMs: 0 }, "connection_refused"],
  ];
  assert.deepEqual(cases.map(([o]) => errorCategory(o)), cases.map(([, c]) => c));
});
