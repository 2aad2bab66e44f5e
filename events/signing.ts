/**
 * Webhook secrets and signatures (docs/contract.md §6.4, Standard Webhooks): `whsec_` + standard Base64 of 24–64
 * bytes; `v1,` + Base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), computed by Web Crypto
 * (`crypto.ts`). Secrets are stored encrypted with AES-256-GCM under a key derived (HKDF-SHA256) from
 * AUTH_SECRET, never in clear. The imported HMAC keys and the opened secrets are kept by the
 * {@linkcode WebhookSigner} and the {@linkcode SecretBox} of one event runtime (`events/runtime.ts`), never
 * by this module.
 */
import { base64, type Bytes, fromBase64, HmacKeys, utf8 } from "../crypto.ts";

/** Prefix of a webhook secret. */
export const SECRET_PREFIX = "whsec_";

const STANDARD_B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The key bytes of a valid secret (`whsec_` + standard Base64 of 24–64 bytes), or undefined. */
export function parseSecret(secret: unknown): Bytes | undefined {
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX) || secret.length > 200) {
    return undefined;
  }
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (b64.length === 0 || !STANDARD_B64.test(b64)) return undefined;
  const bytes = fromBase64(b64);
  return bytes.length < 24 || bytes.length > 64 ? undefined : bytes;
}

/** The key bytes of `secret`; throws for a secret that is not `whsec_` + Base64 of 24–64 bytes. */
function keyBytes(secret: string): Bytes {
  const bytes = parseSecret(secret);
  if (!bytes) throw new Error("invalid webhook secret");
  return bytes;
}

/** Signs webhook messages; keeps each secret's imported HMAC key (one signer per event runtime). */
export class WebhookSigner {
  #keys = new HmacKeys(keyBytes);

  /**
   * One `v1,<base64>` signature of (`id`, `timestamp`, `body`) with `secret`. Rejects for a secret that is
   * not `whsec_` + Base64 of 24–64 bytes.
   */
  async signature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
    return `v1,${base64(await this.#keys.sign(secret, `${id}.${timestamp}.${body}`))}`;
  }

  /**
   * The `webhook-signature` header value: one signature per secret (rotation: two), computed together,
   * separated by a space.
   */
  async header(secrets: readonly string[], id: string, timestamp: number, body: string): Promise<string> {
    if (secrets.length === 1) return await this.signature(secrets[0]!, id, timestamp, body);
    return (await Promise.all(secrets.map((s) => this.signature(s, id, timestamp, body)))).join(" ");
  }
}

/** Encrypts and decrypts webhook secrets at rest. */
export interface SecretBox {
  /** `base64(iv ‖ ciphertext)` of `plain`. */
  seal(plain: string): Promise<string>;
  /** The plain text of a sealed value; throws when it was not sealed with this box's key. */
  open(sealed: string): Promise<string>;
}

/** The AES-256-GCM key derived (HKDF-SHA256) from `authSecret`. */
async function boxKey(authSecret: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", utf8(authSecret), "HKDF", false, ["deriveKey"]);
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: utf8("immo-webhook-secrets"), info: utf8("v1") },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/**
 * A {@linkcode SecretBox} whose AES-256-GCM key is derived from `authSecret`. It keeps the secrets it opened
 * (at most 10 000; all are forgotten beyond), so an attempt does not decrypt its subscription's secret again.
 */
export function secretBox(authSecret: string): SecretBox {
  const key = boxKey(authSecret);
  const opened = new Map<string, string>();
  return {
    async seal(plain) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await key, utf8(plain));
      const out = new Uint8Array(12 + ct.byteLength);
      out.set(iv);
      out.set(new Uint8Array(ct), 12);
      return base64(out);
    },
    async open(sealed) {
      const hit = opened.get(sealed);
      if (hit !== undefined) return hit;
      const bytes = fromBase64(sealed);
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
