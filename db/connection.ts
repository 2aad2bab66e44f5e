/**
 * Opens the system of record: postgres.js on a real server when a URL is given, else embedded PGlite.
 *
 * An embedded data folder belongs to one process at a time (`db/embedded_lock.ts`). The service holds it and,
 * once ready, serves it on a unix socket (`db/pglite_share.ts`); an operator task started meanwhile finds the
 * service in the lock file and works through that socket, so its writes land in the one database the service
 * uses. A task that finds the folder free holds it itself; another task waits for it, and the service refuses to
 * start while a task holds it ({@linkcode EmbeddedBusyError}).
 *
 * Nothing here runs on import; `main.ts`, tasks and tests call {@linkcode openDb} and pass the handle on.
 */
import type { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, sql } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import { describeHolder, HeldLock, type Holder, readHolder } from "./embedded_lock.ts";
import { Gate, gatedPglite, type PgliteServer, servePglite } from "./pglite_share.ts";
import type { Database } from "./schema.ts";

/** An open database: the Kysely handle plus the few driver-level operations Kysely does not offer. */
export interface Db {
  /** Which engine runs underneath (`pglite` also when reached through the service's socket). */
  readonly kind: "pglite" | "postgres";
  /** The query builder every `db/` module uses. */
  readonly kysely: Kysely<Database>;
  /**
   * The query builder of catalogue searches (`db/listings.ts`): on a real server its own sessions, which plan
   * every statement for its values ({@linkcode SEARCH_SESSION_SETTINGS}); on PGlite the same as `kysely`.
   */
  readonly search: Kysely<Database>;
  /** Runs a multi-statement SQL script in one transaction (used by migrations only). */
  execScript(script: string): Promise<void>;
  /**
   * Serves this embedded database to operator tasks on a unix socket (the service calls it once it is ready).
   * Absent unless this process holds an embedded data folder.
   */
  share?: (warn?: (msg: string, fields: Record<string, unknown>) => void) => Promise<void>;
  /**
   * Listens on notification channel `channel`: `onNotify(payload)` for each notification (sent by a committed
   * transaction of any session, this process's own included), `onListen()` each time listening (re)starts, so a
   * caller can catch up on what it may have missed while the connection was down. `close` stops listening.
   */
  listen(channel: string, onNotify: (payload: string) => void, onListen: () => void): Promise<Listener>;
  /** Closes every connection (and lets go of an embedded data folder). */
  close(): Promise<void>;
}

/** A running {@linkcode Db.listen}. */
export interface Listener {
  /** Stops listening. */
  close(): Promise<void>;
}

/** Who opens an embedded data folder: the service or an operator task, named as the operator started it. */
export interface Opener {
  role: "service" | "task";
  name: string;
}

/** Where to open the database. */
export interface OpenDbOptions {
  /** A postgres:// URL; when absent PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data folder; absent or `:memory:` keeps the database in memory. */
  dataDir?: string | undefined;
  /** Postgres schema to work in (tests use one schema per test file on a shared server). */
  searchPath?: string | undefined;
  /** Pool size for postgres.js (default 10). */
  poolSize?: number | undefined;
  /** Who opens an embedded data folder (default: a task named after the main module). */
  opener?: Opener | undefined;
  /** Receives a line when the opener has to wait for another process (default: stderr). */
  notice?: ((line: string) => void) | undefined;
  /** How long a task waits for another process to let go of the data folder (default 10 minutes). */
  waitMs?: number | undefined;
}

/** The embedded data folder is held by a process this opener may not share it with (now, or within the wait). */
export class EmbeddedBusyError extends Error {
  override name = "EmbeddedBusyError";
  /** Exit code of tasks and the service for this case. */
  static readonly EXIT_CODE = 3;
}

/** Opens the database described by `opts`. */
export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    return openPostgres(
      postgres(opts.databaseUrl, poolOptions(opts)),
      "postgres",
      postgres(opts.databaseUrl, poolOptions(opts, SEARCH_SESSION_SETTINGS)),
    );
  }
  if (!opts.dataDir || opts.dataDir === ":memory:") return await openPglite(await newPglite());
  return await openEmbedded(opts.dataDir, opts);
}

/**
 * Settings of the sessions that run catalogue searches ({@linkcode Db.search}). `plan_cache_mode`: every statement
 * is planned for its values. A prepared search otherwise settles on a generic plan after five executions, and a
 * generic plan cannot know which range of a search is the narrow one: it walked 50,000 index entries for an exact
 * total that reads none, taking seconds (docs/benchmarks.md §3.1). Other statements keep their cached plans:
 * planning a lookup by id at every execution cost 38 % of its throughput.
 */
export const SEARCH_SESSION_SETTINGS = { plan_cache_mode: "force_custom_plan" } as const;

function poolOptions(
  opts: OpenDbOptions,
  settings: Record<string, string> = {},
): postgres.Options<Record<string, never>> {
  return {
    max: opts.poolSize ?? 10,
    onnotice: () => {},
    connection: { ...settings, ...(opts.searchPath ? { search_path: opts.searchPath } : {}) },
  };
}

/** A Db over postgres.js pools; `searchSql`, when given, holds the sessions of {@linkcode Db.search}. */
function openPostgres(sql: postgres.Sql, kind: Db["kind"], searchSql?: postgres.Sql): Db {
  const kysely = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: sql }) });
  const search = searchSql
    ? new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: searchSql }) })
    : kysely;
  return {
    kind,
    kysely,
    search,
    async execScript(script) {
      await sql.begin(async (tx) => {
        await tx.unsafe(script).simple();
      });
    },
    async listen(channel, onNotify, onListen) {
      const r = await sql.listen(channel, onNotify, onListen);
      return { close: () => r.unlisten() };
    },
    async close() {
      // End the pool with a timeout first: postgres.js's end() without one can wait forever for a reserved
      // connection whose prepared statement failed; Kysely's destroy() then finds the pool already ended. A
      // statement still running after a second is cut off: a stopping instance has about 5 s in all (Deno Deploy).
      await Promise.all([sql.end({ timeout: 1 }), searchSql?.end({ timeout: 1 })]);
      await kysely.destroy();
      if (search !== kysely) await search.destroy();
    },
  };
}

/**
 * A PGlite instance (in memory, or on `folder`). PGlite is loaded here, on first use: a service on a real Postgres
 * server never loads it (docs/architecture.md §11.17).
 */
async function newPglite(folder?: string): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  return new PGlite(folder);
}

async function openPglite(pg: PGlite, lock?: HeldLock, folder?: string): Promise<Db> {
  await pg.waitReady;
  const gate = new Gate();
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect({ pglite: gatedPglite(pg, gate) }) });
  let server: PgliteServer | undefined;
  return {
    kind: "pglite",
    kysely,
    // PGlite's driver sends unnamed statements, which Postgres always plans for their values.
    search: kysely,
    async execScript(script) {
      await gate.run(() =>
        pg.transaction(async (tx) => {
          await tx.exec(script);
        })
      );
    },
    async listen(channel, onNotify, onListen) {
      // Through the gate: LISTEN must not land inside a transaction a shared session holds open.
      const unlisten = await gate.run(() => pg.listen(channel, onNotify));
      onListen();
      return { close: () => pg.closed ? Promise.resolve() : gate.run(() => unlisten()) };
    },
    ...(lock && folder
      ? {
        async share(warn) {
          if (server) return;
          server = await servePglite(pg, gate, await socketPath(folder), { warn });
          await lock.announce(server.path);
        },
      }
      : {}),
    async close() {
      await server?.close();
      await kysely.destroy();
      if (!pg.closed) await pg.close();
      await lock?.release();
    },
  };
}

/**
 * Opens an embedded data folder: as its holder, or through the running service's socket. A task waits for another
 * task (up to `waitMs`, default 10 minutes); the service waits up to 15 s for a task (one may have won a race with
 * the service's start) and refuses at once when another service holds the folder.
 */
async function openEmbedded(folder: string, opts: OpenDbOptions): Promise<Db> {
  const opener = opts.opener ?? { role: "task", name: defaultTaskName() };
  const notice = opts.notice ?? ((line: string) => console.error(line));
  const deadline = Date.now() + (opts.waitMs ?? (opener.role === "service" ? 15_000 : 10 * 60_000));
  const parent = folder.replace(/[\\/][^\\/]*[\\/]?$/, "");
  if (parent && parent !== folder) await Deno.mkdir(parent, { recursive: true });
  let told = "";
  for (;;) {
    const lock = await HeldLock.take(folder, opener);
    if (lock) return await holdFolder(folder, lock);
    const holder = await readHolder(folder);
    if (holder?.role === "service") {
      if (opener.role === "service") throw busy(holder, opener);
      const db = holder.socket ? await connectSocket(holder.socket) : undefined;
      if (db) return db;
    }
    if (Date.now() > deadline) throw busy(holder, opener);
    const why = holder ? waitingLine(holder) : "";
    if (why && why !== told) notice(told = why);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function holdFolder(folder: string, lock: HeldLock): Promise<Db> {
  try {
    return await openPglite(await newPglite(folder), lock, folder);
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** A Db over the service's socket, or undefined when nobody answers there (the service is going away). */
async function connectSocket(socket: string): Promise<Db | undefined> {
  const sql = postgres({
    host: socket.slice(0, socket.lastIndexOf("/")),
    port: Number(socket.slice(socket.lastIndexOf(".") + 1)),
    user: "postgres",
    database: "postgres",
    // The backend is shared: named prepared statements of two clients would collide.
    prepare: false,
    max: 4,
    onnotice: () => {},
  });
  try {
    await sql`select 1`;
  } catch {
    await sql.end({ timeout: 1 }).catch(() => {});
    return undefined;
  }
  return openPostgres(sql, "pglite");
}

function waitingLine(h: Holder): string {
  return h.role === "service"
    ? `waiting for the service ${describeHolder(h)} to finish starting…`
    : `waiting for ${describeHolder(h)} to finish with the embedded database…`;
}

function busy(h: Holder | undefined, opener: Opener): EmbeddedBusyError {
  if (!h) return new EmbeddedBusyError("the embedded database is in use by another process; try again later");
  if (h.role === "service") {
    return new EmbeddedBusyError(
      `the embedded database is already served by ${describeHolder(h)}; stop it first or use that service`,
    );
  }
  return new EmbeddedBusyError(
    opener.role === "service"
      ? `the embedded database is in use by ${describeHolder(h)}; start the service when it has finished ` +
        "(tasks started while the service runs use the service's database)"
      : `the embedded database is still in use by ${describeHolder(h)}; try again when it has finished`,
  );
}

/**
 * Where the service serves `folder`: `<folder>.run/.s.PGSQL.5432` (postgres.js and psql find a socket by folder
 * and port), or a folder under /tmp named by a hash of the path when that is too long for a unix socket.
 */
async function socketPath(folder: string): Promise<string> {
  const abs = await Deno.realPath(folder);
  let dir = `${abs}.run`;
  if (dir.length + 16 > 100) {
    const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(abs)));
    dir = `/tmp/immobilien-pglite-${
      [...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("")
    }`;
  }
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  return `${dir}/.s.PGSQL.5432`;
}

function defaultTaskName(): string {
  const file = Deno.mainModule.slice(Deno.mainModule.lastIndexOf("/") + 1).replace(/\.tsx?$/, "");
  return `deno task (${file})`;
}

/** Asks the database for `select 1` (the health check); rejects when it does not answer. */
export async function pingDb(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely);
}
