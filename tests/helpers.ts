/** Test helpers: an isolated database per test file (PGlite, or a fresh schema on DATABASE_URL), apps, requests. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { type Kysely, sql } from "kysely";
import postgres from "postgres";
import { composeDeps, createApp } from "../app.ts";
import { type Config, loadConfig } from "../config.ts";
import { type Auth, createAuth } from "../auth/better_auth.ts";
import { authHandleOf } from "../auth/auth_handle.ts";
import { type Db, openDb } from "../db/connection.ts";
import { migrate } from "../db/migrate.ts";
import type { Database } from "../db/schema.ts";
import type { LogLevel } from "../log.ts";
import { act, type ActDeps, type AppDeps, type Who } from "../deps.ts";
import { sendInquiry, type SendInquiryInput } from "../inquiries/inquiries.ts";
import type { EventOrigin } from "../db/outbox.ts";
import { agentReactions } from "../agent/hooks.ts";
import type { AppEnv } from "../routes/env.ts";

/** The real Postgres server of the CI run, when one is configured. */
export const DATABASE_URL = Deno.env.get("DATABASE_URL") || undefined;

/** The AUTH_SECRET of test apps (never used outside tests). */
export const TEST_AUTH_SECRET = "test-only-secret-0123456789abcdefghijklmnopqrstuv";

/** An isolated, migrated database and how to dispose of it. */
export interface TestDb {
  db: Db;
  /** Closes the database and drops its schema on a real server. */
  close(): Promise<void>;
}

/** Connections of a test database on a real server. */
const POOL_SIZE = 4;

/**
 * Opens all `size` connections of a postgres.js pool at once. A pool otherwise opens them as load needs, and a
 * connection opened during a test starts its lifetime timer there: the ops sanitizer would take that timer, which
 * belongs to the pool shared by the file's tests, for a leak of that test.
 */
async function openEveryConnection(kysely: Kysely<Database>, size: number): Promise<void> {
  let ready = 0;
  let allOpen!: () => void;
  const together = new Promise<void>((resolve) => (allOpen = resolve));
  await Promise.all(Array.from({ length: size }, () =>
    kysely.connection().execute(async (c) => {
      await sql`select 1`.execute(c);
      if (++ready === size) allOpen();
      await together;
    })));
}

/** Opens a fresh migrated database: in-memory PGlite, or a new schema on the DATABASE_URL server. */
export async function openTestDb(opts: { migrated?: boolean } = {}): Promise<TestDb> {
  if (!DATABASE_URL) {
    const db = await openDb({});
    if (opts.migrated !== false) await migrate(db);
    return { db, close: () => db.close() };
  }
  const schema = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${schema}`);
  const db = await openDb({ databaseUrl: DATABASE_URL, searchPath: schema, poolSize: POOL_SIZE });
  if (opts.migrated !== false) await migrate(db);
  await openEveryConnection(db.kysely, POOL_SIZE);
  await openEveryConnection(db.search, POOL_SIZE);
  return {
    db,
    async close() {
      await db.close();
      await admin.unsafe(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}

/** Captured log lines of a test app. */
export interface LogLine {
  level: LogLevel;
  msg: string;
  fields?: Record<string, unknown> | undefined;
}

/** A test app over `db` with an in-memory KV (or the given one) and a controllable clock. */
export interface TestApp {
  app: OpenAPIHono<AppEnv>;
  /** The dependencies the app was built with (its event runtime included). */
  deps: AppDeps;
  kv: Deno.Kv;
  logs: LogLine[];
  /** The app's better-auth instance (to create accounts). */
  auth: Auth;
  /** The app's configuration. */
  config: Config;
  /** Current test time in ms; move it with `advance`. */
  now(): number;
  advance(ms: number): void;
  /** Closes what the app opened: the KV `testApp` opened itself (not one passed in), the webhook client. */
  close(): Promise<void>;
  /** `await using t = await testApp(…)` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A better-auth instance that has finished what it starts on its own: its plugins' writes while it initialises,
 * then the schema comparison it runs in the background (closing the database would wait for a query in flight).
 */
async function readyAuth(deps: Parameters<typeof createAuth>[0]): Promise<Auth> {
  const auth = createAuth(deps);
  const context = await auth.$context;
  await context.checkSchema?.()?.catch(() => {});
  return auth;
}

/** Builds an app for tests; `env` holds configuration variables (rate limits off unless RATE_LIMIT is given). */
export async function testApp(
  db: Db,
  env: Record<string, string> = {},
  kv?: Deno.Kv,
): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: ":memory:",
    RATE_LIMIT: "off",
    AUTH_SECRET: TEST_AUTH_SECRET,
    ...env,
  });
  const store = kv ?? await Deno.openKv(":memory:");
  let t = Date.now();
  const logs: LogLine[] = [];
  const log = {
    log: (level: LogLevel, msg: string, fields?: Record<string, unknown>) =>
      logs.push({ level, msg, fields }),
  };
  const auth = await readyAuth({ config, db, log });
  const deps = composeDeps({
    config,
    db,
    kv: store,
    log,
    auth: authHandleOf(auth),
    reactions: agentReactions,
    clock: () => t,
  });
  const app = createApp(deps);
  // The event runtime derives its secret box's key in the background: let that finish before the test goes on.
  await deps.events.box?.seal("");
  const close = () => {
    deps.events.client.close();
    if (!kv) store.close(); // a KV passed in belongs to the caller
    return Promise.resolve();
  };
  return {
    app,
    deps,
    kv: store,
    logs,
    auth,
    config,
    now: () => t,
    advance: (ms) => void (t += ms),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A request handler of `Deno.serve`. */
export type ServeHandler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

/** A test app served on a loopback port, so that browsers, MCP clients and mails reach it by URL. */
export interface ServedTestApp {
  /** The app; its BASE_URL is `origin`. */
  app: TestApp;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Stops the server, then closes the app (not its database). */
  close(): Promise<void>;
}

/**
 * Serves a test app over `db` on 127.0.0.1 and a free port. The app's BASE_URL is that origin, so the server
 * starts first and answers 503 until the app is built. `wrap` may wrap the app's handler (to watch requests).
 */
export async function serveTestApp(
  db: Db,
  env: Record<string, string> = {},
  wrap: (handler: ServeHandler) => ServeHandler = (h) => h,
): Promise<ServedTestApp> {
  let handler: ServeHandler = () => new Response("starting", { status: 503 });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (r, i) => handler(r, i));
  const origin = `http://127.0.0.1:${server.addr.port}`;
  let app: TestApp;
  try {
    app = await testApp(db, { BASE_URL: origin, ...env });
  } catch (e) {
    await server.shutdown();
    throw e;
  }
  handler = wrap((req, info) => app.app.fetch(req, info));
  return {
    app,
    origin,
    async close() {
      await server.shutdown();
      await app.close();
    },
  };
}

/** Sends a request to `app` as if it came from `ip` over a TCP connection. */
export function request(
  app: OpenAPIHono<AppEnv>,
  path: string,
  init: RequestInit = {},
  ip = "198.51.100.7",
): Promise<Response> {
  return Promise.resolve(
    app.request(path, init, { remoteAddr: { transport: "tcp", hostname: ip, port: 40000 } }),
  );
}

/** GETs `path` and returns status, parsed JSON body and headers. */
export async function getJson(
  app: OpenAPIHono<AppEnv>,
  path: string,
  ip?: string,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await request(app, path, {}, ip);
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/**
 * Closes `handles` (apps, databases) after the module's last test, in order: what a module opens before its tests
 * is closed after them (closing it inside a test would count as that test's leak).
 */
export function closeAfterAll(...handles: Array<{ close(): unknown }>): void {
  Deno.test.afterAll(async () => {
    for (const h of handles) await h.close();
  });
}

/**
 * A world (app, database, clients…) shared by the tests of one file, opened and closed here so that no test opens
 * or closes it for the others: `open` runs while the module loads, before its first test (so no test's sanitizers
 * count what it opens), and the world is closed after the file's last test, whichever tests ran (`--filter`
 * included). A test may change the world only in ways the other tests do not see (its own accounts, listings,
 * apps; a change it undoes in `finally`), so the tests run alone or in any order.
 *
 * `const w = await fileWorld(() => mcpWorld());`
 */
export async function fileWorld<W extends { close(): unknown }>(open: () => Promise<W>): Promise<W> {
  const world = await open();
  closeAfterAll(world);
  return world;
}

/**
 * A provider of office `officeId` acting through `origin` (none: a workspace page). `userId` is the person recorded
 * where a write names one (a reply's author, a proposal's decider); tests that need it pass a real account.
 */
export function officeWho(
  officeId: string,
  userId: string = crypto.randomUUID(),
  origin: EventOrigin = null,
): Who {
  return { actor: { kind: "provider", userId, officeId }, origin };
}

/** The seeker `userId` acting through `origin` (none: a page). */
export function seekerWho(userId: string, origin: EventOrigin = null): Who {
  return { actor: { kind: "seeker", userId }, origin };
}

/**
 * Sends an inquiry as its sender would, in one action: the seeker of `input.inquirer.seekerId`, or a person without
 * an account; through `input.origin` (none: a page or an inbound message).
 */
export function sendInquiryAs(
  deps: ActDeps,
  input: SendInquiryInput & { origin?: EventOrigin },
): ReturnType<typeof sendInquiry> {
  const { origin = null, ...rest } = input;
  const seekerId = rest.inquirer.seekerId;
  const who: Who = seekerId ? seekerWho(seekerId, origin) : { actor: { kind: "guest" }, origin };
  return act(deps, who, (a) => sendInquiry(a, rest));
}
