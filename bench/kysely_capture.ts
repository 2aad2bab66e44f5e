/**
 * Captures the SQL that `db/listings.ts` compiles through Kysely (with a driver that runs nothing), to prove that
 * the plain copies of `listings_sql.ts` used by the direct-driver floor are the very same statements.
 */
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from "kysely";
import type { ListingFilter } from "../catalogue/listing.ts";
import type { Db } from "../db/connection.ts";
import { findPublishedListing, searchPublishedListings } from "../db/listings.ts";
import type { Database } from "../db/schema.ts";
import { listingQuery, searchQueries, type SqlQuery } from "./listings_sql.ts";

class CaptureConnection implements DatabaseConnection {
  constructor(private readonly sink: CompiledQuery[], private readonly total: number) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.sink.push(query);
    return Promise.resolve({ rows: [{ total: this.total } as R] });
  }

  // deno-lint-ignore require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("not supported");
  }
}

class CaptureDriver implements Driver {
  constructor(private readonly sink: CompiledQuery[], private readonly total: number) {}
  async init(): Promise<void> {}
  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(new CaptureConnection(this.sink, this.total));
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** A database that records every statement and answers each with one row `{total}`. */
function captureDb(sink: CompiledQuery[], total = 1): Db {
  const kysely = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new CaptureDriver(sink, total),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return {
    kind: "postgres",
    kysely,
    search: kysely,
    execScript: () => Promise.resolve(),
    listen: () => Promise.resolve({ close: () => Promise.resolve() }),
    close: () => kysely.destroy(),
  };
}

function toSql(q: CompiledQuery): SqlQuery {
  return { text: q.sql, params: [...q.parameters] as Array<string | number> };
}

/**
 * The statements Kysely compiles for one list request whose count answers `total` (above the request's offset):
 * the page query and the count query.
 */
export async function kyselySearchQueries(
  f: ListingFilter,
  total: number,
): Promise<{ items: SqlQuery; count: SqlQuery }> {
  const sink: CompiledQuery[] = [];
  const db = captureDb(sink, total);
  await searchPublishedListings(db, f, f.page_size, (f.page - 1) * f.page_size);
  await db.close();
  const isCount = (q: CompiledQuery) => /"listing_counts"/.test(q.sql);
  const items = sink.find((q) => !isCount(q));
  const count = sink.find(isCount);
  if (sink.length !== 2 || !items || !count) {
    throw new Error(`expected a page query and a count query, got ${sink.length} statements`);
  }
  return { items: toSql(items), count: toSql(count) };
}

/** The statement Kysely compiles for one single-listing request. */
export async function kyselyListingQuery(id: string): Promise<SqlQuery> {
  const sink: CompiledQuery[] = [];
  const db = captureDb(sink);
  await findPublishedListing(db, id);
  await db.close();
  if (sink.length !== 1) throw new Error(`expected one statement, got ${sink.length}`);
  return toSql(sink[0]!);
}

/** Result of {@linkcode verifyPlainSql}. */
export interface SqlCheck {
  /** Statements compared. */
  compared: number;
  /** Distinct statement texts among them. */
  distinctTexts: number;
  /** Human-readable differences (empty when every plain copy equals Kysely's statement). */
  mismatches: string[];
}

/** Compares the plain copies with Kysely's compiled statements for every list filter and id of the mix. */
export async function verifyPlainSql(filters: ListingFilter[], ids: string[]): Promise<SqlCheck> {
  const mismatches: string[] = [];
  const texts = new Set<string>();
  let compared = 0;
  const compare = (label: string, plain: SqlQuery, kysely: SqlQuery) => {
    compared++;
    texts.add(kysely.text);
    if (plain.text !== kysely.text) {
      mismatches.push(`${label}: text differs\n    plain:  ${plain.text}\n    kysely: ${kysely.text}`);
    } else if (JSON.stringify(plain.params) !== JSON.stringify(kysely.params)) {
      mismatches.push(
        `${label}: parameters differ: plain ${JSON.stringify(plain.params)} kysely ${
          JSON.stringify(kysely.params)
        }`,
      );
    }
  };
  for (const f of filters) {
    // every shape of page query: many matches (ids first or plain) and few (matches first)
    const offset = (f.page - 1) * f.page_size;
    for (const total of new Set([1_000_000_000, offset + 1])) {
      const k = await kyselySearchQueries(f, total);
      const p = searchQueries(f, total);
      compare(`list ${JSON.stringify(f)} (total ${total}) items`, p.items, k.items);
      compare(`list ${JSON.stringify(f)} (total ${total}) count`, p.count, k.count);
    }
  }
  for (const id of ids) compare(`listing ${id}`, listingQuery(id), await kyselyListingQuery(id));
  return { compared, distinctTexts: texts.size, mismatches };
}
