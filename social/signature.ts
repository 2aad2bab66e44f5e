/**
 * The two checks of Meta's Graph webhooks: the `X-Hub-Signature-256` HMAC-SHA256 of the raw body with the app
 * secret, and the `hub.verify_token` of the subscription check. Both compare in constant time.
 */
import { timingSafeEqual } from "../auth/api_keys.ts";

const HEADER = /^sha256=([0-9a-fA-F]{64})$/;

/** Lower-case hex HMAC-SHA256 of `body` with `secret` (what Meta sends after `sha256=`). */
export async function hubSignature(secret: string, body: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, body));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
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
  const expected = await hubSignature(secret, body);
  return timingSafeEqual(m[1]!.toLowerCase(), expected) ? null : "mismatch";
}

/** Whether `given` is the configured verify token (constant time in the token's length). */
export function verifyTokenMatches(configured: string, given: string): boolean {
  return timingSafeEqual(given, configured);
}
