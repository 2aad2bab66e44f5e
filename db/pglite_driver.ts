/**
 * A Kysely dialect for embedded PGlite.
 *
 * PGlite is one Postgres backend in this process, so the driver hands out one connection at a time: a caller
 * holds it from acquire to release, which keeps a transaction's statements from interleaving with others.
 */
import type { PGlite } from "@electric-sql/pglite";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from "kysely";

class PgliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const res = await this.pg.query<R>(query.sql, [...query.parameters]);
    const affected = res.affectedRows;
    return affected === undefined || res.fields.length > 0
      ? { rows: res.rows }
      : { rows: res.rows, numAffectedRows: BigInt(affected) };
  }

  // deno-lint-ignore require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming is not supported on PGlite");
  }
}

class PgliteDriver implements Driver {
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;
  readonly #connection: PgliteConnection;

  constructor(pg: PGlite) {
    this.#connection = new PgliteConnection(pg);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery({ sql: "begin", parameters: [] } as unknown as CompiledQuery);
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery({ sql: "commit", parameters: [] } as unknown as CompiledQuery);
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery({ sql: "rollback", parameters: [] } as unknown as CompiledQuery);
  }

  releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {}
}

/** A Kysely dialect that runs every query on the given PGlite instance, one connection holder at a time. */
export class PgliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}

  /** Creates the Postgres query adapter. */
  createAdapter(): PostgresAdapter {
    return new PostgresAdapter();
  }

  /** Creates the serialising PGlite driver. */
  createDriver(): Driver {
    return new PgliteDriver(this.pg);
  }

  /** Creates the Postgres query compiler. */
  createQueryCompiler(): PostgresQueryCompiler {
    return new PostgresQueryCompiler();
  }

  /** Creates the Postgres schema introspector. */
  // deno-lint-ignore no-explicit-any
  createIntrospector(db: Kysely<any>): PostgresIntrospector {
    return new PostgresIntrospector(db);
  }
}
