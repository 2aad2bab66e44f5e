/**
 * Transactions with the pipelined `begin` (Postgres only: PGlite has its own driver): a commit is visible, a
 * throw or a failing first statement rolls everything back, isolation settings are applied, and concurrent
 * transactions stay apart.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { DATABASE_URL, openTestDb } from "../tests/helpers.ts";

Deno.test({
  name: "pipelined begin: commit, rollback on a throw or a failing first statement, isolation, concurrency",
  ignore: !DATABASE_URL,
  fn: async (t) => {
    const tdb = await openTestDb({ migrated: false });
    const db = tdb.db.kysely;
    const count = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from pipe_t`.execute(db)).rows[0]!.n;
    try {
      await sql`create table pipe_t (x int not null)`.execute(db);

      await t.step("a committed transaction is visible", async () => {
        await db.transaction().execute(async (tx) => {
          await sql`insert into pipe_t values (1)`.execute(tx);
          await sql`insert into pipe_t values (2)`.execute(tx);
        });
        assert.equal(await count(), 2);
      });

      await t.step("a throw after the first statement rolls it back", async () => {
        await assert.rejects(() =>
          db.transaction().execute(async (tx) => {
            await sql`insert into pipe_t values (3)`.execute(tx);
            throw new Error("nope");
          }), /nope/);
        assert.equal(await count(), 2);
      });

      await t.step("a failing first statement rolls back and its error reaches the caller", async () => {
        await assert.rejects(
          () =>
            db.transaction().execute(async (tx) => await sql`insert into pipe_t values (null)`.execute(tx)),
          /null value/,
        );
        assert.equal(await count(), 2);
      });

      await t.step("a transaction without statements commits; isolation settings are applied", async () => {
        await db.transaction().execute(async () => {});
        const level = await db.transaction().setIsolationLevel("serializable").execute(async (tx) =>
          (await sql<{ transaction_isolation: string }>`show transaction_isolation`.execute(tx)).rows[0]!
            .transaction_isolation
        );
        assert.equal(level, "serializable");
      });

      await t.step(
        "concurrent transactions, half of them failing, leave exactly the committed rows",
        async () => {
          await Promise.allSettled(
            Array.from({ length: 40 }, (_, i) =>
              db.transaction().execute(async (tx) => {
                await sql`insert into pipe_t values (${100 + i})`.execute(tx);
                if (i % 2 === 1) await sql`insert into pipe_t values (null)`.execute(tx);
              })),
          );
          const r = await sql<{ x: number }>`select x from pipe_t where x >= 100 order by x`.execute(db);
          assert.deepEqual(
            r.rows.map((row) => row.x),
            Array.from({ length: 20 }, (_, i) => 100 + 2 * i),
          );
        },
      );
    } finally {
      await tdb.close();
    }
  },
});
