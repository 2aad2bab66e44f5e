/**
 * The job queue of one process: Deno KV queue messages that wake a handler. Postgres holds the state of every
 * job (outbox, deliveries, files), so a lost or repeated message never loses or duplicates work beyond the
 * at-least-once promise; a periodic sweep re-drives whatever a lost message would have done.
 *
 * This module owns the message kinds: draining the event outbox, a webhook delivery attempt, owed `terminated`
 * messages (events/delivery.ts), reading an uploaded document (documents/processing.ts), and sending the outbox
 * mails that are due (auth/mail.ts). The composition
 * (`background.ts`) hands each kind its handler, so the domains never import each other for it.
 *
 * Messages are enqueued by the process that listens: a message from another process would only be seen by KV's
 * slow fallback poll. Before {@linkcode listenJobs} (and after it stopped) enqueueing does nothing.
 */
import type { Logger } from "../log.ts";

/** One queue message: which job to wake. */
export type JobMessage =
  | { t: "drain" }
  | { t: "attempt"; d: string; n: number }
  | { t: "terminate" }
  | { t: "document"; id: string }
  | { t: "mail" };

/** Whether `v` (a dequeued value) is a {@linkcode JobMessage}. */
export function isJobMessage(v: unknown): v is JobMessage {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  if (m.t === "drain" || m.t === "terminate" || m.t === "mail") return true;
  if (m.t === "document") return typeof m.id === "string";
  return m.t === "attempt" && typeof m.d === "string" && typeof m.n === "number";
}

/** The handler of each message kind, and the sweep. */
export interface JobHandlers {
  drain(): Promise<unknown>;
  attempt(deliveryId: string, attempt: number): Promise<unknown>;
  terminate(): Promise<unknown>;
  document(fileId: string): Promise<unknown>;
  /** Sends the due outbox mails (absent: `mail` messages start nothing). */
  mail?(): Promise<unknown>;
  sweep(): Promise<unknown>;
}

/** Messages per atomic KV commit (each message is small; a commit holds at most 800 KiB). */
const ENQUEUE_BATCH = 200;

/**
 * The queue of one process over its KV: enqueue jobs, and (once) listen. A KV takes one listener only, so the
 * listener is registered once and dispatches to the handlers of the current {@linkcode JobQueue.listen}.
 */
export class JobQueue {
  readonly #kv: Deno.Kv;
  readonly #log: Logger;
  #listening = false;
  #drainQueued = false;
  #mailQueued = false;
  #registered = false;
  /** Handles a message while a listener runs; undefined before it started and after it stopped. */
  #dispatch: ((msg: JobMessage) => Promise<void>) | undefined;

  /** A queue over `kv`; messages wait for {@linkcode JobQueue.listen}. */
  constructor(deps: { kv: Deno.Kv; log: Logger }) {
    this.#kv = deps.kv;
    this.#log = deps.log;
  }

  /** Enqueues `msg` after `delayMs`; does nothing while no listener runs. Never throws (the sweep covers). */
  async enqueue(msg: JobMessage, delayMs = 0): Promise<void> {
    if (!this.#listening) return;
    await this.#kv.enqueue(msg, { delay: Math.max(0, Math.round(delayMs)) })
      .catch((e) => this.#warn(e, { t: msg.t }));
  }

  /** Enqueues one `drain`, unless one is already waiting (a burst of events needs only one drain). */
  kickDrain(): void {
    if (!this.#listening || this.#drainQueued) return;
    this.#drainQueued = true;
    void this.enqueue({ t: "drain" });
  }

  /** Enqueues one `mail` (sending due mails), unless one is already waiting; call after a commit that recorded mail. */
  kickMail(): void {
    if (!this.#listening || this.#mailQueued) return;
    this.#mailQueued = true;
    void this.enqueue({ t: "mail" });
  }

  /** Enqueues many messages without delay, in few atomic KV commits. */
  async enqueueAll(msgs: JobMessage[]): Promise<void> {
    if (!this.#listening) return;
    for (let i = 0; i < msgs.length; i += ENQUEUE_BATCH) {
      const op = this.#kv.atomic();
      for (const m of msgs.slice(i, i + ENQUEUE_BATCH)) op.enqueue(m);
      await op.commit().catch((e) => this.#warn(e, { n: msgs.length }));
    }
  }

  /**
   * Starts dispatching messages to `handlers` and sweeping every `sweepMs` (one sweep at once: a restart picks up
   * what a killed process left). Returns a stopper that ends the sweep and waits up to `graceMs` for running
   * handlers, so a clean stop records what it did. Messages that arrive while no listener runs start nothing
   * (Postgres holds the work; the next start's sweep does it).
   */
  listen(handlers: JobHandlers, opts: { sweepMs: number; graceMs: number }): { stop(): Promise<void> } {
    this.#listening = true;
    const running = new Set<Promise<unknown>>();
    const run = (what: string, job: () => Promise<unknown>) => {
      const p = job().catch((err) =>
        this.#log.log("error", "job failed", { job: what, error: (err as Error).message ?? String(err) })
      );
      running.add(p);
      return p.finally(() => running.delete(p));
    };
    const dispatch = async (m: JobMessage) => {
      if (m.t === "drain") {
        this.#drainQueued = false;
        await run("drain", handlers.drain);
      } else if (m.t === "attempt") await run("attempt", () => handlers.attempt(m.d, m.n));
      else if (m.t === "document") await run("document", () => handlers.document(m.id));
      else if (m.t === "mail") {
        this.#mailQueued = false;
        if (handlers.mail) await run("mail", handlers.mail);
      } else await run("terminate", handlers.terminate);
    };
    this.#dispatch = dispatch;
    this.#register();
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      await run("sweep", handlers.sweep);
      if (!stopped) timer = setTimeout(tick, opts.sweepMs);
    };
    void tick();
    return {
      stop: async () => {
        stopped = true;
        if (this.#dispatch === dispatch) {
          this.#listening = false;
          this.#drainQueued = false;
          this.#mailQueued = false;
          this.#dispatch = undefined;
        }
        if (timer !== undefined) clearTimeout(timer);
        let limit: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.allSettled([...running]),
          new Promise((r) => (limit = setTimeout(r, opts.graceMs))),
        ]);
        clearTimeout(limit);
      },
    };
  }

  #register(): void {
    if (this.#registered) return;
    this.#registered = true;
    this.#kv.listenQueue(async (value: unknown) => {
      if (isJobMessage(value)) await this.#dispatch?.(value);
    }).catch(() => {/* the KV was closed */});
  }

  #warn(err: unknown, fields: Record<string, unknown>): void {
    this.#log.log("warn", "job queue enqueue failed", { error: (err as Error).message, ...fields });
  }
}
