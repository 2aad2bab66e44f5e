/**
 * The event machinery of one app (docs/architecture.md, "How an event travels"): the secret box, the signer,
 * the address policy, the SSRF-safe webhook client, the delivery loop's state, and where retries' due times are
 * told (the job engine, started by the composition, `background.ts`). Everything the event modules keep between calls lives in these objects,
 * created once per app (`createApp`), so two apps in one process (tests) share none of it.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import type { Logger } from "../log.ts";
import { type AddressPolicy } from "./address.ts";
import { DeliveryState } from "./delivery_state.ts";
import { type WebhookClient, webhookClient } from "./http_client.ts";
import { type SecretBox, secretBox, WebhookSigner } from "./signing.ts";

/** The `user-agent` of every webhook POST (docs/contract.md §6.4: ends in `-mcp-events`). */
export const WEBHOOK_USER_AGENT = "immobilienkatalog-mcp-events";

/** Longest time one delivery attempt or verification may take (docs/contract.md §9). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** The event machinery shared by the MCP methods, the domain actions and the delivery loop. */
export interface EventRuntime {
  /** Encrypts webhook secrets at rest; undefined when events are not configured (no AUTH_SECRET or EVENTS=off). */
  box: SecretBox | undefined;
  /** Signs webhook messages (keeps each secret's imported HMAC key). */
  signer: WebhookSigner;
  /** The address rules (loopback only on the ports a test/dev setting names). */
  policy: AddressPolicy;
  /** The SSRF-safe client every webhook POST goes through. */
  client: WebhookClient;
  /** The delivery loop's limits, record batcher, memos and what it holds. */
  delivery: DeliveryState;
  /** Where a scheduled retry's due time is told, so this process makes it on time (the job engine). */
  wake: DueTimes;
}

/** Takes the due times of work scheduled for later (`jobs/engine.ts`). */
export interface DueTimes {
  /** Work becomes due at `at`. */
  dueAt(at: Date): void;
}

/** Builds the runtime of `deps`; due times of retries go to `wake` (the app's job engine). */
export function createEventRuntime(
  deps: { config: Config; log: Logger; db: Db },
  wake: DueTimes,
): EventRuntime {
  const { config } = deps;
  const caCerts = config.webhookCaFile ? [Deno.readTextFileSync(config.webhookCaFile)] : undefined;
  const policy: AddressPolicy = { loopbackPorts: config.webhookLoopbackPorts };
  return {
    box: config.events && config.authSecret ? secretBox(config.authSecret) : undefined,
    signer: new WebhookSigner(),
    policy,
    client: webhookClient({ policy, caCerts, timeoutMs: ATTEMPT_TIMEOUT_MS, userAgent: WEBHOOK_USER_AGENT }),
    delivery: new DeliveryState(deps.db),
    wake,
  };
}
