/** The Hono environment shared by every route: bindings from `Deno.serve` and per-request variables. */
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import type { TokenBuckets } from "../db/token_bucket.ts";
import type { Logger } from "../log.ts";
import type { Auth } from "../auth/better_auth.ts";
import type { EventRuntime } from "../events/runtime.ts";

/** Everything the app needs from outside; built once in `main.ts` (or by a test) and passed to `createApp`. */
export interface AppDeps {
  config: Config;
  db: Db;
  kv: Deno.Kv;
  buckets: TokenBuckets;
  log: Logger;
  /** The better-auth instance; built by `createApp` when absent (tests pass theirs to create accounts). */
  auth?: Auth;
  /** The clock of domain rules (limits, reminders, saved-search runs) in ms since the epoch; tests move it. */
  clock?: () => number;
  /** The event machinery (webhook client, secret box, queue); created by `createApp` when absent. */
  events?: EventRuntime;
}

/** The current time of `deps`' clock (the system clock unless a test set one). */
export function nowOf(deps: Pick<AppDeps, "clock">): Date {
  return new Date(deps.clock ? deps.clock() : Date.now());
}

/** Hono's environment type of this app. */
export interface AppEnv {
  Bindings: Partial<Deno.ServeHandlerInfo>;
  Variables: {
    /** Random id of this request, sent back as `x-request-id` and written with every log line. */
    requestId: string;
    /** The signed-in account, when a later middleware has authenticated the caller. */
    accountId?: string;
  };
}
