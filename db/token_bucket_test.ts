import assert from "node:assert/strict";
import { refill, TokenBuckets } from "./token_bucket.ts";
import { kvPseudonyms } from "./kv_keys.ts";

const PSEUDONYMS = kvPseudonyms("a test secret of at least 32 characters");

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
  const b = new TokenBuckets(kv, { pseudonym: PSEUDONYMS, now: () => t });
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
    const buckets = kvs.map((kv) => new TokenBuckets(kv, { pseudonym: PSEUDONYMS, now: () => t }));
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
  const a = new TokenBuckets(kv, { pseudonym: PSEUDONYMS, now: () => t });
  const b = new TokenBuckets(kv, { pseudonym: PSEUDONYMS, now: () => t });
  const tenPerSecond = { rate: 1, burst: 10 };
  assert.equal(await b.take("write", "k5", tenPerSecond), true, "another process took one token of k5");
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => a.take("write", `k${i}`, tenPerSecond)),
  );
  assert.deepEqual(results, Array(20).fill(true));
  const k5 = await kv.get<{ tokens: number }>(["rate", "write", PSEUDONYMS("k5")]);
  assert.equal(k5.value?.tokens, 8, "both takes of k5 counted");
  const k6 = await kv.get<{ tokens: number }>(["rate", "write", PSEUDONYMS("k6")]);
  assert.equal(k6.value?.tokens, 9);
  kv.close();
});

Deno.test("KV keys carry pseudonyms: no address, account or e-mail; the same secret gives the same key", async () => {
  const kv = await Deno.openKv(":memory:");
  const rule = { rate: 1, burst: 2 };
  const personal = ["203.0.113.7", "2001:db8:1:2::/64", "account:7f3c2a", "email:ada@example.org"];
  try {
    const a = new TokenBuckets(kv, { pseudonym: PSEUDONYMS });
    const b = new TokenBuckets(kv, { pseudonym: kvPseudonyms("a test secret of at least 32 characters") });
    for (const p of personal) assert.equal(await a.take("catalogue", p, rule), true);
    for (const p of personal) {
      assert.equal(await b.take("catalogue", p, rule), true, "another instance, same key");
    }
    for (const p of personal) {
      assert.equal(await a.take("catalogue", p, rule), false, "both tokens were taken");
    }
    const keys: string[] = [];
    for await (const e of kv.list({ prefix: [] })) keys.push(JSON.stringify(e.key));
    assert.equal(keys.length, personal.length);
    for (const k of keys) {
      for (const p of personal) {
        assert.ok(!k.includes(p) && !k.includes(p.split(":").pop()!), `${k} holds ${p}`);
      }
    }
    const other = kvPseudonyms("another secret of at least 32 characters!!");
    assert.notEqual(other("203.0.113.7"), PSEUDONYMS("203.0.113.7"), "keyed: without the secret no link");
  } finally {
    kv.close();
  }
});

Deno.test("takeUpTo: as many whole tokens as asked or as the bucket holds, in one write", async () => {
  const kv = await Deno.openKv(":memory:");
  let t = 0;
  const b = new TokenBuckets(kv, { pseudonym: PSEUDONYMS, now: () => t });
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
    const buckets = kvs.map((kv) => new TokenBuckets(kv, { pseudonym: PSEUDONYMS, now: () => t }));
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
