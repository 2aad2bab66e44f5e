/** Migrations: applied once, safe to run concurrently, and the same schema on PGlite and a real server. */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "../db/connection.ts";
import { migrate, migrationFiles } from "../db/migrate.ts";
import { pendingMigrations } from "../db/migrate_check.ts";
import { DATABASE_URL, openTestDb } from "./helpers.ts";

/** A comparable description of the current schema: columns, indexes, constraints and functions. */
async function describe(db: Db): Promise<unknown> {
  const q = async (text: string) => (await sql.raw(text).execute(db.kysely)).rows;
  return {
    columns: await q(`select table_name, column_name, data_type, is_nullable, column_default, is_generated,
        generation_expression, numeric_precision, numeric_scale
      from information_schema.columns where table_schema = current_schema() order by 1, 2`),
    indexes: (await q(`select tablename, indexname, indexdef from pg_indexes
      where schemaname = current_schema() order by 1, 2`) as Array<{ indexdef: string }>)
      .map((r) => ({ ...r, indexdef: r.indexdef.replace(/ ON \S+\./, " ON ") })),
    constraints: await q(`select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as def
      from pg_constraint where connamespace = current_schema()::regnamespace and contype <> 'n' order by 1, 2`),
    functions: await q(`select proname, pg_get_function_identity_arguments(oid) as args, provolatile
      from pg_proc where pronamespace = current_schema()::regnamespace order by 1`),
  };
}

Deno.test("every migration is applied once; a second run applies nothing", async () => {
  const t = await openTestDb({ migrated: false });
  try {
    assert.deepEqual(await pendingMigrations(t.db), (await migrationFiles()).map(([v]) => v));
    assert.deepEqual(await migrate(t.db), (await migrationFiles()).map(([v]) => v));
    assert.deepEqual(await migrate(t.db), []);
    assert.deepEqual(await pendingMigrations(t.db), []);
  } finally {
    await t.close();
  }
});

Deno.test("concurrent migrators apply each migration exactly once", async () => {
  const t = await openTestDb({ migrated: false });
  try {
    const results = await Promise.all([migrate(t.db), migrate(t.db), migrate(t.db)]);
    assert.equal(results.flat().length, (await migrationFiles()).length);
  } finally {
    await t.close();
  }
});

Deno.test({
  name: "an empty PGlite and an empty real Postgres get the same schema",
  ignore: !DATABASE_URL,
  fn: async () => {
    const server = await openTestDb();
    const { openDb } = await import("../db/connection.ts");
    const lite = await openDb({});
    try {
      assert.equal(server.db.kind, "postgres");
      await migrate(lite);
      assert.deepEqual(await describe(lite), await describe(server.db));
    } finally {
      await lite.close();
      await server.close();
    }
  },
});
