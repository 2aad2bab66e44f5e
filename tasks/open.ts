/** Opens the configured database for an operator task (the same database `deno task start` uses). */
import { configFromEnv } from "../config.ts";
import { type Db, EmbeddedBusyError, openDb } from "../db/connection.ts";
import { migrate } from "../db/migrate.ts";
import type { ActDeps } from "../deps.ts";
import { createLogger } from "../log.ts";
import { agentReactions } from "../agent/hooks.ts";

/** What an operator task needs from its surroundings; tests pass their own database and output. */
export interface TaskDeps {
  /** Opens the database (default: the configured one). It is closed at the end. */
  open?: () => Promise<Db>;
  /** Receives each line of the report (default: stdout). */
  out?: (line: string) => void;
  /** Receives error messages (default: stderr). */
  err?: (line: string) => void;
  /** Whether to draw progress bars on stderr (default true). */
  progress?: boolean;
}

/**
 * The database named by the environment: `DATABASE_URL`, else the embedded PGlite under `DATA_DIR`. While the
 * service runs on the embedded database, the task works through the service (db/connection.ts); when another task
 * holds it, this one waits and says so on stderr. If it cannot get the database, it prints why and exits with 3.
 */
export async function openConfiguredDb(task: string): Promise<Db> {
  const config = configFromEnv();
  try {
    return await openDb({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir === ":memory:" ? undefined : `${config.dataDir}/pglite`,
      opener: { role: "task", name: `deno task ${task}` },
    });
  } catch (err) {
    if (!(err instanceof EmbeddedBusyError)) throw err;
    console.error(err.message);
    Deno.exit(EmbeddedBusyError.EXIT_CODE);
  }
}

/**
 * Runs `fn` with the configured database of task `task` ({@linkcode openConfiguredDb}), migrated first when it is
 * the embedded one, and closes it afterwards whatever happens.
 */
export async function withTaskDb<T>(task: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openConfiguredDb(task);
  try {
    if (db.kind === "pglite") await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** How an import explains a failure, printed as "<what>, nothing changed: <why>", and its exit code. */
export interface ImportFailure {
  /** What went wrong, e.g. `import failed` or `broken file`. */
  what: string;
  /** Why, in the words of the error. */
  why: string;
  /** The exit code. */
  code: number;
}

/**
 * Runs an import task's `body` with the database of `deps` (default: the configured one of `task`), its schema
 * brought up to date first, and closes it whatever happens. Imports write in one transaction, so a thrown error
 * changed nothing: it is printed on `err` as `explain` words it and its exit code returned.
 */
export async function runImport(
  task: string,
  deps: TaskDeps,
  body: (db: Db) => Promise<number>,
  explain: (e: unknown) => ImportFailure,
): Promise<number> {
  const db = await (deps.open ?? (() => openConfiguredDb(task)))();
  try {
    await migrate(db);
    return await body(db);
  } catch (e) {
    const { what, why, code } = explain(e);
    return failWith(deps.err, `${what}, nothing changed: ${why}`, code);
  } finally {
    await db.close();
  }
}

/** Prints `text` on `err` (default: stderr) and returns `code`: a task's way out with a message. */
export function failWith(err: TaskDeps["err"], text: string, code: number): number {
  (err ?? ((l: string) => console.error(l)))(text);
  return code;
}

/**
 * What an operator task's domain writes need (`act`) over `db`: the system clock, warnings and errors on stderr
 * (a task's report goes to stdout), and the service's agent reacting as it does in the service.
 */
export function taskActDeps(db: Db): ActDeps {
  return { db, log: createLogger("warn"), reactions: agentReactions };
}
