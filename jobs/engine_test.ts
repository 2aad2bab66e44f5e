/**
 * The job engine over a real database (PGlite, or the DATABASE_URL server): a committed notification wakes the
 * job it names and a rolled-back one nothing; a job asked to run while it runs runs once more afterwards, never
 * twice at once; due times, the idle poll and the tick run every job; a stop waits for running jobs up to its grace,
 * hands back what is held, runs nothing afterwards and may be called twice.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { jobSource } from "../background.ts";
import { JOBS_CHANNEL } from "../db/jobs.ts";
import { openTestDb } from "../tests/helpers.ts";
import { type Job, JobEngine } from "./engine.ts";

const quiet = { log: () => {} };

/** A job that counts its runs, optionally taking `ms` each; `overlaps` counts runs that started during another. */
function counting(name: string, ms = 0) {
  let running = 0;
  const job = {
    name,
    runs: 0,
    overlaps: 0,
    async run() {
      if (running > 0) job.overlaps++;
      running++;
      job.runs++;
      if (ms) await new Promise((r) => setTimeout(r, ms));
      running--;
    },
  };
  return job;
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("job engine: wake-ups through the database, runs without overlap, due times, stop", async (t) => {
  const tdb = await openTestDb();
  const db = tdb.db;
  const engine = new JobEngine(quiet);
  const outbox = counting("outbox", 50);
  const mail = counting("mail");
  const handedBack: string[] = [];
  engine.onHandBack(() => Promise.resolve(handedBack.push("held work")));
  // Nothing else is due: the periodic runs (migration 0023) would otherwise wake every job at once.
  await sql`update job_schedules set next_run_at = now() + interval '1 day'`.execute(db.kysely);
  try {
    await engine.start([outbox, mail] satisfies Job[], jobSource({ db }), { pollMs: 600_000 });
    await until(() => outbox.runs === 1 && mail.runs === 1, 5_000, "the first run of every job at start");

    await t.step(
      "a committed notification wakes the job it names; a rolled-back one wakes nothing",
      async () => {
        await db.kysely.transaction().execute((tx) =>
          sql`select pg_notify(${JOBS_CHANNEL}, 'mail')`.execute(tx)
        );
        await until(() => mail.runs === 2, 5_000, "the woken mail job");
        await assert.rejects(
          db.kysely.transaction().execute(async (tx) => {
            await sql`select pg_notify(${JOBS_CHANNEL}, 'mail')`.execute(tx);
            throw new Error("roll back");
          }),
        );
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(mail.runs, 2);
        assert.equal(outbox.runs, 1, "a wake-up of another kind leaves this job alone");
      },
    );

    await t.step(
      "a job asked to run while it runs runs once more afterwards, never twice at once",
      async () => {
        const before = outbox.runs;
        for (let i = 0; i < 5; i++) engine.wake("outbox");
        await until(() => outbox.runs === before + 2, 5_000, "one run and one more");
        await new Promise((r) => setTimeout(r, 150));
        assert.equal(outbox.runs, before + 2);
        assert.equal(outbox.overlaps, 0);
      },
    );

    await t.step("a due time runs every job then; the tick runs every job at once", async () => {
      const before = mail.runs;
      engine.dueAt(new Date(Date.now() + 100));
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(mail.runs, before, "not before its time");
      await until(() => mail.runs === before + 1, 5_000, "the due run");
      await engine.tick();
      assert.equal(mail.runs, before + 2);
    });

    await t.step(
      "a stop waits for the running job, hands back, and runs nothing more; twice is harmless",
      async () => {
        engine.wake("outbox");
        const runs = outbox.runs;
        await engine.stop(5_000);
        assert.deepEqual(handedBack, ["held work"]);
        await db.kysely.transaction().execute((tx) =>
          sql`select pg_notify(${JOBS_CHANNEL}, 'outbox')`.execute(tx)
        );
        engine.wake();
        await engine.tick();
        await new Promise((r) => setTimeout(r, 150));
        assert.equal(outbox.runs, runs);
        await engine.stop(5_000);
        assert.deepEqual(handedBack, ["held work"], "handed back once");
      },
    );
  } finally {
    await engine.stop(1_000);
    await tdb.close();
  }
});

Deno.test("job engine: the idle poll runs every job even without wake-ups", async () => {
  const tdb = await openTestDb();
  const engine = new JobEngine(quiet);
  const job = counting("document");
  try {
    await engine.start([job], jobSource(tdb), { pollMs: 100 });
    await until(() => job.runs >= 3, 5_000, "polled runs");
  } finally {
    await engine.stop(1_000);
    await tdb.close();
  }
});

Deno.test("job engine: a job that fails is logged and runs again at its next wake-up", async () => {
  const tdb = await openTestDb();
  const lines: string[] = [];
  const engine = new JobEngine({ log: (_l, msg, f) => lines.push(`${msg} ${f?.job}`) });
  let runs = 0;
  try {
    await engine.start(
      [{ name: "mail", run: () => Promise.reject(new Error(`failure ${++runs}`)) }],
      jobSource(tdb),
      { pollMs: 600_000 },
    );
    await until(() => runs === 1, 5_000, "the first run");
    engine.wake("mail");
    await until(() => runs === 2, 5_000, "the next run");
    assert.ok(lines.includes("background job failed mail"));
  } finally {
    await engine.stop(1_000);
    await tdb.close();
  }
});
