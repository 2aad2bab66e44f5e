/**
 * The service as the new Deno Deploy runs it (docs/operations.md §6): `DENO_DEPLOYMENT_ID` set, no KV queue, a
 * cron tick registered at module top level, and instances stopped when idle and started by the next request.
 *
 * - Importing `main.ts` registers the cron tick before anything else runs (Deploy finds crons only there).
 * - Without `DATABASE_URL` it refuses to start, names the variable, and creates no data folder.
 * - On a real Postgres: the process is stopped (SIGINT, as Deploy does) between an event's trigger and each of its
 *   retries, and a document, a mail and events are recorded while no instance runs: each next instance sends
 *   every retry and event, reads the document and sends the mail, each attempt recorded once.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { insertFile } from "../db/files.ts";
import { insertMail } from "../db/mail.ts";
import { eventIdOf } from "../db/outbox.ts";
import { DATABASE_URL } from "./helpers.ts";
import { newSecret, until } from "./events_support.ts";
import { brochurePdf } from "./pdf_fixtures.ts";
import {
  addSubscription,
  caFile,
  deliveryEnv,
  preparePeople,
  recordInquiries,
  ROOT,
  runDeno,
  type Service,
  serviceDb,
  startService,
  withDb,
} from "./service_process.ts";
import { fakeSmtp } from "./smtp_server.ts";
import { startReceiver } from "./webhook_receiver.ts";

Deno.test("importing main.ts registers the cron tick at module top level, before anything runs", async () => {
  const probe = `const names = [];
    Object.defineProperty(Deno, "cron", { value: (name) => void names.push(name), configurable: true });
    await import(${JSON.stringify(new URL("main.ts", `file://${ROOT}`).href)});
    console.log(JSON.stringify(names));`;
  const r = await runDeno(["eval", "--unstable-cron", "--unstable-kv", probe], { NO_COLOR: "1" });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim()), ["background tick"]);
});

Deno.test("on Deno Deploy without DATABASE_URL the service refuses to start and creates no data folder", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await runDeno(["run", "-A", "main.ts"], {
      DENO_DEPLOYMENT_ID: "test",
      DATABASE_URL: "",
      DATA_DIR: `${dir}/data`,
      PORT: "0",
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /DATABASE_URL: must be set on Deno Deploy/);
    await assert.rejects(Deno.stat(`${dir}/data`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "Deploy profile: stopped between trigger and each retry, and while work waits; every piece goes out",
  ignore: !DATABASE_URL,
  fn: async (t) => {
    const sdb = await serviceDb();
    const ca = await caFile();
    const secret = newSecret();
    let refuse = 0; // the next `refuse` deliveries are answered 503
    const receiver = await startReceiver({
      secrets: () => [secret],
      respond: () => new Response(null, { status: refuse-- > 0 ? 503 : 204 }),
    });
    const smtp = fakeSmtp();
    const env = {
      ...sdb.env,
      ...deliveryEnv([receiver.port], ca),
      DENO_DEPLOYMENT_ID: "deploy-profile-test",
      EVENTS_RETRY_DELAYS_MS: "0,1500,1500,1500",
      // An instance lives only while the test needs it; no idle poll runs between requests on Deploy.
      EVENTS_SWEEP_MS: "3600000",
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    };
    let service: Service | undefined;
    /** Starts an instance, waits for `done`, and stops it as Deploy does (SIGINT), within 5 s, exit code 0. */
    const instance = async (done: () => boolean | Promise<boolean>, what: string) => {
      service = await startService(env);
      await until(done, 15_000, what);
      const t0 = Date.now();
      service.child.kill("SIGINT");
      const stopped = await service.child.status;
      assert.ok(Date.now() - t0 < 5_000, `stopped within 5 s (${Date.now() - t0} ms):\n${service.stderr()}`);
      assert.equal(stopped.code, 0, service.stderr());
      service = undefined;
    };
    try {
      const people = await withDb(sdb, async (db) => {
        const p = await preparePeople(db);
        await addSubscription(db, p, receiver.url, secret);
        return p;
      });
      const attemptsOf = (eventId: string) =>
        receiver.deliveries.filter((d) => d.headers["webhook-id"] === eventId).length;

      await t.step("one event, three refused attempts: a new instance for each retry sends it", async () => {
        refuse = 3;
        const [outboxId] = await withDb(sdb, (db) => recordInquiries(db, people, 1));
        const eventId = eventIdOf(outboxId!);
        await instance(() => attemptsOf(eventId) === 1, "attempt 1 by the first instance");
        for (let n = 2; n <= 4; n++) {
          await new Promise((r) => setTimeout(r, 1_700)); // the retry falls due while no instance runs
          await instance(() => attemptsOf(eventId) === n, `attempt ${n} by a new instance`);
        }
        const log = await withDb(
          sdb,
          async (db) =>
            (await sql<{ attempt: number; status: number }>`select a.attempt, a.status
            from event_delivery_attempts a join event_deliveries d on d.id = a.delivery_id
            where d.outbox_id = ${outboxId}::uuid order by a.attempt`.execute(db.kysely)).rows,
        );
        assert.deepEqual(log, [
          { attempt: 1, status: 503 },
          { attempt: 2, status: 503 },
          { attempt: 3, status: 503 },
          { attempt: 4, status: 204 },
        ]);
      });

      await t.step(
        "events, a document and a mail recorded while no instance runs: the next one does it all",
        async () => {
          const fileId = await withDb(sdb, async (db) => {
            const bytes = await brochurePdf();
            const sha = Array.from(
              new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
              (b) => b.toString(16).padStart(2, "0"),
            ).join("");
            const id = await insertFile(db.kysely, {
              listingId: people.listingId,
              officeId: people.officeId,
              name: "expose.pdf",
              sorte: "brochure",
              contentBase64: bytes.toBase64(),
              sizeBytes: bytes.length,
              sha256: sha,
              originClientId: null,
              originApiKeyId: null,
              at: new Date(),
            });
            await insertMail(db.kysely, {
              to: "inquirer@example.net",
              subject: "Antwort auf Ihre Anfrage",
              body: "Guten Tag",
              nextAttemptAt: new Date(),
            });
            return id!;
          });
          const ids = (await withDb(sdb, (db) => recordInquiries(db, people, 5))).map(eventIdOf);
          const fileDone = () =>
            withDb(
              sdb,
              async (db) =>
                (await sql<{ status: string }>`select status from files where id = ${fileId}::uuid`.execute(
                  db.kysely,
                ))
                  .rows[0]?.status === "processed",
            );
          await instance(
            async () =>
              ids.every((id) => attemptsOf(id) === 1) && smtp.sessions.some((s) => s.rcptTo.length > 0) &&
              await fileDone(),
            "events, document and mail",
          );
          const sent = await withDb(
            sdb,
            async (db) =>
              (await sql<{ n: number }>`select count(*)::int as n from mail_outbox where sent_at is not null`
                .execute(db.kysely)).rows[0]!.n,
          );
          assert.equal(sent, 1);
        },
      );
    } finally {
      await service?.kill();
      await receiver.close();
      await smtp.close();
      await Deno.remove(ca).catch(() => {});
      await sdb.cleanup();
    }
  },
});
