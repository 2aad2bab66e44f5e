import assert from "node:assert/strict";
import { AppError } from "../errors.ts";
import { citySchema } from "./city.ts";
import {
  amountText,
  checkFilter,
  definedFilters,
  FILTER_NUMBER_MAX,
  pricesInOrder,
  searchFiltersSchema,
} from "./filters.ts";

/** The message of the first issue, or "ok" with the parsed value. */
function outcome(schema: typeof citySchema | typeof amountText, v: unknown): string {
  const r = schema.safeParse(v);
  return r.success ? `ok ${r.data}` : r.error.issues[0]!.message;
}

Deno.test("the city rule: trimmed, 1 to 100 characters, no control characters, valid Unicode", () => {
  const cases: Array<[string, string]> = [
    ["  München ", "ok München"],
    ["Neu-Ulm", "ok Neu-Ulm"],
    ["x".repeat(100), `ok ${"x".repeat(100)}`],
    [` ${"x".repeat(100)} `, `ok ${"x".repeat(100)}`],
    ["", "must not be empty"],
    ["   ", "must not be empty"],
    ["x".repeat(101), "must be at most 100 characters"],
    ["Ber\u0000lin", "must not contain control characters"],
    ["Ber\nlin", "must not contain control characters"],
    ["Ber\u007flin", "must not contain control characters"],
    ["Ber\u0085lin", "must not contain control characters"],
    ["Ber\ud800lin", "must be valid Unicode text"],
  ];
  for (const [v, want] of cases) assert.equal(outcome(citySchema, v), want, JSON.stringify(v));
  assert.equal(outcome(citySchema, "Köln 🏠"), "ok Köln 🏠", "a surrogate pair is fine");
});

Deno.test("a numeric filter as text: a plain decimal from 0 to 10¹², at most 6 decimals", () => {
  const cases: Array<[string, string]> = [
    ["250000", "ok 250000"],
    ["2.5", "ok 2.5"],
    ["0", "ok 0"],
    ["1000000000000", `ok ${FILTER_NUMBER_MAX}`],
    ["1.123456", "ok 1.123456"],
  ];
  for (const [v, want] of cases) assert.equal(outcome(amountText, v), want, v);
  for (const v of ["-1", "1e5", "1,5", "1 000", "NaN", "Infinity", "0x10", "", "1.1234567", " 1"]) {
    assert.match(outcome(amountText, v), /^must be a non-negative decimal number/, v);
  }
  assert.equal(outcome(amountText, "1000000000000.5"), `must be at most ${FILTER_NUMBER_MAX}`);
});

Deno.test("min_price ≤ max_price: equal is fine, greater is invalid_request naming min_price", () => {
  assert.equal(pricesInOrder({}), true);
  assert.equal(pricesInOrder({ min_price: 5 }), true);
  assert.equal(pricesInOrder({ max_price: 0 }), true);
  assert.equal(pricesInOrder({ min_price: 100, max_price: 100 }), true);
  assert.equal(pricesInOrder({ min_price: 100.5, max_price: 100 }), false);
  checkFilter({ min_price: 0, max_price: 0 });
  assert.throws(
    () => checkFilter({ min_price: 500, max_price: 100 }),
    (e) =>
      e instanceof AppError && e.code === "invalid_request" &&
      e.detail === "min_price: the minimum is greater than the maximum",
  );
});

Deno.test("saved-search filters: JSON values with the same rules; unknown keys refused; only set ones kept", () => {
  const ok = searchFiltersSchema.parse({ city: " Köln ", min_price: 0, min_sqm: 12.5 });
  assert.deepEqual(ok, { city: "Köln", min_price: 0, min_sqm: 12.5 });
  for (
    const bad of [
      { city: "" },
      { city: "Köln\u0085" },
      { min_price: -1 },
      { max_price: FILTER_NUMBER_MAX + 1 },
      { min_rooms: "2" },
      { transaction_type: "kauf" },
      { colour: "red" },
    ]
  ) assert.equal(searchFiltersSchema.safeParse(bad).success, false, JSON.stringify(bad));
  assert.deepEqual(
    Object.keys(definedFilters({ min_sqm: 1, city: "A", page: 1, page_size: 2, max_price: undefined })),
    ["city", "min_sqm"],
  );
});
