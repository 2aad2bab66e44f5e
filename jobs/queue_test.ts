/**
 * The job queue's wiring: a stopped listener starts no more jobs from queue messages (they could otherwise run
 * against a database that is being closed), and a listener started again on the same KV gets the messages (a KV
 * takes one listener only, so it is registered once and dispatches to the current handlers); a burst of drain
 * requests enqueues one drain.
 */
import assert from "node:assert/strict";
import { type JobHandlers, JobQueue } from "./queue.ts";

/** Handlers that note what they were asked to do; `drained` resolves at the next drain. */
function noting() {
  const calls: string[] = [];
  let drained = Promise.withResolvers<void>();
  const handlers: JobHandlers = {
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

Deno.test("a stopped listener starts no jobs from queue messages; one started again on the same KV gets them", async () => {
  const kv = await Deno.openKv(":memory:");
  const queue = new JobQueue({ kv, log: { log: () => {} } });
  const opts = { sweepMs: 600_000, graceMs: 1_000 };
  try {
    const first = noting();
    const a = queue.listen(first.handlers, opts);
    queue.kickDrain();
    queue.kickDrain(); // a second request while one drain waits adds nothing
    await first.nextDrain();
    await a.stop();

    queue.kickDrain(); // not listening: nothing is enqueued
    await kv.enqueue({ t: "attempt", d: "late", n: 2 }); // a message that was on its way when the listener stopped
    const second = noting();
    const b = queue.listen(second.handlers, opts);
    queue.kickDrain();
    await second.nextDrain();
    await b.stop();

    assert.deepEqual(first.calls, ["drain"]);
    assert.ok(second.calls.includes("drain"));
    assert.ok(second.calls.every((c) => c === "drain" || c === "attempt late 2"), second.calls.join(", "));
  } finally {
    kv.close();
  }
});
