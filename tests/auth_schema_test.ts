/** The better-auth tables in db/migrations/0006_accounts.sql match what our better-auth options need. */
import assert from "node:assert/strict";
import { getMigrations } from "better-auth/db/migration";
import { authOptions } from "../auth/better_auth.ts";
import { loadConfig } from "../config.ts";
import { openTestDb, TEST_AUTH_SECRET } from "./helpers.ts";

Deno.test("better-auth finds every table and column it needs in our migrations", async () => {
  const tdb = await openTestDb();
  try {
    const config = loadConfig({ DATA_DIR: ":memory:", AUTH_SECRET: TEST_AUTH_SECRET });
    const { toBeCreated, toBeAdded } = await getMigrations(
      // deno-lint-ignore no-explicit-any
      authOptions({ config, db: tdb.db, log: { log() {} } }) as any,
    );
    assert.deepEqual(toBeCreated.map((t: { table: string }) => t.table), []);
    assert.deepEqual(
      toBeAdded.map((t: { table: string; fields: object }) => [t.table, Object.keys(t.fields)]),
      [],
    );
  } finally {
    await tdb.close();
  }
});
