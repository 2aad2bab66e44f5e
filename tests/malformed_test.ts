/**
 * A table of malformed requests: every one gets the documented 4xx JSON error, never a 5xx, and the catalogue
 * is unchanged afterwards. Bodies over 512 KB are refused with and without Content-Length (also over real TCP).
 */
import assert from "node:assert/strict";
import { seedSample } from "../catalogue/seed.ts";
import { MAX_BODY_BYTES } from "../routes/middleware.ts";
import { closeAfterAll, openTestDb, request, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
await seedSample(tdb.db, { count: 40 });
const t = await testApp(tdb.db);
const { app } = t;
closeAfterAll(t, tdb);
const P = "/api/public/properties";
const big = "x".repeat(10 * 1024);

interface Case {
  path: string;
  status: number;
  error: string;
  method?: string;
  body?: BodyInit;
  headers?: Record<string, string>;
  detail?: RegExp;
}

const bad = (query: string, detail?: RegExp): Case => ({
  path: `${P}?${query}`,
  status: 400,
  error: "invalid_request",
  ...(detail ? { detail } : {}),
});
const notFound = (path: string): Case => ({ path, status: 404, error: "not_found" });

const CASES: Case[] = [
  bad("page=0", /^page: /),
  bad("page=-1", /^page: /),
  bad("page=abc", /^page: /),
  bad("page=1.5", /^page: /),
  bad("page=", /^page: /),
  bad("page=NaN", /^page: /),
  bad("page=Infinity", /^page: /),
  bad("page=1e3", /^page: /),
  bad("page=0x10", /^page: /),
  bad("page=%201", /^page: /),
  bad("page=99999999999999999999999999999999", /^page: /),
  bad("page=1000001", /^page: must be at most/),
  bad("page=1&page=2", /^page: given more than once/),
  bad("page=1;DROP%20TABLE%20listings", /^page: /),
  bad("page_size=0", /^page_size: /),
  bad("page_size=61", /^page_size: must be at most 60/),
  bad("page_size=1000", /^page_size: /),
  bad("page_size=-5", /^page_size: /),
  bad("page_size=ten", /^page_size: /),
  bad("page_size=1.0", /^page_size: /),
  bad("city=", /^city: /),
  bad("city=%20%20%20", /^city: /),
  bad(`city=${big}`, /^city: /),
  bad("city=Berlin%00", /^city: /),
  bad("city=Ber%0Alin", /^city: /),
  bad("city=Ber%C2%85lin", /^city: must not contain control characters/),
  bad("city=Berlin&city=Hamburg", /^city: given more than once/),
  bad("transaction_type=Buy", /^transaction_type: /),
  bad("transaction_type=kauf", /^transaction_type: /),
  bad("transaction_type=", /^transaction_type: /),
  bad("transaction_type=%3Cscript%3Ealert(1)%3C%2Fscript%3E", /^transaction_type: /),
  bad("transaction_type=buy&transaction_type=rent", /^transaction_type: /),
  bad("property_type=flat", /^property_type: /),
  bad("property_type=Apartment", /^property_type: /),
  bad("property_type=apartment,house", /^property_type: /),
  bad("property_type=%27%20OR%20%271%27%3D%271", /^property_type: /),
  bad("min_price=-1", /^min_price: /),
  bad("min_price=abc", /^min_price: /),
  bad("min_price=NaN", /^min_price: /),
  bad("min_price=Infinity", /^min_price: /),
  bad("min_price=1e5", /^min_price: /),
  bad("min_price=", /^min_price: /),
  bad("min_price=1,5", /^min_price: /),
  bad("min_price=1.1234567", /^min_price: /),
  bad("min_price=10000000000000", /^min_price: /),
  bad("min_price=1%20000", /^min_price: /),
  bad("max_price=-1", /^max_price: /),
  bad("max_price=1e400", /^max_price: /),
  bad("min_price=500&max_price=100", /^min_price: the minimum is greater than the maximum/),
  bad("min_rooms=-1", /^min_rooms: /),
  bad("min_rooms=three", /^min_rooms: /),
  bad("min_sqm=-0.5", /^min_sqm: /),
  bad("min_sqm=1e999", /^min_sqm: /),
  bad("foo=1", /^foo: unknown parameter/),
  bad("PAGE=1", /^PAGE: unknown parameter/),
  bad("page%5B%5D=1", /unknown parameter/),
  bad("utm_source=newsletter", /unknown parameter/),
  bad(`${big}=1`, /unknown parameter/),
  bad("city=Berlin&sort=price", /^sort: /),
  notFound(`${P}/not-a-uuid`),
  notFound(`${P}/${crypto.randomUUID()}`),
  notFound(`${P}/00000000-0000-0000-0000-000000000000`),
  notFound(`${P}/%27%20OR%201%3D1%20--`),
  notFound(`${P}/%3Cscript%3E`),
  notFound(`${P}/${big}`),
  notFound(`${P}/12345678-1234-1234-1234-1234567890123`),
  notFound(`${P}/12345678123412341234123456789012`),
  notFound(`${P}/{id}`),
  notFound("/api/public"),
  notFound("/api/public/propertiesX"),
  notFound(`${P}/x/y`),
  notFound("/admin"),
  notFound("/api/public/properties/..%2F..%2Fetc%2Fpasswd"),
  { path: P, method: "DELETE", status: 405, error: "method_not_allowed" },
  { path: P, method: "POST", status: 405, error: "method_not_allowed", body: "{}" },
  {
    path: `${P}/${crypto.randomUUID()}`,
    method: "PUT",
    status: 405,
    error: "method_not_allowed",
    body: "{}",
  },
  { path: "/healthz", method: "PATCH", status: 405, error: "method_not_allowed" },
  { path: "/api/public/openapi.json", method: "DELETE", status: 405, error: "method_not_allowed" },
  { path: P, method: "POST", status: 413, error: "payload_too_large", body: "x".repeat(MAX_BODY_BYTES + 1) },
  {
    path: "/nowhere",
    method: "POST",
    status: 413,
    error: "payload_too_large",
    body: new Uint8Array(600 * 1024),
  },
  { path: P, method: "POST", status: 413, error: "payload_too_large", body: stream(600 * 1024) },
  {
    path: "/nowhere",
    method: "PUT",
    status: 413,
    error: "payload_too_large",
    body: stream(MAX_BODY_BYTES + 1),
  },
  {
    path: P,
    method: "POST",
    status: 413,
    error: "payload_too_large",
    body: "{}",
    headers: { "content-length": "99999999999" },
  },
  { path: P, method: "POST", status: 405, error: "method_not_allowed", body: stream(MAX_BODY_BYTES) },
];

function stream(size: number): ReadableStream<Uint8Array> {
  let left = size;
  return new ReadableStream({
    pull(ctrl) {
      if (left <= 0) return ctrl.close();
      const n = Math.min(left, 16 * 1024);
      left -= n;
      ctrl.enqueue(new Uint8Array(n));
    },
  });
}

Deno.test(`a table of ${CASES.length} malformed requests: documented 4xx JSON errors, never a 5xx`, async () => {
  assert.ok(CASES.length >= 60);
  for (const c of CASES) {
    const init: RequestInit & { duplex?: string } = { method: c.method ?? "GET", headers: c.headers ?? {} };
    if (c.body !== undefined) {
      init.body = c.body;
      init.duplex = "half";
    }
    const res = await request(app, c.path, init);
    const label = `${init.method} ${c.path.slice(0, 80)}`;
    assert.equal(res.status, c.status, label);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/, label);
    const body = await res.json();
    assert.equal(body.error, c.error, label);
    if (c.detail) assert.match(body.detail, c.detail, label);
    if (c.status !== 400) assert.equal(body.detail, undefined, label);
  }
});

Deno.test("SQL- and script-looking city names are plain text: no match, no error, table intact", async () => {
  for (
    const city of [
      "' OR 1=1 --",
      "Berlin'; DROP TABLE listings; --",
      "<script>alert(1)</script>",
      "%",
      "_",
      "\\",
    ]
  ) {
    const res = await request(app, `${P}?city=${encodeURIComponent(city)}`);
    assert.equal(res.status, 200, city);
    const body = await res.json();
    assert.equal(body.total, 0, city);
  }
  const all = await (await request(app, P)).json();
  assert.ok(all.total > 30);
});

Deno.test("405 names the allowed methods", async () => {
  const res = await request(app, P, { method: "DELETE" });
  assert.equal(res.status, 405);
  assert.match(res.headers.get("allow") ?? "", /GET/);
  await res.body?.cancel();
});

Deno.test({
  name: "over real TCP: a chunked body over 512 KB without Content-Length gets 413, one at the limit passes",
  fn: async () => {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (req, info) => app.fetch(req, info),
    );
    const url = `http://127.0.0.1:${server.addr.port}`;
    try {
      const send = async (size: number, path: string) => {
        const res = await fetch(`${url}${path}`, {
          method: "POST",
          body: stream(size),
          headers: { "content-type": "application/octet-stream" },
          // @ts-ignore: Deno's fetch accepts duplex for streaming bodies
          duplex: "half",
        });
        return { status: res.status, body: await res.json() };
      };
      assert.deepEqual(await send(MAX_BODY_BYTES + 1, P), {
        status: 413,
        body: { error: "payload_too_large" },
      });
      assert.deepEqual(await send(2 * 1024 * 1024, "/x"), {
        status: 413,
        body: { error: "payload_too_large" },
      });
      assert.deepEqual(await send(MAX_BODY_BYTES, P), { status: 405, body: { error: "method_not_allowed" } });
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test("an unexpected failure answers 500 internal_error without details, logged with the request id", async () => {
  const broken = await openTestDb({ migrated: false });
  await using t = await testApp(broken.db);
  const res = await request(t.app, P);
  assert.equal(res.status, 500);
  const text = await res.text();
  assert.deepEqual(JSON.parse(text), { error: "internal_error" });
  assert.ok(!/relation|listings|stack|at /i.test(text));
  const rid = res.headers.get("x-request-id");
  assert.ok(rid);
  assert.ok(t.logs.some((l) => l.level === "error" && l.fields?.requestId === rid));
  await broken.close();
});
