import assert from "node:assert/strict";
import { plausibleRange, trimmedMedian } from "./comparables.ts";

Deno.test("trimmed median against hand-computed values", () => {
  // 10 values: 1 cut per tail → [2..9] (8 values), median (5 + 6) / 2.
  assert.deepEqual(trimmedMedian([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]), { median: 5.5, used: 8 });
  // 20 values with wild tails: 2 cut per tail.
  const v = [
    1,
    2,
    3000,
    3100,
    3200,
    3300,
    3400,
    3500,
    3600,
    3700,
    3800,
    3900,
    4000,
    4100,
    4200,
    4300,
    4400,
    4500,
    90000,
    99000,
  ];
  assert.deepEqual(trimmedMedian(v), { median: 3750, used: 16 });
  // 9 values: floor(0.9) = 0 cut → median of all.
  assert.deepEqual(trimmedMedian([5, 1, 4, 2, 3, 9, 8, 7, 6]), { median: 5, used: 9 });
  // 6 values: none cut, even count.
  assert.deepEqual(trimmedMedian([4000, 1000, 3000, 2000, 5000, 6000]), { median: 3500, used: 6 });
});

Deno.test("fewer than five values after trimming give no answer", () => {
  assert.equal(trimmedMedian([]), undefined);
  assert.equal(trimmedMedian([1, 2, 3, 4]), undefined);
  assert.deepEqual(trimmedMedian([1, 2, 3, 4, 5]), { median: 3, used: 5 });
  assert.equal(trimmedMedian([1, 2, 3, 4, Number.NaN]), undefined, "non-finite values do not count");
});

Deno.test("plausible ranges differ by transaction and type", () => {
  assert.deepEqual(plausibleRange("rent", "apartment"), { min: 1, max: 150 });
  assert.deepEqual(plausibleRange("buy", undefined), { min: 50, max: 50_000 });
  assert.deepEqual(plausibleRange("buy", "land"), { min: 1, max: 20_000 });
});
