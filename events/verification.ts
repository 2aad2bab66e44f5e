/**
 * Address verification before the first subscription of a person, app and address (docs/contract.md §6.2): a
 * signed `{type: "verification", challenge}` POST whose answer must echo the challenge, remembered for 24 hours.
 */
import { saveVerification, verifiedAt } from "../db/subscriptions.ts";
import type { AppDeps } from "../deps.ts";
import { nowOf } from "../deps.ts";
import { base64, timingSafeEqual } from "../crypto.ts";
import type { PostOutcome } from "./http_client.ts";
import { controlMessageId, signedPost } from "./webhook_message.ts";

/** How long a verified address holds per person, app and address (docs/contract.md §6.2). */
export const VERIFICATION_VALID_MS = 24 * 60 * 60_000;

/** Whom and where a verification is for. */
export interface VerificationTarget {
  userId: string;
  clientId: string;
  url: string;
  /** The subscription's new secret (it signs the challenge). */
  secret: string;
}

/**
 * Verifies the address unless (person, app, address) was verified within 24 hours; returns why it failed
 * ({@linkcode verificationFailure}), or undefined when it holds.
 */
export async function ensureVerified(
  deps: AppDeps,
  target: VerificationTarget,
  subscriptionId: string | undefined,
): Promise<string | undefined> {
  const at = await verifiedAt(deps.db, target.userId, target.clientId, target.url);
  const now = nowOf(deps);
  if (at && now.getTime() - at.getTime() < VERIFICATION_VALID_MS) return undefined;
  const challenge = base64(crypto.getRandomValues(new Uint8Array(24)));
  const result = await signedPost(
    deps,
    { url: target.url, subscriptionId: subscriptionId ?? "", secrets: [target.secret] },
    controlMessageId("verification"),
    JSON.stringify({ type: "verification", challenge }),
  );
  const reason = verificationFailure(result, challenge);
  if (!reason) await saveVerification(deps.db, target.userId, target.clientId, target.url, now);
  return reason;
}

/**
 * Why a verification answer fails (docs/contract.md §6.2): `address` when the address check refused it, else the
 * `-32015` reason; undefined when it echoed the challenge with a 2xx.
 */
export function verificationFailure(result: PostOutcome, challenge: string): string | undefined {
  if (result.kind === "refused") return "address";
  if (result.kind === "failure") {
    if (result.errorClass === "response_too_large") return "challenge_failed";
    return result.errorClass === "network" ? "connection_refused" : result.errorClass;
  }
  if (result.status < 200 || result.status >= 300) return "challenge_failed";
  try {
    const echoed = (JSON.parse(result.body) as { challenge?: unknown }).challenge;
    return typeof echoed === "string" && timingSafeEqual(echoed, challenge) ? undefined : "challenge_failed";
  } catch {
    return "challenge_failed";
  }
}
