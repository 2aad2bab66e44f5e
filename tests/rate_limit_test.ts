/** Token buckets of docs/contract.md §9: burst, 429 without Retry-After, refill rate, callers per IP and /64, shared KV. */
import assert from "node:assert/strict";
import { seedSample } from "../catalogue/seed.ts";
import { openTestDb, request, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
await seedSample(tdb.db, { count: 12 });
// Opened before the tests, so closed after it (closing it in a test would be a leak of that test).
Deno.test.afterAll(() => tdb.close());
const P = "/api/public/properties";
const ON = { RATE_LIMIT: "on" };

async function status(app: Awaited<ReturnType<typeof testApp>>["app"], path: string, ip: string, init = {}) {
  const res = await request(app, path, init, ip);
  const body = await res.json();
  if (res.status === 429) {
    assert.deepEqual(body, { error: "rate_limited" });
    assert.equal(res.headers.get("retry-after"), null, "no Retry-After header");
  }
  return res.status;
}

async function statuses(
  app: Awaited<ReturnType<typeof testApp>>["app"],
  n: number,
  path: string,
  ip: string,
) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await status(app, path, ip));
  return out;
}

Deno.test("the burst of 10 passes, the 11th gets 429 rate_limited without Retry-After", async () => {
  await using t = await testApp(tdb.db, ON);
  assert.deepEqual(await statuses(t.app, 10, P, "203.0.113.1"), Array(10).fill(200));
  assert.equal(await status(t.app, P, "203.0.113.1"), 429);
});

Deno.test("refill at 2 tokens per second, never above the burst", async () => {
  await using t = await testApp(tdb.db, ON);
  const ip = "203.0.113.2";
  await statuses(t.app, 10, P, ip);
  assert.equal(await status(t.app, P, ip), 429);
  t.advance(499);
  assert.equal(await status(t.app, P, ip), 429, "less than one token after 499 ms");
  t.advance(1);
  assert.equal(await status(t.app, P, ip), 200, "one token after 500 ms");
  assert.equal(await status(t.app, P, ip), 429);
  t.advance(1500);
  assert.deepEqual(await statuses(t.app, 4, P, ip), [200, 200, 200, 429], "three tokens after 1.5 s");
  t.advance(60_000);
  assert.deepEqual(await statuses(t.app, 11, P, ip), [...Array(10).fill(200), 429], "capped at the burst");
});

Deno.test("the two catalogue endpoints share one bucket", async () => {
  await using t = await testApp(tdb.db, ON);
  const ip = "203.0.113.3";
  const id = (await (await request(t.app, `${P}?page_size=1`, {}, "192.0.2.99")).json()).items[0].id;
  assert.deepEqual(await statuses(t.app, 5, P, ip), Array(5).fill(200));
  assert.deepEqual(await statuses(t.app, 5, `${P}/${id}`, ip), Array(5).fill(200));
  assert.equal(await status(t.app, `${P}/${id}`, ip), 429);
  assert.equal(await status(t.app, P, ip), 429);
});

Deno.test("callers are counted per IPv4 address and per IPv6 /64", async () => {
  await using t = await testApp(tdb.db, ON);
  await statuses(t.app, 10, P, "2001:db8:1:2::1");
  assert.equal(await status(t.app, P, "2001:db8:1:2:ffff:ffff:ffff:9"), 429, "same /64 shares the bucket");
  assert.equal(await status(t.app, P, "2001:db8:1:3::1"), 200, "another /64 has its own");
  await statuses(t.app, 10, P, "198.51.100.10");
  assert.equal(await status(t.app, P, "198.51.100.10"), 429);
  assert.equal(await status(t.app, P, "198.51.100.11"), 200, "another IPv4 address has its own");
  assert.equal(await status(t.app, P, "::ffff:198.51.100.10"), 429, "IPv4-mapped IPv6 is the IPv4 caller");
});

Deno.test("X-Forwarded-For counts only with TRUST_PROXY (its last entry)", async () => {
  await using plain = await testApp(tdb.db, ON);
  for (let i = 0; i < 10; i++) {
    assert.equal(
      await status(plain.app, P, "10.0.0.1", { headers: { "x-forwarded-for": `192.0.2.${i}` } }),
      200,
    );
  }
  assert.equal(
    await status(plain.app, P, "10.0.0.1", { headers: { "x-forwarded-for": "192.0.2.200" } }),
    429,
    "without TRUST_PROXY the header is ignored",
  );
  await using proxied = await testApp(tdb.db, { ...ON, TRUST_PROXY: "1" });
  for (let i = 0; i < 10; i++) {
    const h = { "x-forwarded-for": `198.51.100.77, 192.0.2.${i}` };
    assert.equal(await status(proxied.app, P, "10.0.0.1", { headers: h }), 200);
  }
  assert.equal(
    await status(proxied.app, P, "10.0.0.1", { headers: { "x-forwarded-for": "192.0.2.1" } }),
    200,
    "a new last entry is a new caller",
  );
  await statuses(proxied.app, 10, P, "10.0.0.2");
  assert.equal(
    await status(proxied.app, P, "10.0.0.2", { headers: { "x-forwarded-for": "not-an-ip" } }),
    429,
    "an invalid header falls back to the connection address",
  );
});

Deno.test("two app instances on one KV file share the buckets", async () => {
  const dir = await Deno.makeTempDir();
  const kv1 = await Deno.openKv(`${dir}/kv.sqlite3`);
  const kv2 = await Deno.openKv(`${dir}/kv.sqlite3`);
  try {
    await using a = await testApp(tdb.db, ON, kv1);
    await using b = await testApp(tdb.db, ON, kv2);
    const ip = "203.0.113.50";
    assert.deepEqual(await statuses(a.app, 6, P, ip), Array(6).fill(200));
    assert.deepEqual(await statuses(b.app, 4, P, ip), Array(4).fill(200));
    assert.equal(await status(b.app, P, ip), 429);
    assert.equal(await status(a.app, P, ip), 429);
  } finally {
    kv1.close();
    kv2.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("concurrent calls from one caller take exactly the burst", async () => {
  await using t = await testApp(tdb.db, ON);
  const results = await Promise.all(Array.from({ length: 25 }, () => status(t.app, P, "203.0.113.60")));
  assert.equal(results.filter((s) => s === 200).length, 10);
  assert.equal(results.filter((s) => s === 429).length, 15);
});

Deno.test("write calls outside MCP share a bucket of 60 at 1 per second", async () => {
  await using t = await testApp(tdb.db, ON);
  const ip = "203.0.113.70";
  for (let i = 0; i < 60; i++) {
    assert.equal(
      await status(t.app, i % 2 ? P : "/nowhere", ip, { method: i % 3 ? "POST" : "DELETE" }),
      i % 2 ? 405 : 404,
    );
  }
  assert.equal(await status(t.app, P, ip, { method: "POST" }), 429);
  assert.equal(await status(t.app, P, ip), 200, "reads have their own bucket");
  t.advance(1000);
  assert.equal(await status(t.app, "/nowhere", ip, { method: "PUT" }), 404);
  assert.equal(await status(t.app, "/nowhere", ip, { method: "PUT" }), 429);
});

Deno.test("RATE_LIMIT=off turns the buckets off", async () => {
  await using t = await testApp(tdb.db, { RATE_LIMIT: "off" });
  assert.ok((await statuses(t.app, 15, P, "203.0.113.80")).every((s) => s === 200));
});
