/**
 * The dependency type every layer receives: the handles `main.ts` opens once (database, KV, token buckets, the
 * event runtime, the better-auth instance, the per-app state of authentication), the configuration, the logger and
 * the clock of domain rules. Tests and benchmarks build their own. Domain functions take only the part they use
 * (`Pick<AppDeps, "db" | …>`).
 */
import type { Kysely } from "kysely";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { Db } from "./db/connection.ts";
import type { EventOrigin } from "./db/outbox.ts";
import type { Database } from "./db/schema.ts";
import type { TokenBuckets } from "./db/token_bucket.ts";
import type { AuthHandle } from "./auth/auth_handle.ts";
import type { AuthRuntime } from "./auth/runtime.ts";
import type { EventRuntime } from "./events/runtime.ts";
import type { JobEngine } from "./jobs/engine.ts";

/** Everything the app needs from outside; built once in `main.ts` (or by a test) and passed to `createApp`. */
export interface AppDeps {
  config: Config;
  db: Db;
  kv: Deno.Kv;
  buckets: TokenBuckets;
  log: Logger;
  /** The better-auth instance, made on first use; `createApp` makes the handle when absent (tests pass theirs). */
  auth?: AuthHandle;
  /** The per-app state of authentication (token verifier, key lookups); created by `createApp` when absent. */
  authRuntime?: AuthRuntime;
  /** The clock of domain rules (limits, reminders, saved-search runs) in ms since the epoch; tests move it. */
  clock?: () => number;
  /** The event machinery (webhook client, secret box, wake-ups); created by `createApp` when absent. */
  events?: EventRuntime;
  /** The background job engine (started by `background.ts`); created by `createApp` when absent. */
  jobs?: JobEngine;
  /** What reacts to domain happenings inside their transaction: the service's agent (`agent/hooks.ts`). */
  reactions: Reactions;
}

/**
 * Something a domain action did, announced inside the action's transaction so that what reacts to it commits with
 * the action or not at all: a new enquiry, a listing that left the catalogue (withdrawn or reserved), a document
 * that was read. The announcing domain knows nothing of who reacts.
 */
export type Happening =
  | { kind: "inquiry_received"; inquiryId: string }
  | { kind: "listing_unavailable"; listingId: string; why: "withdrawn" | "reserved" }
  | { kind: "document_processed"; fileId: string };

/** When a happening happened, and the app whose call caused it (null: a page, an inbound message, a job). */
export interface HappeningContext {
  now: Date;
  origin: EventOrigin;
}

/** Reacts to happenings with the action's transaction `tx`; returns the ids of what it made (e.g. proposals). */
export interface Reactions {
  react(tx: Kysely<Database>, happening: Happening, ctx: HappeningContext): Promise<string[]>;
}

/** The current time of `deps`' clock (the system clock unless a test set one). */
export function nowOf(deps: Pick<AppDeps, "clock">): Date {
  return new Date(deps.clock ? deps.clock() : Date.now());
}
