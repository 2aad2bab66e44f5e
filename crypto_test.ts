import assert from "node:assert/strict";
import {
  base64,
  fromBase64,
  fromHex,
  hex,
  HmacKeys,
  hmacSha256,
  importHmacKey,
  secretMatches,
  sha256Hex,
  sha256HexSync,
  timingSafeEqual,
  utf8,
  verifyHmacSha256,
} from "./crypto.ts";

const bytes = fromHex;
const repeat = (byte: number, n: number) => new Uint8Array(n).fill(byte);

/** RFC 4231 §4: key, data, HMAC-SHA256 (test case 5's result is truncated to 128 bits). */
const RFC_4231: Array<
  { name: string; key: Uint8Array<ArrayBuffer>; data: Uint8Array<ArrayBuffer>; mac: string }
> = [
  {
    name: "1",
    key: repeat(0x0b, 20),
    data: utf8("Hi There"),
    mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
  },
  {
    name: "2",
    key: utf8("Jefe"),
    data: utf8("what do ya want for nothing?"),
    mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  },
  {
    name: "3",
    key: repeat(0xaa, 20),
    data: repeat(0xdd, 50),
    mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
  },
  {
    name: "4",
    key: bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"),
    data: repeat(0xcd, 50),
    mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
  },
  {
    name: "5 (truncated to 128 bits)",
    key: repeat(0x0c, 20),
    data: utf8("Test With Truncation"),
    mac: "a3b6167473100ee06e0c796c2955552b",
  },
  {
    name: "6 (key longer than a block)",
    key: repeat(0xaa, 131),
    data: utf8("Test Using Larger Than Block-Size Key - Hash Key First"),
    mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
  },
  {
    name: "7 (key and data longer than a block)",
    key: repeat(0xaa, 131),
    data: utf8(
      "This is a test using a larger than block-size key and a larger than block-size data. The key needs to " +
        "be hashed before being used by the HMAC algorithm.",
    ),
    mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
  },
];

Deno.test("hmacSha256 gives the RFC 4231 results; verifyHmacSha256 accepts exactly them", async () => {
  for (const v of RFC_4231) {
    const key = await importHmacKey(v.key);
    const mac = await hmacSha256(key, v.data);
    assert.equal(hex(mac).slice(0, v.mac.length), v.mac, `test case ${v.name}`);
    assert.equal(await verifyHmacSha256(key, mac, v.data), true, `test case ${v.name}`);
    const wrong = mac.slice();
    wrong[31]! ^= 1;
    assert.equal(await verifyHmacSha256(key, wrong, v.data), false, `test case ${v.name}, one bit off`);
  }
});

Deno.test("HmacKeys imports a secret's key once, signs like a fresh key, refuses a bad secret", async () => {
  const decoded: string[] = [];
  const keys = new HmacKeys((secret) => {
    decoded.push(secret);
    if (secret === "bad") throw new Error("malformed secret");
    return utf8(secret);
  }, 2);
  const [a, b] = await Promise.all([
    keys.sign("Jefe", "what do ya want for nothing?"),
    keys.sign("Jefe", "x"),
  ]);
  assert.equal(hex(a), RFC_4231[1]!.mac);
  assert.deepEqual(b, await hmacSha256(await importHmacKey("Jefe"), "x"));
  await keys.sign("Jefe", "again");
  assert.deepEqual(decoded, ["Jefe"], "one import for concurrent and later uses");
  assert.throws(() => keys.key("bad"), /malformed secret/);
  await keys.sign("other", "x");
  await keys.sign("third", "x"); // beyond max (2): everything is forgotten, then this one kept
  await keys.sign("Jefe", "x");
  assert.deepEqual(decoded, ["Jefe", "bad", "other", "third", "Jefe"]);
});

Deno.test("timingSafeEqual answers exactly as === for strings and as byte equality for bytes", () => {
  const h = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  assert.equal(timingSafeEqual(h, h), true);
  assert.equal(timingSafeEqual(h, `${h.slice(0, -1)}e`), false, "last character differs");
  assert.equal(timingSafeEqual(h, `0${h.slice(1)}`), false, "first character differs");
  assert.equal(timingSafeEqual(h, h.slice(1)), false, "shorter");
  assert.equal(timingSafeEqual(`${h}0`, h), false, "longer");
  assert.equal(timingSafeEqual("", ""), true);
  assert.equal(timingSafeEqual("", "a"), false);
  assert.equal(timingSafeEqual("ä🏠", "ä🏠"), true);
  // Lone surrogates are compared as themselves (their UTF-8 would both be U+FFFD).
  assert.equal(timingSafeEqual("\ud800", "\udc00"), false);
  // A character differing only in its high byte.
  assert.equal(timingSafeEqual("\u0161", "a"), false);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])), true);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4])), false);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3])), false);
});

Deno.test("secretMatches compares whole secrets", async () => {
  assert.equal(await secretMatches("s3cret", "s3cret"), true);
  assert.equal(await secretMatches("s3cret", "s3cre"), false);
  assert.equal(await secretMatches("s3cret", "s3cret "), false);
  assert.equal(await secretMatches("s3cret", ""), false);
});

Deno.test('SHA-256 (FIPS 180-4 "abc") both ways, Base64 and hex both ways', async () => {
  const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  assert.equal(await sha256Hex("abc"), abc);
  assert.equal(await sha256Hex(utf8("abc")), abc);
  assert.equal(sha256HexSync("abc"), abc);
  assert.equal(sha256HexSync("ä"), await sha256Hex("ä"));
  assert.equal(base64(new Uint8Array(32).fill(0xff)), "//////////////////////////////////////////8=");
  assert.deepEqual(fromBase64("AQL/"), new Uint8Array([1, 2, 255]));
  assert.throws(() => fromBase64("not base64!"));
  assert.deepEqual(fromHex("01aBff"), new Uint8Array([1, 0xab, 0xff]));
  assert.throws(() => fromHex("abc"));
});
