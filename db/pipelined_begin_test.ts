/**
 * Transactions with the pipelined `begin` (Postgres only: PGlite has its own driver): a commit is visible, a
 * throw or a failing first statement rolls everything back, isolation settings are applied, and concurrent
 * transactions stay apart. Deferrable statements: answered by the next statement or the commit, their failure
 * rolls the whole transaction back (or back to a savepoint) and reaches the caller, also through a stream;
 * outside a transaction they run as usual.
 */
import assert from "node:assert/strict";
import { type Kysely, sql } from "kysely";
import { DATABASE_URL, openTestDb } from "../tests/helpers.ts";
import { deferrable } from "./pipelined_begin.ts";

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

      const countFrom200 = async () =>
        (await sql<{ n: number }>`select count(*)::int as n from pipe_t where x between 200 and 999`.execute(
          db,
        ))
          .rows[0]!.n;
      // deno-lint-ignore no-explicit-any
      const later = (q: Kysely<any>, x: number | null) =>
        q.executeQuery(deferrable(sql`insert into pipe_t values (${x})`.compile(q)));

      await t.step(
        "a deferrable statement in a transaction is answered later; alone it commits",
        async () => {
          const early = await db.transaction().execute(async (tx) => {
            // A deferred statement's result is not awaited: even a select answers with no rows at once.
            const r = await tx.executeQuery(deferrable(sql`select 1 as one from pg_sleep(0.05)`.compile(tx)));
            await later(tx, 200);
            return r.rows;
          });
          assert.deepEqual(early, []);
          assert.equal(await countFrom200(), 1);
        },
      );

      await t.step("outside a transaction a deferrable statement runs as usual", async () => {
        const r = await db.executeQuery(deferrable(sql<{ one: number }>`select 1 as one`.compile(db)));
        assert.deepEqual(r.rows, [{ one: 1 }]);
      });

      await t.step(
        "a failing deferred statement fails the commit, rolls back and its error reaches the caller",
        async () => {
          let resolved = false;
          await assert.rejects(
            () =>
              db.transaction().execute(async (tx) => {
                await sql`insert into pipe_t values (201)`.execute(tx);
                await later(tx, null);
                resolved = true;
              }),
            /null value/,
          );
          assert.equal(resolved, true, "the deferred statement did not wait for its answer");
          assert.equal(await countFrom200(), 1);
        },
      );

      await t.step(
        "the statement after a deferred one sees it, and throws the deferred one's failure",
        async () => {
          const seen = await db.transaction().execute(async (tx) => {
            await later(tx, 202);
            return (await sql<{ n: number }>`select count(*)::int as n from pipe_t where x = 202`.execute(tx))
              .rows[0]!.n;
          });
          assert.equal(seen, 1);
          await assert.rejects(
            () =>
              db.transaction().execute(async (tx) => {
                await later(tx, null);
                await sql`select 1`.execute(tx);
              }),
            /null value/,
          );
          assert.equal(await countFrom200(), 2);
        },
      );

      await t.step("a throw after a deferred statement rolls it back with the caller's error", async () => {
        await assert.rejects(() =>
          db.transaction().execute(async (tx) => {
            await later(tx, 203);
            throw new Error("changed my mind");
          }), /changed my mind/);
        await assert.rejects(() =>
          db.transaction().execute(async (tx) => {
            await later(tx, null);
            throw new Error("changed my mind too");
          }), /changed my mind too/);
        assert.equal(await countFrom200(), 2);
      });

      await t.step("a rollback to a savepoint undoes a failed deferred statement after it", async () => {
        const trx = await db.startTransaction().execute();
        try {
          await later(trx, 204);
          const sp = await trx.savepoint("before_bad").execute();
          await later(sp, null);
          await sp.rollbackToSavepoint("before_bad").execute();
          await later(sp, 205);
          await sp.commit().execute();
        } catch (err) {
          await trx.rollback().execute();
          throw err;
        }
        assert.equal(await countFrom200(), 4);
      });

      await t.step(
        "a stream after a deferred statement sees it, and throws the deferred one's failure",
        async () => {
          const streamed = await db.transaction().execute(async (tx) => {
            await later(tx, 206);
            const rows: unknown[] = [];
            const query = sql`select x from pipe_t where x = 206`.compile(tx);
            for await (const chunk of tx.getExecutor().stream(query, 10)) rows.push(...chunk.rows);
            return rows;
          });
          assert.deepEqual(streamed, [{ x: 206 }]);
          await assert.rejects(
            () =>
              db.transaction().execute(async (tx) => {
                await later(tx, null);
                for await (const _ of tx.getExecutor().stream(sql`select 1`.compile(tx), 10)) {
                  /* drained */
                }
              }),
            /null value/,
          );
          assert.equal(await countFrom200(), 5);
        },
      );

      await t.step(
        "concurrent one-statement deferred transactions, half failing, leave the committed rows",
        async () => {
          const results = await Promise.allSettled(
            Array.from({ length: 40 }, (_, i) =>
              db.transaction().execute(async (tx) => {
                await later(tx, i % 2 === 0 ? 1000 + i : null);
              })),
          );
          assert.equal(
            results.filter((r) => r.status === "rejected").length,
            20,
          );
          const r = await sql<{ x: number }>`select x from pipe_t where x >= 1000 order by x`.execute(db);
          assert.deepEqual(r.rows.map((row) => row.x), Array.from({ length: 20 }, (_, i) => 1000 + 2 * i));
        },
      );
    } finally {
      await tdb.close();
    }
  },
});
