/**
 * The event machinery of one process (DESIGN §5): the secret box, the SSRF-safe webhook client, and, once
 * {@linkcode startEventDelivery} ran, the KV queue listener and the periodic sweep.
 *
 * Postgres holds every state (outbox, deliveries, leases); KV messages only wake the handlers, so a lost or
 * repeated message never loses or duplicates work beyond the at-least-once promise. Messages are enqueued by the
 * process that listens (a message from another process is only seen by KV's slow fallback poll).
 */
import type { AppDeps } from "../routes/env.ts";
import { type EventQueueMessage, isEventQueueMessage } from "../db/kv_keys.ts";
import { type AddressPolicy } from "./address.ts";
import { type WebhookClient, webhookClient } from "./http_client.ts";
import { type SecretBox, secretBox } from "./signing.ts";

/** The `user-agent` of every webhook POST (spec §6.3: ends in `-mcp-events`). */
export const WEBHOOK_USER_AGENT = "immobilienkatalog-mcp-events";

/** Longest time one delivery attempt or verification may take (spec §8). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** The event machinery shared by the MCP methods, the domain actions and the delivery loop. */
export interface EventRuntime {
  /** Encrypts webhook secrets at rest; undefined when events are not configured (no AUTH_SECRET or EVENTS=off). */
  box: SecretBox | undefined;
  /** The address rules (loopback only on the ports a test/dev setting names). */
  policy: AddressPolicy;
  /** The SSRF-safe client every webhook POST goes through. */
  client: WebhookClient;
  /** Asks for an outbox drain (call after a transaction that recorded events committed). */
  kick(): void;
  /** Asks for owed `terminated` control messages to be sent. */
  kickTerminations(): void;
  /** Enqueues a message for this process's listener (no-op before {@linkcode startEventDelivery}). */
  enqueue(msg: EventQueueMessage, delayMs?: number): Promise<void>;
  /** Enqueues many messages without delay, in few atomic KV commits (one message each, fewer writes). */
  enqueueAll(msgs: EventQueueMessage[]): Promise<void>;
}

/** Messages per atomic KV commit (each message is small; a commit holds at most 800 KiB). */
const ENQUEUE_BATCH = 200;

/** Internal state of a runtime: the queue wiring installed by `startEventDelivery`. */
interface Wiring {
  listening: boolean;
  drainQueued: boolean;
  /** Handles a queue message while a delivery runs; undefined before it started and after it stopped. */
  dispatch: ((msg: EventQueueMessage) => Promise<void>) | undefined;
  /** Whether the KV listener was registered (once per KV: a second `listenQueue` on it gets no messages). */
  registered: boolean;
}

const wiring = new WeakMap<EventRuntime, Wiring>();

/** Builds the runtime of `deps` (no listener yet). */
export function createEventRuntime(deps: Pick<AppDeps, "config" | "kv" | "log">): EventRuntime {
  const { config } = deps;
  const caCerts = config.webhookCaFile ? [Deno.readTextFileSync(config.webhookCaFile)] : undefined;
  const policy: AddressPolicy = { loopbackPorts: config.webhookLoopbackPorts };
  const state: Wiring = { listening: false, drainQueued: false, dispatch: undefined, registered: false };
  const runtime: EventRuntime = {
    box: config.events && config.authSecret ? secretBox(config.authSecret) : undefined,
    policy,
    client: webhookClient({ policy, caCerts, timeoutMs: ATTEMPT_TIMEOUT_MS, userAgent: WEBHOOK_USER_AGENT }),
    kick() {
      if (!state.listening || state.drainQueued) return;
      state.drainQueued = true;
      void runtime.enqueue({ t: "drain" });
    },
    kickTerminations() {
      void runtime.enqueue({ t: "terminate" });
    },
    async enqueueAll(msgs) {
      if (!state.listening) return;
      for (let i = 0; i < msgs.length; i += ENQUEUE_BATCH) {
        const op = deps.kv.atomic();
        for (const m of msgs.slice(i, i + ENQUEUE_BATCH)) op.enqueue(m);
        try {
          await op.commit();
        } catch (err) {
          deps.log.log("warn", "event queue enqueue failed", {
            error: (err as Error).message,
            n: msgs.length,
          });
        }
      }
    },
    async enqueue(msg, delayMs = 0) {
      if (!state.listening) return;
      try {
        await deps.kv.enqueue(msg, { delay: Math.max(0, Math.round(delayMs)) });
      } catch (err) {
        // The sweep re-drives whatever a lost message would have done.
        deps.log.log("warn", "event queue enqueue failed", { error: (err as Error).message, t: msg.t });
      }
    },
  };
  wiring.set(runtime, state);
  return runtime;
}

/** The runtime of `deps`, created on first use. */
export function eventRuntime(deps: AppDeps): EventRuntime {
  deps.events ??= createEventRuntime(deps);
  return deps.events;
}

/** The handlers the queue listener dispatches to (see events/delivery.ts). */
export interface QueueHandlers {
  drain(): Promise<unknown>;
  attempt(deliveryId: string, attempt: number): Promise<unknown>;
  terminate(): Promise<unknown>;
  /** Reads an uploaded document (the queued job of documents/). */
  document(fileId: string): Promise<unknown>;
  sweep(): Promise<unknown>;
}

/**
 * Starts listening on `deps.kv` and sweeping every `config.eventsSweepMs`; runs one sweep at once (a restart
 * picks up what a killed process left). Returns a stopper that ends the sweep and waits (at most one attempt's
 * time) for running handlers, so a clean stop records what it sent. The KV listener is registered once per
 * runtime and ends with the KV; messages that arrive while no delivery runs start nothing (Postgres holds the
 * work, and the next start's sweep does it), so no job runs against a database that is being closed.
 */
export function listen(deps: AppDeps, handlers: QueueHandlers): { stop(): Promise<void> } {
  const runtime = eventRuntime(deps);
  const state = wiring.get(runtime)!;
  state.listening = true;
  const running = new Set<Promise<unknown>>();
  const run = (what: string, job: () => Promise<unknown>) => {
    const p = job().catch((err) =>
      deps.log.log("error", "event job failed", { job: what, error: (err as Error).message ?? String(err) })
    );
    running.add(p);
    return p.finally(() => running.delete(p));
  };
  const dispatch = async (value: EventQueueMessage) => {
    if (value.t === "drain") {
      state.drainQueued = false;
      await run("drain", handlers.drain);
    } else if (value.t === "attempt") await run("attempt", () => handlers.attempt(value.d, value.n));
    else if (value.t === "document") await run("document", () => handlers.document(value.id));
    else await run("terminate", handlers.terminate);
  };
  state.dispatch = dispatch;
  if (!state.registered) {
    state.registered = true;
    deps.kv.listenQueue(async (value: unknown) => {
      if (isEventQueueMessage(value)) await state.dispatch?.(value);
    }).catch(() => {/* the KV was closed */});
  }
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    await run("sweep", handlers.sweep);
    if (!stopped) timer = setTimeout(tick, deps.config.eventsSweepMs);
  };
  void tick();
  return {
    async stop() {
      stopped = true;
      if (state.dispatch === dispatch) {
        state.listening = false;
        state.drainQueued = false;
        state.dispatch = undefined;
      }
      if (timer !== undefined) clearTimeout(timer);
      let limit: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((r) => (limit = setTimeout(r, ATTEMPT_TIMEOUT_MS + 1_000))),
      ]);
      clearTimeout(limit);
    },
  };
}
