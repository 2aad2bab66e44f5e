/**
 * Kysely over postgres.js with the opening `begin` of a transaction pipelined: it is written together with the
 * transaction's first statement instead of waiting for its own answer. A transaction of one statement then costs
 * two round trips instead of three. Measured in `bench:events` (16 concurrent `withEvents` transactions of one
 * insert): ~1/3 of the service's CPU per transaction was postgres.js and Deno's socket layer per round trip.
 *
 * Safety: postgres.js sends the queries of a reserved connection in order, so the server runs `begin` before the
 * statement. When `begin` fails the statement's own result is discarded and the failure is thrown, so the caller
 * (Kysely) rolls back as for any failed statement. `begin` fails only when the connection is lost, and then the
 * pipelined statement fails with it.
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

/** A connection whose `begin` may still be on its way. */
class PipelinedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  #begun: Promise<unknown> | undefined;

  constructor(inner: DatabaseConnection) {
    this.inner = inner;
  }

  /** Sends `begin` (or `start transaction …`) without waiting; the next statement waits for both. */
  begin(query: CompiledQuery): void {
    const begun = this.inner.executeQuery(query);
    begun.catch(() => {}); // observed by the next statement
    this.#begun = begun;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const begun = this.#begun;
    this.#begun = undefined;
    if (!begun) return await this.inner.executeQuery<R>(query);
    const run = this.inner.executeQuery<R>(query);
    const [opened, result] = await Promise.allSettled([begun, run]);
    if (opened.status === "rejected") throw opened.reason;
    if (result.status === "rejected") throw result.reason;
    return result.value;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.#begun) throw new Error("streaming as the first statement of a transaction is not supported");
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** The text Kysely's Postgres driver sends to open a transaction with `settings`. */
function beginText(settings: TransactionSettings): string {
  if (!settings.isolationLevel && !settings.accessMode) return "begin";
  let text = "start transaction";
  if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
  if (settings.accessMode) text += ` ${settings.accessMode}`;
  return text;
}

/** Wraps a postgres.js driver: connections are {@linkcode PipelinedConnection}s, `begin` is not awaited. */
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
    commitTransaction: (connection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
    savepoint: driver.savepoint?.bind(driver),
    rollbackToSavepoint: driver.rollbackToSavepoint?.bind(driver),
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
