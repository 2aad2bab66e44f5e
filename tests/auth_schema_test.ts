/** The better-auth tables in db/migrations/0006_accounts.sql match what our better-auth options need. */
import assert from "node:assert/strict";
import { getMigrations } from "better-auth/db/migration";
import { authOptions } from "../auth/better_auth.ts";
import { loadConfig } from "../config.ts";
import { openTestDb, TEST_AUTH_SECRET } from "./helpers.ts";

/**
 * Runs `read` again (up to three times in all) when it fails with an undefined table or column (SQLSTATE 42P01,
 * 42703). On a shared Postgres server better-auth's introspection reads every schema of the database, and the
 * test files running in parallel create, migrate and drop their own schemas meanwhile: a column renamed by
 * another file's migration between two catalogue reads fails the read, not our schema.
 */
async function withoutSchemaRaces<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await read();
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      if (attempt >= 3 || (code !== "42P01" && code !== "42703")) throw e;
    }
  }
}

Deno.test("better-auth finds every table and column it needs in our migrations", async () => {
  const tdb = await openTestDb();
  try {
    const config = loadConfig({ DATA_DIR: ":memory:", AUTH_SECRET: TEST_AUTH_SECRET });
    // deno-lint-ignore no-explicit-any
    const options = authOptions({ config, db: tdb.db, log: { log() {} } }) as any;
    const { toBeCreated, toBeAdded } = await withoutSchemaRaces(() => getMigrations(options));
    assert.deepEqual(toBeCreated.map((t: { table: string }) => t.table), []);
    assert.deepEqual(
      toBeAdded.map((t: { table: string; fields: object }) => [t.table, Object.keys(t.fields)]),
      [],
    );
  } finally {
    await tdb.close();
  }
});
