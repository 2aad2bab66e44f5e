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
