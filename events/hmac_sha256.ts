/**
 * HMAC-SHA256 (RFC 2104, FIPS 180-4) computed synchronously for webhook signatures. Web Crypto gives the same bytes
 * but every `crypto.subtle.sign` is an asynchronous operation that cost ~20–30 µs of the service's one JavaScript
 * thread per signature (measured in `bench:events`); here the key's inner and outer pad blocks are compressed once
 * per key and a signature of a typical event costs a few µs. `events/hmac_sha256_test.ts` checks every length
 * class against `crypto.subtle`.
 */

/** SHA-256 round constants. */
const K = Int32Array.from([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 initial hash value. */
const H0 = Int32Array.from([
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
]);

const BLOCK = 64;
/** Message schedule, reused (the module is synchronous, so one is enough). */
const W = new Int32Array(64);

/** Compresses the 64-byte block at `bytes[at]` into `h`. */
function compress(h: Int32Array, bytes: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++, at += 4) {
    W[i] = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15]!, y = W[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = h[0]!, b = h[1]!, c = h[2]!, d = h[3]!, e = h[4]!, f = h[5]!, g = h[6]!, k = h[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (k + s1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + k) | 0;
}

/** Room for the final one or two padded blocks. */
const TAIL = new Uint8Array(2 * BLOCK);

/**
 * Hashes `bytes[0, length)` into `h`, which already holds the state after `before` bytes (whole blocks), and
 * writes the 32-byte digest to `out`.
 */
function finish(h: Int32Array, before: number, bytes: Uint8Array, length: number, out: Uint8Array): void {
  let at = 0;
  for (; at + BLOCK <= length; at += BLOCK) compress(h, bytes, at);
  const rest = length - at;
  TAIL.fill(0);
  TAIL.set(bytes.subarray(at, length));
  TAIL[rest] = 0x80;
  const blocks = rest + 9 > BLOCK ? 2 : 1;
  const bits = (before + length) * 8;
  const end = blocks * BLOCK;
  const high = Math.floor(bits / 0x100000000);
  for (let i = 0; i < 4; i++) {
    TAIL[end - 1 - i] = (bits >>> (8 * i)) & 0xff;
    TAIL[end - 5 - i] = (high >>> (8 * i)) & 0xff;
  }
  compress(h, TAIL, 0);
  if (blocks === 2) compress(h, TAIL, BLOCK);
  for (let i = 0; i < 8; i++) {
    const v = h[i]!;
    out[4 * i] = v >>> 24;
    out[4 * i + 1] = (v >>> 16) & 0xff;
    out[4 * i + 2] = (v >>> 8) & 0xff;
    out[4 * i + 3] = v & 0xff;
  }
}

/** The SHA-256 digest of `bytes`. */
export function sha256(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  finish(H0.slice(), 0, bytes, bytes.byteLength, out);
  return out;
}

/** An HMAC-SHA256 key: the hash states after its inner and outer pad blocks. */
export interface HmacKey {
  readonly inner: Int32Array;
  readonly outer: Int32Array;
}

/** Prepares `key` (any length; longer than a block is hashed first, as RFC 2104 says). */
export function hmacKey(key: Uint8Array): HmacKey {
  const k = new Uint8Array(BLOCK);
  k.set(key.byteLength > BLOCK ? sha256(key) : key);
  const pad = (byte: number) => {
    const block = k.map((x) => x ^ byte);
    const h = H0.slice();
    compress(h, block, 0);
    return h;
  };
  return { inner: pad(0x36), outer: pad(0x5c) };
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(1024);
const innerDigest = new Uint8Array(32);

/** HMAC-SHA256 of the UTF-8 bytes of `message` under `key`. */
export function hmacSha256(key: HmacKey, message: string): Uint8Array {
  if (scratch.byteLength < message.length * 3) scratch = new Uint8Array(message.length * 3);
  const { written } = encoder.encodeInto(message, scratch);
  finish(key.inner.slice(), BLOCK, scratch, written, innerDigest);
  const out = new Uint8Array(32);
  finish(key.outer.slice(), BLOCK, innerDigest, 32, out);
  return out;
}
