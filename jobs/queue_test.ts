/**
 * The queue wiring of the event runtime: a stopped delivery starts no more jobs from queue messages (they could
 * otherwise run against a database that is being closed), and a delivery started again on the same KV gets the
 * messages (a KV takes one listener only, so the listener is registered once and dispatches to the current one).
 */
import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import type { AppDeps } from "../routes/env.ts";
import { createEventRuntime, listen, type QueueHandlers } from "./runtime.ts";

/** Handlers that note what they were asked to do; `drained` resolves at the next drain. */
function noting() {
  const calls: string[] = [];
  let drained = Promise.withResolvers<void>();
  const handlers: QueueHandlers = {
    drain: () => {
      calls.push("drain");
      drained.resolve();
      return Promise.resolve();
    },
    attempt: (d, n) => Promise.resolve(calls.push(`attempt ${d} ${n}`)),
    terminate: () => Promise.resolve(calls.push("terminate")),
    document: (id) => Promise.resolve(calls.push(`document ${id}`)),
    sweep: () => Promise.resolve(),
  };
  return {
    calls,
    handlers,
    /** Waits for the next drain; fails after 10 s (a message that reaches nobody would wait forever). */
    nextDrain: async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no drain within 10 s")), 10_000);
      });
      try {
        await Promise.race([drained.promise, late]);
      } finally {
        clearTimeout(timer);
      }
      drained = Promise.withResolvers<void>();
    },
  };
}

Deno.test("a stopped delivery starts no jobs from queue messages; a delivery started again on the same KV gets them", async () => {
  const kv = await Deno.openKv(":memory:");
  const deps = {
    config: loadConfig({ DATA_DIR: ":memory:", EVENTS_SWEEP_MS: "600000" }),
    kv,
    log: { log: () => {} },
  } as unknown as AppDeps;
  deps.events = createEventRuntime(deps);
  try {
    const first = noting();
    const a = listen(deps, first.handlers);
    deps.events.kick();
    await first.nextDrain();
    await a.stop();

    deps.events.kick(); // not listening: nothing is enqueued
    await kv.enqueue({ t: "attempt", d: "late", n: 2 }); // a message that was on its way when the delivery stopped
    const second = noting();
    const b = listen(deps, second.handlers);
    deps.events.kick();
    await second.nextDrain();
    await b.stop();

    assert.deepEqual(first.calls, ["drain"]);
    assert.ok(second.calls.includes("drain"));
    assert.ok(second.calls.every((c) => c === "drain" || c === "attempt late 2"), second.calls.join(", "));
  } finally {
    kv.close();
  }
});
