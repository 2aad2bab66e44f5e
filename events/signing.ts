/**
 * Webhook secrets and signatures (spec §6.3 rule 1, Standard Webhooks): `whsec_` + standard Base64 of 24–64
 * bytes; `v1,` + Base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)). Secrets are stored encrypted with
 * AES-256-GCM under a key derived (HKDF-SHA256) from AUTH_SECRET, never in clear.
 */
import { type HmacKey, hmacKey, hmacSha256 } from "./hmac_sha256.ts";

/** Prefix of a webhook secret. */
export const SECRET_PREFIX = "whsec_";

const STANDARD_B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The key bytes of a valid secret (`whsec_` + standard Base64 of 24–64 bytes), or undefined. */
export function parseSecret(secret: unknown): Uint8Array<ArrayBuffer> | undefined {
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX) || secret.length > 200) {
    return undefined;
  }
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (b64.length === 0 || !STANDARD_B64.test(b64)) return undefined;
  const bin = atob(b64);
  if (bin.length < 24 || bin.length > 64) return undefined;
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Standard Base64 of `bytes`. */
export function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Caches prepared HMAC keys by secret (a handful per subscription at most). */
const hmacKeys = new Map<string, HmacKey>();

function keyOf(secret: string): HmacKey {
  let key = hmacKeys.get(secret);
  if (!key) {
    const bytes = parseSecret(secret);
    if (!bytes) throw new Error("invalid webhook secret");
    key = hmacKey(bytes);
    if (hmacKeys.size > 10_000) hmacKeys.clear();
    hmacKeys.set(secret, key);
  }
  return key;
}

/**
 * One `v1,<base64>` signature of (`id`, `timestamp`, `body`) with `secret`: HMAC-SHA256 computed in
 * `events/hmac_sha256.ts` (synchronous, same bytes as Web Crypto, a third of its cost per signature). Throws for
 * a secret that is not `whsec_` + Base64 of 24–64 bytes.
 */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${base64(hmacSha256(keyOf(secret), `${id}.${timestamp}.${body}`))}`;
}

/** The `webhook-signature` header value: one signature per secret, separated by a space (rotation: two). */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((s) => signature(s, id, timestamp, body)).join(" ");
}

/** Encrypts and decrypts webhook secrets at rest. */
export interface SecretBox {
  /** `base64(iv ‖ ciphertext)` of `plain`. */
  seal(plain: string): Promise<string>;
  /** The plain text of a sealed value; throws when it was not sealed with this box's key. */
  open(sealed: string): Promise<string>;
}

/** A {@linkcode SecretBox} whose AES-256-GCM key is derived from `authSecret`. */
export function secretBox(authSecret: string): SecretBox {
  const key = (async () => {
    const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(authSecret), "HKDF", false, [
      "deriveKey",
    ]);
    return await crypto.subtle.deriveKey(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: new TextEncoder().encode("immo-webhook-secrets"),
        info: new TextEncoder().encode("v1"),
      },
      base,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
  })();
  const opened = new Map<string, string>();
  return {
    async seal(plain) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ct = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv },
        await key,
        new TextEncoder().encode(plain),
      );
      const out = new Uint8Array(12 + ct.byteLength);
      out.set(iv);
      out.set(new Uint8Array(ct), 12);
      return base64(out);
    },
    async open(sealed) {
      const hit = opened.get(sealed);
      if (hit !== undefined) return hit;
      const bytes = Uint8Array.from(atob(sealed), (c) => c.charCodeAt(0));
      const pt = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.slice(0, 12) },
        await key,
        bytes.slice(12),
      );
      const plain = new TextDecoder().decode(pt);
      if (opened.size > 10_000) opened.clear();
      opened.set(sealed, plain);
      return plain;
    },
  };
}
