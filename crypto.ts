/**
 * The platform cryptography the service uses, in one place: HMAC-SHA256 and SHA-256 by Web Crypto
 * (`crypto.subtle`), with HMAC keys imported once per secret ({@linkcode HmacKeys}); comparison in constant
 * time (`node:crypto` `timingSafeEqual`); Base64 and hex by the platform's `Uint8Array` methods. Nothing is
 * written by hand here: each function only adapts a platform call to the service's types.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual as equalBytes } from "node:crypto";

// The Base64 and hex methods of Uint8Array (ES2026) run on every Deno the service supports, but the type
// libraries of Deno 2.5 (the version Deno Deploy documents) lack them: declared here for type checking there.
declare global {
  interface Uint8Array<TArrayBuffer extends ArrayBufferLike = ArrayBufferLike> {
    toBase64(): string;
    toHex(): string;
  }
  interface Uint8ArrayConstructor {
    fromBase64(text: string): Uint8Array<ArrayBuffer>;
    fromHex(text: string): Uint8Array<ArrayBuffer>;
  }
}

/** Bytes as Web Crypto takes them. */
export type Bytes = Uint8Array<ArrayBuffer>;

const encoder = new TextEncoder();

/** The UTF-8 bytes of `text`. */
export function utf8(text: string): Bytes {
  return encoder.encode(text);
}

/** Standard Base64 (with padding) of `bytes`. */
export function base64(bytes: Uint8Array): string {
  return bytes.toBase64();
}

/** The bytes of Base64 `text`; throws when it is not Base64. */
export function fromBase64(text: string): Bytes {
  return Uint8Array.fromBase64(text);
}

/** Lower-case hex of `bytes`. */
export function hex(bytes: Uint8Array): string {
  return bytes.toHex();
}

/** The bytes of hex `text` (either case); throws when it is not hex of whole bytes. */
export function fromHex(text: string): Bytes {
  return Uint8Array.fromHex(text);
}

/** SHA-256 of `data` (a string is hashed as UTF-8). */
export async function sha256(data: string | Uint8Array): Promise<Bytes> {
  const bytes = typeof data === "string" ? utf8(data) : new Uint8Array(data);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** Lower-case hex SHA-256 of `data` (a string is hashed as UTF-8). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return hex(await sha256(data));
}

/**
 * Lower-case hex SHA-256 of the UTF-8 of `text`, synchronously (`node:crypto`), for paths that run on every
 * request: it takes ~2 µs, where `crypto.subtle.digest` (an asynchronous operation per call) cost ~10 % of
 * the CPU of an MCP call under load (API key checks).
 */
export function sha256HexSync(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * A 32-byte key derived from `secret` (HKDF-SHA256) for the purpose named by `info`, synchronously: keys for
 * different purposes are independent, and none reveals the secret.
 */
export function deriveKeySync(secret: string, info: string): Bytes {
  return new Uint8Array(hkdfSync("sha256", utf8(secret), utf8("immo-derived-keys"), utf8(info), 32));
}

/** Lower-case hex HMAC-SHA256 of the UTF-8 of `text` under `key`, synchronously (`node:crypto`, ~2 µs). */
export function hmacSha256HexSync(key: Uint8Array, text: string): string {
  return createHmac("sha256", key).update(text, "utf8").digest("hex");
}

/** An HMAC-SHA256 key of `raw` (a string is taken as UTF-8) for signing and verifying. */
export function importHmacKey(raw: string | Bytes): Promise<CryptoKey> {
  const bytes = typeof raw === "string" ? utf8(raw) : raw;
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/** HMAC-SHA256 of `data` (a string as UTF-8) with `key`. */
export async function hmacSha256(key: CryptoKey, data: string | Bytes): Promise<Bytes> {
  const bytes = typeof data === "string" ? utf8(data) : data;
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
}

/** Whether `mac` is the HMAC-SHA256 of `data` (a string as UTF-8) with `key` (compared in constant time). */
export async function verifyHmacSha256(key: CryptoKey, mac: Bytes, data: string | Bytes): Promise<boolean> {
  return await crypto.subtle.verify("HMAC", key, mac, typeof data === "string" ? utf8(data) : data);
}

/**
 * HMAC-SHA256 keys imported once per secret and kept (importing is an asynchronous Web Crypto call of its
 * own). The owner creates one per set of secrets it signs with; `keyBytes` turns a secret into its key bytes
 * (default: its UTF-8) and may throw for a malformed secret. At most `max` keys are kept; all are forgotten
 * beyond.
 */
export class HmacKeys {
  #keys = new Map<string, CryptoKey | Promise<CryptoKey>>();
  #keyBytes: (secret: string) => Bytes;
  #max: number;

  constructor(keyBytes: (secret: string) => Bytes = utf8, max = 10_000) {
    this.#keyBytes = keyBytes;
    this.#max = max;
  }

  /** The key of `secret`, imported on first use (concurrent first uses share one import). */
  key(secret: string): CryptoKey | Promise<CryptoKey> {
    const known = this.#keys.get(secret);
    if (known) return known;
    if (this.#keys.size >= this.#max) this.#keys.clear();
    const importing = importHmacKey(this.#keyBytes(secret)).then((key) => {
      if (this.#keys.get(secret) === importing) this.#keys.set(secret, key);
      return key;
    });
    importing.catch(() => this.#keys.delete(secret));
    this.#keys.set(secret, importing);
    return importing;
  }

  /** HMAC-SHA256 of `data` with the key of `secret`. */
  async sign(secret: string, data: string | Bytes): Promise<Bytes> {
    return await hmacSha256(await this.key(secret), data);
  }
}

/** The UTF-16 code units of `text` as bytes (so strings compare exactly as `===` does). */
function units(text: string): Uint8Array {
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return new Uint8Array(out.buffer);
}

/**
 * Whether `a` equals `b`, in time that depends only on their lengths (`node:crypto` `timingSafeEqual`).
 * Strings are compared by their UTF-16 code units, so the answer is that of `a === b`.
 */
export function timingSafeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const x = typeof a === "string" ? units(a) : a;
  const y = typeof b === "string" ? units(b) : b;
  if (x.byteLength !== y.byteLength) {
    equalBytes(x, x);
    return false;
  }
  return equalBytes(x, y);
}

/**
 * Whether `given` equals the `expected` secret, comparing their SHA-256 digests in constant time, so that not
 * even the secret's length shows in the time taken.
 */
export async function secretMatches(expected: string, given: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(expected), sha256(given)]);
  return equalBytes(a, b);
}
