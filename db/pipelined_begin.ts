/**
 * Kysely over postgres.js with the opening `begin` of a transaction pipelined: it is written together with the
 * transaction's first statement instead of waiting for its own answer. A transaction of one statement then costs
 * two round trips instead of three. Measured in `bench:events` (16 concurrent `withEvents` transactions of one
 * insert): ~1/3 of the service's CPU per transaction was postgres.js and Deno's socket layer per round trip.
 * Statements marked {@linkcode deferrable} go further: they are written with the `commit` that follows them, so
 * such a transaction is one round trip.
 *
 * Safety: postgres.js sends the queries of a reserved connection in order, so the server runs `begin` before the
 * statement, and a deferred statement before the next one. When `begin` or a deferred statement fails, the next
 * statement's own result is discarded and that failure is thrown, so the caller (Kysely) rolls back as for any
 * failed statement; when the next statement is the `commit`, the server has already turned it into a rollback.
 * `begin` fails only when the connection is lost, and then the pipelined statement fails with it.
 */
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import type postgres from "postgres";

/** Statements marked by {@linkcode deferrable} (compiled queries are objects Kysely hands on unchanged). */
const DEFERRABLE = new WeakSet<CompiledQuery>();

/**
 * Marks `query` so that, inside a transaction on Postgres, it is sent at once but its answer is awaited only by the
 * transaction's next statement or its `commit`: the caller gets an empty result at once. A transaction of one
 * such statement is then a single round trip (`begin`, the statement and `commit` written together). Its failure
 * is thrown by that next statement or by the commit (Postgres answers the `commit` of a failed transaction with a
 * rollback), so the transaction still commits all or nothing. For statements whose result the caller does not
 * need; outside a transaction, and on PGlite, the statement runs as usual. Returns `query`.
 */
export function deferrable(query: CompiledQuery): CompiledQuery {
  DEFERRABLE.add(query);
  return query;
}

/** A connection whose `begin`, and deferrable statements after it, may still be on their way. */
class PipelinedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  /** Statements sent whose answers nobody has awaited yet, in the order they were sent. */
  #unanswered: Promise<unknown>[] = [];
  #inTransaction = false;

  constructor(inner: DatabaseConnection) {
    this.inner = inner;
  }

  /** Sends `begin` (or `start transaction …`) without waiting; the next statement waits for both. */
  begin(query: CompiledQuery): void {
    this.#inTransaction = true;
    this.#send(query);
  }

  /** Marks the end of the transaction (its `commit` or `rollback` comes next and awaits what is unanswered). */
  ending(): void {
    this.#inTransaction = false;
  }

  /**
   * Forgets the unanswered statements (before a rollback, or one to a savepoint: their failure is not the caller's
   * error).
   */
  forget(): void {
    this.#unanswered = [];
  }

  /**
   * Hands `query` to postgres.js at once. postgres.js writes the statements of a reserved connection in the order
   * they were handed to it, so nothing sent later can overtake it.
   */
  #send(query: CompiledQuery): void {
    const sent = this.inner.executeQuery(query);
    sent.catch(() => {}); // observed by the next statement
    this.#unanswered.push(sent);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#inTransaction && DEFERRABLE.has(query)) {
      this.#send(query);
      return { rows: [] };
    }
    const earlier = this.#takeUnanswered();
    if (earlier.length === 0) return await this.inner.executeQuery<R>(query);
    const run = this.inner.executeQuery<R>(query);
    await settled([...earlier, run]);
    return await run;
  }

  /** Streams `query`'s rows once `begin` and the deferred statements before it were answered (throws their failure). */
  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    await settled(this.#takeUnanswered());
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  /** The statements sent whose answers nobody awaited yet; the caller awaits them now. */
  #takeUnanswered(): Promise<unknown>[] {
    const earlier = this.#unanswered;
    this.#unanswered = [];
    return earlier;
  }
}

/** Waits for all of `answers`, then throws the first failure among them (in the order they were sent). */
async function settled(answers: Promise<unknown>[]): Promise<void> {
  for (const s of await Promise.allSettled(answers)) if (s.status === "rejected") throw s.reason;
}

/** The text Kysely's Postgres driver sends to open a transaction with `settings`. */
function beginText(settings: TransactionSettings): string {
  if (!settings.isolationLevel && !settings.accessMode) return "begin";
  let text = "start transaction";
  if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
  if (settings.accessMode) text += ` ${settings.accessMode}`;
  return text;
}

/**
 * Wraps a postgres.js driver: connections are {@linkcode PipelinedConnection}s, `begin` and deferrable statements
 * are not awaited.
 */
function pipelinedDriver(driver: Driver): Driver {
  const unwrap = (c: DatabaseConnection) => c instanceof PipelinedConnection ? c.inner : c;
  return {
    init: (options) => driver.init(options),
    acquireConnection: async (options) => new PipelinedConnection(await driver.acquireConnection(options)),
    beginTransaction(connection, settings) {
      if (!(connection instanceof PipelinedConnection)) return driver.beginTransaction(connection, settings);
      connection.begin(CompiledQuery.raw(beginText(settings)));
      return Promise.resolve();
    },
    commitTransaction(connection) {
      if (connection instanceof PipelinedConnection) connection.ending();
      return driver.commitTransaction(connection);
    },
    rollbackTransaction(connection) {
      if (connection instanceof PipelinedConnection) {
        connection.ending();
        connection.forget();
      }
      return driver.rollbackTransaction(connection);
    },
    savepoint: driver.savepoint?.bind(driver),
    rollbackToSavepoint: driver.rollbackToSavepoint &&
      ((connection, name, compile) => {
        // Statements deferred after the savepoint (the savepoint itself awaited the earlier ones) are undone here.
        if (connection instanceof PipelinedConnection) connection.forget();
        return driver.rollbackToSavepoint!(connection, name, compile);
      }),
    releaseSavepoint: driver.releaseSavepoint?.bind(driver),
    releaseConnection: (connection, options) => driver.releaseConnection(unwrap(connection), options),
    destroy: (options) => driver.destroy(options),
  };
}

/** The postgres.js dialect of `sql` with pipelined `begin`. */
export class PipelinedPostgresDialect extends PostgresJSDialect {
  constructor(sql: postgres.Sql) {
    super({ postgres: sql });
  }

  override createDriver(): Driver {
    return pipelinedDriver(super.createDriver());
  }
}
