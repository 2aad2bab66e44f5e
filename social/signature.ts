/**
 * The two checks of Meta's Graph webhooks: the `X-Hub-Signature-256` HMAC-SHA256 of the raw body with the app
 * secret (verified by Web Crypto, which compares in constant time), and the `hub.verify_token` of the
 * subscription check (compared in constant time). The cryptography is `crypto.ts`'s.
 */
import { fromHex, hex, hmacSha256, importHmacKey, timingSafeEqual, verifyHmacSha256 } from "../crypto.ts";

const HEADER = /^sha256=([0-9a-fA-F]{64})$/;

/** Lower-case hex HMAC-SHA256 of `body` with `secret` (what Meta sends after `sha256=`). */
export async function hubSignature(secret: string, body: Uint8Array<ArrayBuffer>): Promise<string> {
  return hex(await hmacSha256(await importHmacKey(secret), body));
}

/** Why a signature header was refused, or null when it is the body's HMAC with `secret`. */
export async function signatureProblem(
  secret: string,
  body: Uint8Array<ArrayBuffer>,
  header: string | null | undefined,
): Promise<"missing" | "malformed" | "mismatch" | null> {
  if (header === null || header === undefined || header.trim() === "") return "missing";
  const m = HEADER.exec(header.trim());
  if (!m) return "malformed";
  const valid = await verifyHmacSha256(await importHmacKey(secret), fromHex(m[1]!), body);
  return valid ? null : "mismatch";
}

/** Whether `given` is the configured verify token (constant time in the token's length). */
export function verifyTokenMatches(configured: string, given: string): boolean {
  return timingSafeEqual(given, configured);
}
