/**
 * The whole Deno KV key schema in one place. Every KV key the service reads or writes is built here.
 */

/** Rate-limit groups of spec §8. */
export type RateGroup = "catalogue" | "valuation" | "mcp" | "write" | "signin";

/** Key of one caller's token bucket in one route group: `["rate", group, caller]`. */
export function rateBucketKey(group: RateGroup, caller: string): Deno.KvKey {
  return ["rate", group, caller];
}

/** Key probed by the health check: `["health"]`. */
export function healthKey(): Deno.KvKey {
  return ["health"];
}

/**
 * Messages of the event queue (`kv.enqueue`): drain the outbox (the drainer claims and sends the first attempts
 * itself), make attempt `n` of delivery `d` (a retry, with its delay), or send owed `terminated` control messages.
 * Every handler is idempotent (Postgres holds the state; KV only wakes it). A `first` message of an older version
 * is ignored: its deliveries are pending and the sweep sends them.
 */
export type EventQueueMessage =
  | { t: "drain" }
  | { t: "attempt"; d: string; n: number }
  | { t: "terminate" }
  /** Read an uploaded document (documents/processing.ts). */
  | { t: "document"; id: string };

/** Whether `v` (a dequeued value) is an {@linkcode EventQueueMessage}. */
export function isEventQueueMessage(v: unknown): v is EventQueueMessage {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  if (m.t === "drain" || m.t === "terminate") return true;
  if (m.t === "document") return typeof m.id === "string";
  return m.t === "attempt" && typeof m.d === "string" && typeof m.n === "number";
}
