import assert from "node:assert/strict";
import { clip, hasControlCharacter, singleLineText, truncate } from "./text.ts";

Deno.test("truncate never splits a surrogate pair", () => {
  const s = "a😀".repeat(30);
  for (let max = 0; max <= s.length + 1; max++) {
    const out = truncate(s, max);
    assert.ok(out.length <= max, `${max}`);
    assert.ok(out.isWellFormed(), `${max}`);
    assert.ok(s.startsWith(out));
  }
  assert.equal(truncate("a😀", 2), "a");
  assert.equal(truncate("a😀", 3), "a😀");
});

Deno.test("truncate keeps grapheme clusters whole: ZWJ emoji, flags, combining marks", () => {
  const family = "👨‍👩‍👧‍👦";
  assert.equal(truncate(`x${family}`, 5), "x");
  assert.equal(truncate(`x${family}y`, family.length + 1), `x${family}`);
  assert.equal(truncate("🇩🇪🇦🇹", 7), "🇩🇪");
  assert.equal(truncate("Ame\u0301lie", 3), "Am");
});

Deno.test("truncate leaves short text alone and is fast on long text", () => {
  assert.equal(truncate("Potsdam", 7), "Potsdam");
  assert.equal(truncate("", 3), "");
  const long = "😀".repeat(500_000);
  const start = performance.now();
  assert.equal(truncate(long, 200_001).length, 200_000);
  assert.ok(performance.now() - start < 500);
});

Deno.test("clip adds an ellipsis within the limit only when it cut", () => {
  assert.equal(clip("Potsdam", 7), "Potsdam");
  assert.equal(clip("Potsdam-Babelsberg", 8), "Potsdam…");
  const s = clip("a😀".repeat(30), 60);
  assert.equal(s, `${"a😀".repeat(19)}a…`);
  assert.ok(s.isWellFormed());
  assert.ok(s.length <= 60);
});

Deno.test("the single-line rule: trimmed, 1 to max characters, no control character, valid Unicode", () => {
  const title = singleLineText(20);
  assert.equal(title.parse("  Altbau  "), "Altbau");
  for (
    const [input, message] of [
      ["   ", "must not be empty"],
      ["x".repeat(21), "must be at most 20 characters"],
      ["Zeile\r\nzwei", "must not contain control characters"],
      ["Zeile\nzwei", "must not contain control characters"],
      ["Tab\there", "must not contain control characters"],
      ["a\u0000b", "must not contain control characters"],
      ["a\u007fb", "must not contain control characters"],
      ["a\u0085b", "must not contain control characters"],
      ["a\ud800b", "must be valid Unicode text"],
    ]
  ) {
    const r = title.safeParse(input);
    assert.equal(r.success, false, JSON.stringify(input));
    assert.deepEqual(r.error?.issues.map((i) => i.message), [message], JSON.stringify(input));
  }
  assert.equal(
    hasControlCharacter("Ä ö ü ß — 😀 \u00a0"),
    false,
    "letters, symbols and no-break space are text",
  );
});
