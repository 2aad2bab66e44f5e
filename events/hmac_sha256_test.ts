import assert from "node:assert/strict";
import { hmacKey, hmacSha256, sha256 } from "./hmac_sha256.ts";

const enc = new TextEncoder();

async function subtleHmac(key: Uint8Array<ArrayBuffer>, message: string): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, enc.encode(message)));
}

/** Text of `n` characters mixing ASCII, umlauts (2 bytes) and an emoji (4 bytes) by `seed`. */
function text(n: number, seed: number): string {
  const parts = ["a", "Z", "0", ".", "ä", "ß", "€", "🏠", '"', "\n"];
  let s = "";
  for (let i = 0; i < n; i++) s += parts[(i * 7 + seed) % (seed % 3 === 0 ? 4 : parts.length)];
  return s;
}

Deno.test("sha256 matches Web Crypto at every padding boundary", async () => {
  for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 70_000]) {
    const bytes = crypto.getRandomValues(new Uint8Array(Math.min(n, 65_536)));
    const full = n > 65_536 ? new Uint8Array(n).map((_, i) => i * 31) : bytes;
    const want = new Uint8Array(await crypto.subtle.digest("SHA-256", full));
    assert.deepEqual(sha256(full), want, `length ${n}`);
  }
  // FIPS 180-4 example "abc".
  assert.deepEqual(
    Array.from(sha256(enc.encode("abc")), (b) => b.toString(16).padStart(2, "0")).join(""),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("hmacSha256 matches Web Crypto for keys of 1–100 bytes and messages of every length class", async () => {
  let seed = 1;
  for (const keyLength of [1, 24, 32, 63, 64, 65, 100]) {
    const key = crypto.getRandomValues(new Uint8Array(keyLength));
    const prepared = hmacKey(key);
    for (const n of [0, 1, 40, 55, 56, 64, 100, 119, 120, 300, 5_000, 300_000]) {
      const message = text(n, seed++);
      assert.deepEqual(
        hmacSha256(prepared, message),
        await subtleHmac(key, message),
        `key ${keyLength}, ${n} chars`,
      );
    }
  }
});

Deno.test("hmacSha256 gives the RFC 4231 test case 2 result", () => {
  const mac = hmacSha256(hmacKey(enc.encode("Jefe")), "what do ya want for nothing?");
  assert.deepEqual(
    Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join(""),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
});
