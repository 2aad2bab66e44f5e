/**
 * The error paths of the HTTP layer: the location baseline's content types (RFC 9110 §8.3.1, RFC 6839), the
 * `detail` of `invalid_json`, every 5xx logged once whatever produced it, 413 for chunked bodies of every method
 * over a real socket, and 405 with `Allow` for every method a known path does not serve.
 */
import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { OPENAPI_PATH } from "../app.ts";
import { MAX_BODY_BYTES } from "../routes/middleware.ts";
import { BASELINE_PATH } from "../routes/valuation.ts";
import { closeAfterAll, openTestDb, request, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
const t = await testApp(tdb.db);
closeAfterAll(t, tdb);
// Routes that fail in each way a 5xx can come about, added after the app's own.
t.app.get("/test/throws", () => {
  throw new TypeError("kaputt");
});
t.app.get("/test/http-exception", () => {
  throw new HTTPException(502, { message: "upstream gone" });
});
t.app.get("/test/answers-503", (c) => c.json({ status: "unavailable" }, 503));
t.app.get("/test/http-415", () => {
  throw new HTTPException(415, { message: "Unsupported Media Type" });
});
t.app.get("/test/http-422", () => {
  throw new HTTPException(422, { message: "Unprocessable" });
});

const PLZ = '{"plz":"80331"}';

/** POSTs `body` to the location baseline with content type `type`; status and parsed answer. */
async function baseline(type: string | undefined, body: string | Uint8Array<ArrayBuffer> = PLZ) {
  const res = await request(t.app, BASELINE_PATH, {
    method: "POST",
    headers: type === undefined ? {} : { "content-type": type },
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
  });
  return { status: res.status, body: await res.json() };
}

Deno.test("location baseline: every spelling of JSON is taken, a malformed type is 415, never a 500", async () => {
  for (
    const type of [
      "application/json",
      "application/json ; charset=utf-8",
      "application/json;",
      "application/json\t;\tcharset=utf-8",
      'application/json; charset="utf-8"',
      "Application/JSON",
      "application/vnd.v2+json",
      "application/problem+json; charset=utf-8",
    ]
  ) {
    const { status, body } = await baseline(type);
    assert.equal(status, 200, type);
    assert.equal(body.source, "none", type);
  }
  for (
    const type of [
      "application/json;charset",
      "application/json;charset=",
      'application/json; charset="utf-8',
      "application/json, text/plain",
      "application/+json",
      "text/plain",
      "text/json",
    ]
  ) {
    assert.deepEqual(await baseline(type), { status: 415, body: { error: "unsupported_media_type" } }, type);
  }
  assert.equal((await baseline(undefined, "")).status, 200);
  assert.deepEqual(t.logs.filter((l) => l.level === "error"), []);
});

Deno.test("invalid_json has a detail saying where the body broke, without quoting it", async () => {
  const cases: Array<[string | Uint8Array<ArrayBuffer>, string]> = [
    ['{"plz":', "body: not valid JSON (it ends too early)"],
    ['{"plz" "geheim-123"}', "body: not valid JSON (line 1 column 8)"],
    ['{\n"plz": "1",\n}', "body: not valid JSON (line 3 column 1)"],
    ['{"plz": geheim-123}', "body: not valid JSON (unexpected character)"],
    ["", "body: empty (expected JSON)"],
    [new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), "body: not valid UTF-8"],
  ];
  for (const [body, detail] of cases) {
    assert.deepEqual(
      await baseline("application/json", body),
      { status: 400, body: { error: "invalid_json", detail } },
      String(body),
    );
  }
});

Deno.test("a 400 detail is never cut inside an emoji", async () => {
  const name = `x${"😀".repeat(30)}`;
  const res = await request(t.app, `/api/public/properties?${encodeURIComponent(name)}=1`);
  const body = await res.json();
  assert.equal(res.status, 400);
  assert.ok(body.detail.isWellFormed(), body.detail);
  assert.match(body.detail, /^x(😀){19}…: unknown parameter$/);
});

Deno.test("region_label is never cut inside an emoji or a grapheme", async () => {
  for (const city of [`a${"😀".repeat(40)}`, "x👨‍👩‍👧‍👦".repeat(9), `e${"\u0301".repeat(90)}`]) {
    const { status, body } = await baseline("application/json", JSON.stringify({ city }));
    assert.equal(status, 200, city);
    assert.ok(body.region_label.isWellFormed(), body.region_label);
    assert.ok(body.region_label.length <= city.length + 40);
  }
});

/** The error log lines of the request that got `res`. */
function errorLines(res: Response) {
  const rid = res.headers.get("x-request-id");
  assert.ok(rid);
  return t.logs.filter((l) => l.level === "error" && l.fields?.requestId === rid);
}

Deno.test("every 5xx is logged once with request id, method, route, path, status and error name and message", async () => {
  const cases: Array<[string, number, string]> = [
    ["/test/throws", 500, "TypeError: kaputt"],
    ["/test/http-exception", 500, "Error: upstream gone"],
    ["/test/answers-503", 503, "no exception: the route answered 503"],
  ];
  for (const [path, status, error] of cases) {
    const res = await request(t.app, `${path}?q=1`);
    assert.equal(res.status, status, path);
    assert.deepEqual(
      await res.json(),
      status === 503 ? { status: "unavailable" } : { error: "internal_error" },
      path,
    );
    const lines = errorLines(res);
    assert.equal(lines.length, 1, path);
    assert.deepEqual(lines[0]!.fields, {
      requestId: res.headers.get("x-request-id"),
      method: "GET",
      route: path,
      path,
      status,
      error,
    });
  }
});

Deno.test("HTTP exceptions keep their 4xx meaning instead of becoming 500", async () => {
  let res = await request(t.app, "/test/http-415");
  assert.deepEqual([res.status, await res.json()], [415, { error: "unsupported_media_type" }]);
  res = await request(t.app, "/test/http-422");
  assert.deepEqual([res.status, await res.json()], [400, {
    error: "invalid_request",
    detail: "request: Unprocessable",
  }]);
  assert.deepEqual(errorLines(res), []);
});

/** Sends `method path` with a chunked body of `size` bytes over a raw TCP connection; the status line's code. */
async function chunked(port: number, method: string, path: string, size: number): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const enc = new TextEncoder();
  try {
    await conn.write(
      enc.encode(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      ),
    );
    const chunk = new Uint8Array(64 * 1024);
    for (let left = size; left > 0; left -= chunk.length) {
      const n = Math.min(left, chunk.length);
      await conn.write(enc.encode(`${n.toString(16)}\r\n`));
      await conn.write(chunk.subarray(0, n));
      await conn.write(enc.encode("\r\n"));
    }
    await conn.write(enc.encode("0\r\n\r\n"));
  } catch { /* the server may answer and close before the whole body is sent */ }
  const buf = new Uint8Array(1024);
  const n = await conn.read(buf);
  conn.close();
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(new TextDecoder().decode(buf.subarray(0, n ?? 0)))?.[1]);
}

/** Runs `fn` with the test app served on a loopback port. */
async function served(fn: (port: number) => Promise<void>): Promise<void> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req, info) => t.app.fetch(req, info),
  );
  try {
    await fn(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

Deno.test({
  name:
    "over a real socket: a chunked body over 512 KiB gets 413 with every method, on known and unknown paths",
  fn: () =>
    served(async (port) => {
      const big = MAX_BODY_BYTES + 1;
      for (
        const [method, path] of [
          ["DELETE", "/api/public/properties"],
          ["DELETE", "/nirgends"],
          ["POST", BASELINE_PATH],
          ["POST", "/api/public/properties"],
        ]
      ) {
        assert.equal(await chunked(port, method!, path!, big), 413, `${method} ${path}`);
      }
      assert.equal(await chunked(port, "DELETE", "/nirgends", MAX_BODY_BYTES), 404);
      assert.equal(await chunked(port, "DELETE", "/api/public/properties", 10), 405);
    }),
});

Deno.test({
  name:
    "over a real socket: a GET or HEAD with Transfer-Encoding is served as without a body, whatever it sends",
  fn: () =>
    served(async (port) => {
      // Deno.serve never hands the body of a GET or HEAD to the app (RFC 9110 §9.3.1: it has no meaning), so it
      // is neither read nor counted, and nothing exceeds 512 KB.
      for (const size of [0, 10, MAX_BODY_BYTES + 1]) {
        assert.equal(await chunked(port, "GET", "/healthz", size), 200, `GET /healthz, ${size} bytes`);
        assert.equal(await chunked(port, "GET", "/api/public/properties", size), 200, `${size} bytes`);
        assert.equal(await chunked(port, "HEAD", "/api/public/properties", size), 200, `HEAD, ${size} bytes`);
        assert.equal(await chunked(port, "GET", "/nirgends", size), 404, `GET /nirgends, ${size} bytes`);
      }
    }),
});

Deno.test("413 under /api/public carries Access-Control-Allow-Origin, so a browser app can read the error", async () => {
  const origin = { origin: "https://app.example" };
  const big = new Uint8Array(MAX_BODY_BYTES + 1);
  for (
    const [path, init] of [
      [BASELINE_PATH, {
        method: "POST",
        headers: { ...origin, "content-type": "application/json" },
        body: big,
      }],
      [BASELINE_PATH, {
        method: "POST",
        headers: { ...origin, "content-length": String(MAX_BODY_BYTES + 1) },
      }],
      ["/api/public/properties", { method: "POST", headers: origin, body: big }],
      [OPENAPI_PATH, { method: "POST", headers: origin, body: big }],
    ] as Array<[string, RequestInit]>
  ) {
    const res = await request(t.app, path, init);
    assert.equal(res.status, 413, path);
    assert.deepEqual(await res.json(), { error: "payload_too_large" });
    assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
  }
  const preflight = await request(t.app, BASELINE_PATH, {
    method: "OPTIONS",
    headers: { ...origin, "access-control-request-method": "POST" },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
  const elsewhere = await request(t.app, "/api/inbound/email", {
    method: "POST",
    headers: origin,
    body: big,
  });
  assert.equal(elsewhere.status, 413);
  assert.equal(elsewhere.headers.get("access-control-allow-origin"), null, "no CORS outside /api/public");
  await elsewhere.body?.cancel();
});

Deno.test({
  name: "over a real socket: TRACE on a known path is 405 with Allow, on an unknown path 404",
  fn: () =>
    served(async (port) => {
      for (
        const [path, status, allow] of [
          ["/api/public/properties", 405, "GET, HEAD, OPTIONS"],
          ["/healthz", 405, "GET, HEAD"],
          ["/nirgends", 404, null],
        ] as const
      ) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        await conn.write(
          new TextEncoder().encode(`TRACE ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
        );
        const buf = new Uint8Array(4096);
        const head = new TextDecoder().decode(buf.subarray(0, (await conn.read(buf)) ?? 0));
        conn.close();
        assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), path);
        assert.equal(/\r\nallow: ([^\r]*)/i.exec(head)?.[1] ?? null, allow, path);
      }
    }),
});

Deno.test("405 with a correct Allow for every method a known path does not serve", async () => {
  const cases: Array<[string, string, string]> = [
    ["PROPFIND", "/api/public/properties", "GET, HEAD, OPTIONS"],
    ["MKCOL", "/api/public/properties/00000000-0000-0000-0000-000000000000", "GET, HEAD, OPTIONS"],
    ["PUT", BASELINE_PATH, "POST, OPTIONS"],
    ["GET", BASELINE_PATH, "POST, OPTIONS"],
    ["HEAD", BASELINE_PATH, "POST, OPTIONS"],
    ["LINK", "/healthz", "GET, HEAD"],
    ["OPTIONS", "/healthz", "GET, HEAD"],
    ["DELETE", "/anmelden", "GET, HEAD, POST"],
    ["PATCH", "/objekte/x/anfrage", "POST"],
    ["BREW", "/api/public/openapi.json", "GET, HEAD, OPTIONS"],
  ];
  for (const [method, path, allow] of cases) {
    const res = await request(t.app, path, { method });
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(res.headers.get("allow"), allow, `${method} ${path}`);
    if (method !== "HEAD") assert.deepEqual(await res.json(), { error: "method_not_allowed" });
    else await res.body?.cancel();
  }
  for (const [method, path] of [["PROPFIND", "/nirgends"], ["GET", "/api/public/properties/a/b"]]) {
    const res = await request(t.app, path!, { method });
    assert.equal(res.status, 404, `${method} ${path}`);
    await res.body?.cancel();
  }
  const preflight = await request(t.app, "/api/public/properties", { method: "OPTIONS" });
  assert.equal(preflight.status, 204);
});
