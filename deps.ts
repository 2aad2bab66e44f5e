/**
 * What every layer receives, and the one way to write (docs/architecture.md §2).
 *
 * {@linkcode AppDeps}: the handles `main.ts` opens once (database, KV, token buckets, the event runtime, the job
 * engine, better-auth, the per-app state of authentication), the configuration, the logger and the clock of domain
 * rules, built complete by the composition (`app.ts` `composeDeps`) before anything uses them. Domain functions take
 * only the part they read (`Pick<AppDeps, "db" | …>`).
 *
 * {@linkcode act}: every domain write runs in an {@linkcode Action}, which gives it the transaction, who acts and
 * through which app, the domain clock, the app's dependencies and work to do after the commit. Domain write
 * functions take the action as their first parameter and open no transaction themselves; adapters (REST, MCP
 * tools, pages, tasks, background jobs) call `act`. A write that is part of another (the agent's approval sending a
 * reply) runs in the other's action.
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
import { AppError } from "./errors.ts";

/** Everything the app needs from outside, complete: built once by the composition (`composeDeps`). */
export interface AppDeps {
  config: Config;
  db: Db;
  kv: Deno.Kv;
  buckets: TokenBuckets;
  log: Logger;
  /** The better-auth instance, made on first use. */
  auth: AuthHandle;
  /** The per-app state of authentication (token verifier, key lookups). */
  authRuntime: AuthRuntime;
  /** The clock of domain rules (limits, reminders, saved-search runs) in ms since the epoch; tests move it. */
  clock?: () => number;
  /** The event machinery (secret box, signer, webhook client, delivery state). */
  events: EventRuntime;
  /** The background job engine (started by `background.ts`). */
  jobs: JobEngine;
  /** What reacts to domain happenings inside their action: the service's agent (`agent/hooks.ts`). */
  reactions: Reactions;
}

/**
 * Who acts: a provider for an office, a seeker, a signed-in person on their own account whatever their role (the
 * apps page, the mail settings), a person without an account, or the service itself (for an office when an
 * operator task names one, e.g. an OpenImmo import).
 */
export type Actor =
  | { kind: "provider"; userId: string; officeId: string }
  | { kind: "seeker"; userId: string }
  | { kind: "person"; userId: string }
  | { kind: "guest" }
  | { kind: "service"; officeId?: string };

/** Who acts and through which app (null: a page, an inbound message, a job, an operator task). */
export interface Who {
  actor: Actor;
  origin: EventOrigin;
}

/**
 * What an action needs of the app: the database, the domain clock, the logger and the reactions. An operator task
 * (its own process, no HTTP) builds just these.
 */
export type ActDeps = Pick<AppDeps, "db" | "clock" | "log" | "reactions">;

/** A domain write in progress: see the module comment. */
export interface Action extends Who {
  /** The action's transaction: every statement of the write runs on it. */
  readonly tx: Kysely<Database>;
  /**
   * The domain clock, read the first time the action asks for it: a write that takes locks first reads it after
   * them, so it is never earlier than the writes it waited for (the inquiry limits count on that).
   */
  readonly now: Date;
  /** What the action needs of the app (its logger, its reactions). */
  readonly deps: ActDeps;
  /** Runs `fn` once the action committed (never after a rollback); a failure of `fn` is logged. */
  afterCommit(fn: () => unknown): void;
}

/** The service acting by itself (background jobs, operator tasks): no person, no app. */
export const SERVICE: Who = { actor: { kind: "service" }, origin: null };

/** A person without an account writing in (an inbound e-mail, a portal's inquiry, a mail's stop link). */
export const GUEST: Who = { actor: { kind: "guest" }, origin: null };

/** The office `a` acts for (a provider's, or the one an operator task names); `not_found` for anyone else. */
export function actingOffice(a: Who): string {
  const actor = a.actor;
  if (actor.kind === "provider" || (actor.kind === "service" && actor.officeId)) return actor.officeId!;
  throw new AppError("not_found");
}

/** The provider acting in `a`; `not_found` for anyone else. */
export function actingProvider(a: Who): { userId: string; officeId: string } {
  if (a.actor.kind !== "provider") throw new AppError("not_found");
  return a.actor;
}

/** The seeker acting in `a`; `not_found` for anyone else (what belongs to a seeker is only ever their own). */
export function actingSeeker(a: Who): string {
  if (a.actor.kind !== "seeker") throw new AppError("not_found");
  return a.actor.userId;
}

/** The signed-in person acting in `a` (a provider, a seeker or a person); `not_found` for anyone else. */
export function actingPerson(a: Who): string {
  const actor = a.actor;
  if (actor.kind === "provider" || actor.kind === "seeker" || actor.kind === "person") return actor.userId;
  throw new AppError("not_found");
}

/**
 * Runs `fn` as one action of `who`: in one transaction (all of it commits or nothing), then the work registered
 * with `afterCommit`. Returns what `fn` returned.
 */
export async function act<T>(deps: ActDeps, who: Who, fn: (a: Action) => Promise<T>): Promise<T> {
  const after: Array<() => unknown> = [];
  const result = await deps.db.kysely.transaction().execute((tx) => {
    let now: Date | undefined;
    return fn({
      ...who,
      tx,
      deps,
      get now() {
        return now ??= nowOf(deps);
      },
      afterCommit: (f) => void after.push(f),
    });
  });
  for (const f of after) {
    try {
      await f();
    } catch (err) {
      deps.log.log("error", "work after a commit failed", { error: (err as Error).message });
    }
  }
  return result;
}

/**
 * Something a domain action did, announced inside the action so that what reacts to it commits with the action or
 * not at all: a new inquiry, an office that replied to or rejected an inquiry, a listing that left the catalogue
 * (withdrawn or reserved), a document that was read. The announcing domain knows nothing of who reacts.
 */
export type Happening =
  | { kind: "inquiry_received"; inquiryId: string }
  | { kind: "office_wrote"; inquiryId: string; userId: string }
  | { kind: "listing_unavailable"; listingId: string; why: "withdrawn" | "reserved" }
  | { kind: "document_processed"; fileId: string };

/** Reacts to happenings within the announcing action; returns the ids of what it made or closed (proposals). */
export interface Reactions {
  react(a: Action, happening: Happening): Promise<string[]>;
}

/** The current time of `deps`' clock (the system clock unless a test set one). */
export function nowOf(deps: Pick<AppDeps, "clock">): Date {
  return new Date(deps.clock ? deps.clock() : Date.now());
}
