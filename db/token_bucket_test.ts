import assert from "node:assert/strict";
import { refill, TokenBuckets } from "./token_bucket.ts";

const rule = { rate: 3, burst: 15 };

Deno.test("refill: absent state is a full bucket; tokens grow at the rate up to the burst", () => {
  assert.equal(refill(null, rule, 0), 15);
  assert.equal(refill({ tokens: 0, at: 1000 }, rule, 2000), 3);
  assert.equal(refill({ tokens: 14, at: 0 }, rule, 10_000), 15);
  assert.equal(refill({ tokens: 2, at: 5000 }, rule, 4000), 2, "a clock going backwards adds nothing");
});

Deno.test("take: burst then refusal; buckets are per group and caller", async () => {
  const kv = await Deno.openKv(":memory:");
  let t = 0;
  const b = new TokenBuckets(kv, () => t);
  const takes = async (n: number, caller = "a") => {
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) out.push(await b.take("valuation", caller, rule));
    return out;
  };
  assert.deepEqual(await takes(16), [...Array(15).fill(true), false]);
  assert.deepEqual(await takes(1, "b"), [true]);
  assert.equal(await b.take("catalogue", "a", { rate: 2, burst: 10 }), true);
  t += 1000;
  assert.deepEqual(await takes(4), [true, true, true, false]);
  kv.close();
});

Deno.test("several processes (instances with their own memory) on one KV take exactly the burst together", async () => {
  const dir = await Deno.makeTempDir();
  const kvs = await Promise.all([0, 1, 2].map(() => Deno.openKv(`${dir}/kv.sqlite3`)));
  try {
    const t = 0;
    const buckets = kvs.map((kv) => new TokenBuckets(kv, () => t));
    const results = await Promise.all(
      Array.from({ length: 45 }, (_, i) => buckets[i % 3]!.take("valuation", "shared", rule)),
    );
    assert.equal(results.filter(Boolean).length, 15);
    for (const b of buckets) {
      assert.equal(await b.take("valuation", "shared", rule), false, "all agree it is empty");
    }
  } finally {
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a group commit with one conflicting caller: the others commit, the conflicting one re-reads", async () => {
  const kv = await Deno.openKv(":memory:");
  const t = 0;
  const a = new TokenBuckets(kv, () => t);
  const b = new TokenBuckets(kv, () => t);
  const tenPerSecond = { rate: 1, burst: 10 };
  assert.equal(await b.take("write", "k5", tenPerSecond), true, "another process took one token of k5");
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => a.take("write", `k${i}`, tenPerSecond)),
  );
  assert.deepEqual(results, Array(20).fill(true));
  const k5 = await kv.get<{ tokens: number }>(["rate", "write", "k5"]);
  assert.equal(k5.value?.tokens, 8, "both takes of k5 counted");
  const k6 = await kv.get<{ tokens: number }>(["rate", "write", "k6"]);
  assert.equal(k6.value?.tokens, 9);
  kv.close();
});

Deno.test("takeUpTo: as many whole tokens as asked or as the bucket holds, in one write", async () => {
  const kv = await Deno.openKv(":memory:");
  let t = 0;
  const b = new TokenBuckets(kv, () => t);
  assert.equal(await b.takeUpTo("mcp", "a", rule, 4), 4);
  assert.equal(await b.takeUpTo("mcp", "a", rule, 40), 11, "the 11 left of 15");
  assert.equal(await b.takeUpTo("mcp", "a", rule, 3), 0);
  assert.equal(await b.take("mcp", "a", rule), false);
  t += 500;
  assert.equal(await b.takeUpTo("mcp", "a", rule, 3), 1, "1.5 tokens refilled: one whole token");
  t += 500;
  assert.equal(await b.takeUpTo("mcp", "a", rule, 3), 2, "the half left and 1.5 more");
  kv.close();
});

Deno.test("takeUpTo from several processes on one KV: together never more than the burst", async () => {
  const dir = await Deno.makeTempDir();
  const kvs = await Promise.all([0, 1, 2].map(() => Deno.openKv(`${dir}/kv.sqlite3`)));
  try {
    const t = 0;
    const buckets = kvs.map((kv) => new TokenBuckets(kv, () => t));
    const taken = await Promise.all(
      Array.from({ length: 12 }, (_, i) => buckets[i % 3]!.takeUpTo("mcp", "shared", rule, 4)),
    );
    assert.equal(taken.reduce((a, n) => a + n, 0), 15);
    for (const b of buckets) {
      assert.equal(await b.takeUpTo("mcp", "shared", rule, 1), 0, "all agree it is empty");
    }
  } finally {
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
