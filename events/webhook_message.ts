/**
 * Webhook messages as they go out (docs/contract.md §6.4): the event body, the secrets that sign now, the Standard
 * Webhooks headers, control message ids, and the signed POST through the runtime's SSRF-safe client. An attempt is
 * signed once (a drained batch's attempts together, `events/delivery.ts`) and its event's body built once for all
 * its subscriptions.
 */
import type { ClaimedAttempt } from "../db/deliveries.ts";
import type { AppDeps } from "../deps.ts";
import { nowOf } from "../deps.ts";
import type { EventBody } from "./delivery_state.ts";
import type { PostOutcome } from "./http_client.ts";

/** Largest event body sent (docs/contract.md §9: 256 KiB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** How long the old secret keeps signing after a rotation (docs/contract.md §6.1). */
export const ROTATION_OVERLAP_MS = 15 * 60_000;

/** The event body of docs/contract.md §6.4. */
export function eventBody(
  c: Pick<ClaimedAttempt, "eventId" | "eventName" | "eventAt" | "eventData">,
): string {
  return JSON.stringify({
    eventId: c.eventId,
    name: c.eventName,
    timestamp: c.eventAt.toISOString(),
    data: c.eventData,
    cursor: null,
  });
}

/** The secrets that sign now: the current one and, within 15 minutes of a rotation, the previous one. */
export async function signingSecrets(
  deps: AppDeps,
  s: { secretEnc: string; previousSecretEnc: string | null; previousSecretUntil: Date | null },
): Promise<string[]> {
  const box = deps.events.box;
  if (!box) throw new Error("events are not configured");
  const secrets = [await box.open(s.secretEnc)];
  if (s.previousSecretEnc && s.previousSecretUntil && s.previousSecretUntil > nowOf(deps)) {
    secrets.push(await box.open(s.previousSecretEnc));
  }
  return secrets;
}

/** The headers of message `id` with `body` for subscription `subscriptionId`, signed now with `secrets`. */
async function signedHeaders(
  deps: AppDeps,
  to: { subscriptionId: string; secrets: string[] },
  id: string,
  body: string,
): Promise<Record<string, string>> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await deps.events.signer.header(to.secrets, id, timestamp, body),
    "x-mcp-subscription-id": to.subscriptionId,
  };
}

/** Signs and POSTs `body` as message `id` to `url` for subscription `subscriptionId`. */
export async function signedPost(
  deps: AppDeps,
  to: { url: string; subscriptionId: string; secrets: string[] },
  id: string,
  body: string,
): Promise<PostOutcome> {
  const rt = deps.events;
  return await rt.client.post(rt.delivery.url(to.url), await signedHeaders(deps, to, id, body), body);
}

/** An attempt's signed request, or `tooLarge` when its event's body is over {@linkcode MAX_BODY_BYTES}. */
export type SignedAttempt = { body: string; headers: Record<string, string> } | { tooLarge: true };

/** Signs attempt `c` now (its body is built once per event). */
export async function signAttempt(deps: AppDeps, c: ClaimedAttempt): Promise<SignedAttempt> {
  const { body, tooLarge } = bodyOf(deps, c);
  if (tooLarge) return { tooLarge };
  const secrets = await signingSecrets(deps, c);
  return {
    body,
    headers: await signedHeaders(deps, { subscriptionId: c.subscriptionId, secrets }, c.eventId, body),
  };
}

/** `p`, marked as handled: a signature made for an attempt that is then held back is never awaited. */
export function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** The body of `c`'s event and whether it is over {@linkcode MAX_BODY_BYTES} (built once per event, see `body`). */
function bodyOf(deps: AppDeps, c: ClaimedAttempt): EventBody {
  return deps.events.delivery.body(c.eventData, c.eventId, () => {
    const body = eventBody(c);
    return { body, tooLarge: new TextEncoder().encode(body).length > MAX_BODY_BYTES };
  });
}

/** POSTs attempt `c` as `signing` signed it (an event body over the limit fails without a request). */
export async function post(
  deps: AppDeps,
  c: ClaimedAttempt,
  signing: Promise<SignedAttempt>,
): Promise<PostOutcome> {
  const signed = await signing;
  if ("tooLarge" in signed) return { kind: "failure", errorClass: "network", durationMs: 0 };
  const rt = deps.events;
  return await rt.client.post(rt.delivery.url(c.url), signed.headers, signed.body);
}

/** A control message id: `msg_<type>_<random>`. */
export function controlMessageId(type: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `msg_${type}_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
