/**
 * Opens the system of record: postgres.js on a real server when a URL is given, else embedded PGlite.
 *
 * Nothing here runs on import; `main.ts`, tasks and tests call {@linkcode openDb} and pass the handle on.
 */
import { PGlite } from "@electric-sql/pglite";
import { Kysely } from "kysely";
import postgres from "postgres";
import { PgliteDialect } from "./pglite_driver.ts";
import { PipelinedPostgresDialect } from "./pipelined_begin.ts";
import type { Database } from "./schema.ts";

/** An open database: the Kysely handle plus the few driver-level operations Kysely does not offer. */
export interface Db {
  /** Which engine runs underneath. */
  readonly kind: "pglite" | "postgres";
  /** The query builder every `db/` module uses. */
  readonly kysely: Kysely<Database>;
  /** Runs a multi-statement SQL script in one transaction (used by migrations only). */
  execScript(script: string): Promise<void>;
  /** Closes every connection. */
  close(): Promise<void>;
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
}

/** Opens the database described by `opts`. */
export async function openDb(opts: OpenDbOptions): Promise<Db> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts) : await openPglite(opts.dataDir);
}

function openPostgres(url: string, opts: OpenDbOptions): Db {
  const sql = postgres(url, {
    max: opts.poolSize ?? 10,
    onnotice: () => {},
    ...(opts.searchPath ? { connection: { search_path: opts.searchPath } } : {}),
  });
  const kysely = new Kysely<Database>({ dialect: new PipelinedPostgresDialect(sql) });
  return {
    kind: "postgres",
    kysely,
    async execScript(script) {
      await sql.begin(async (tx) => {
        await tx.unsafe(script).simple();
      });
    },
    async close() {
      // End the pool with a timeout first: postgres.js's end() without one can wait forever for a reserved
      // connection whose prepared statement failed; Kysely's destroy() then finds the pool already ended.
      await sql.end({ timeout: 5 });
      await kysely.destroy();
    },
  };
}

async function openPglite(dataDir: string | undefined): Promise<Db> {
  const pg = dataDir && dataDir !== ":memory:" ? new PGlite(dataDir) : new PGlite();
  await pg.waitReady;
  const kysely = new Kysely<Database>({ dialect: new PgliteDialect(pg) });
  return {
    kind: "pglite",
    kysely,
    async execScript(script) {
      await pg.transaction(async (tx) => {
        await tx.exec(script);
      });
    },
    async close() {
      await kysely.destroy();
      await pg.close();
    },
  };
}
