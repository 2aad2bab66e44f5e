/**
 * The embedded database served to other processes: clients on the socket and this process's own queries never
 * run inside each other's transactions or extended-protocol batches (the interleaving of electric-sql/pglite issue
 * 1046), a client that disconnects inside a transaction is rolled back and lets go of the database, and one that
 * holds it silently is ended after the idle limit.
 */
import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, sql } from "kysely";
import postgres from "postgres";
import { Gate, gatedPglite, readyStatus, servePglite } from "./pglite_share.ts";

async function world(idleInTransactionMs = 30_000) {
  const dir = await Deno.makeTempDir({ prefix: "pglite_share_" });
  const pg = new PGlite();
  await pg.waitReady;
  const gate = new Gate();
  const kysely = new Kysely<Record<string, never>>({
    dialect: new PGliteDialect({ pglite: gatedPglite(pg, gate) }),
  });
  await sql`create table t (id serial primary key, who text not null, n int not null)`.execute(kysely);
  const server = await servePglite(pg, gate, `${dir}/.s.PGSQL.5432`, { idleInTransactionMs });
  const client = () =>
    postgres({ host: dir, port: 5432, user: "postgres", database: "postgres", prepare: false, max: 4 });
  return {
    kysely,
    client,
    async close() {
      await server.close(1_000);
      await kysely.destroy();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("readyStatus reads the last ReadyForQuery of a reply", () => {
  const z = (s: string) => [0x5a, 0, 0, 0, 5, s.charCodeAt(0)];
  const c = [0x43, 0, 0, 0, 10, ...new TextEncoder().encode("BEGIN"), 0]; // CommandComplete "BEGIN"
  assert.equal(readyStatus(new Uint8Array([...c, ...z("T")])), "T".charCodeAt(0));
  assert.equal(readyStatus(new Uint8Array([...z("T"), ...c, ...z("I")])), "I".charCodeAt(0));
  assert.equal(readyStatus(new Uint8Array(c)), undefined, "no ReadyForQuery: mid-batch");
});

Deno.test("socket clients and in-process queries never interleave", async () => {
  const w = await world();
  const a = w.client(), b = w.client();
  try {
    // Each client runs transactions of several extended-protocol statements with different parameter types while
    // the other client and this process do the same: an interleaved Parse/Bind would bind the wrong statement.
    const txs = (c: postgres.Sql, who: string) =>
      Array.from({ length: 20 }, (_, i) =>
        c.begin(async (tx) => {
          await tx`insert into t (who, n) values (${who}, ${i})`;
          const [row] = await tx`select count(*)::int as n from t where who = ${who}`;
          await tx`update t set n = n + ${row!.n * 0} where who = ${who}`;
        }));
    const own = Array.from({ length: 20 }, (_, i) =>
      w.kysely.transaction().execute(async (tx) => {
        await sql`insert into t (who, n) values ('own', ${i})`.execute(tx);
        await sql`select ${"text"}::text as x, ${i}::int as y`.execute(tx);
      }));
    await Promise.all([...txs(a, "a"), ...txs(b, "b"), ...own]);
    const counts = await sql<
      { who: string; n: number }
    >`select who, count(*)::int as n from t group by who order by who`
      .execute(w.kysely);
    assert.deepEqual(counts.rows, [{ who: "a", n: 20 }, { who: "b", n: 20 }, { who: "own", n: 20 }]);
  } finally {
    await a.end();
    await b.end();
    await w.close();
  }
});

Deno.test("a client gone inside a transaction is rolled back and lets go of the database", async () => {
  const w = await world();
  try {
    const c = w.client();
    const inTx = Promise.withResolvers<void>();
    const stuck = c.begin(async (tx) => {
      await tx`insert into t (who, n) values ('gone', 1)`;
      inTx.resolve();
      await new Promise(() => {}); // never commits
    }).catch(() => "ended");
    await inTx.promise;
    await c.end({ timeout: 0 });
    assert.equal(await stuck, "ended");
    // The service's own query gets the database again, and the client's insert never happened.
    const r = await sql<{ n: number }>`select count(*)::int as n from t where who = 'gone'`.execute(w.kysely);
    assert.equal(r.rows[0]!.n, 0);
  } finally {
    await w.close();
  }
});

Deno.test("a client holding the database silently is ended after the idle limit", async () => {
  const w = await world(300);
  try {
    const c = w.client();
    const inTx = Promise.withResolvers<void>();
    const silent = c.begin(async (tx) => {
      await tx`insert into t (who, n) values ('silent', 1)`;
      inTx.resolve();
      await new Promise((r) => setTimeout(r, 1_000));
      await tx`select 1`;
    }).then(() => "committed", () => "ended");
    await inTx.promise;
    const r = await sql<{ n: number }>`select count(*)::int as n from t where who = 'silent'`.execute(
      w.kysely,
    );
    assert.equal(
      r.rows[0]!.n,
      0,
      "the service got the database back after the limit, without the client's insert",
    );
    assert.equal(await silent, "ended");
    await c.end({ timeout: 0 });
  } finally {
    await w.close();
  }
});
