/**
 * Nothing is lost when the process is killed at any moment: after a restart, every event is delivered at least
 * once, with the same webhook-id.
 *
 * The REAL service (`deno run -A main.ts`) runs as a child process on a database this test prepared (PGlite on
 * disk, or a fresh schema on `DATABASE_URL`): a provider with an app, two subscriptions to inquiry.received (one
 * per HTTPS receiver in this process) and a batch of outbox rows. The child is SIGKILLed once while it dispatches
 * (A) and once while attempts hang at the receiver (B), then started again; each (event, subscription) pair must
 * arrive, signed, with webhook-id `evt_` + the outbox uuid. Duplicates are allowed (at least once) and printed.
 */
import { eventIdOf } from "../db/outbox.ts";
import assert from "node:assert/strict";
import { newSecret, until } from "./events_support.ts";
import {
  addSubscription,
  caFile,
  deliveryEnv,
  type EventPeople,
  preparePeople,
  recordInquiries,
  type Service,
  serviceDb,
  startService,
  withDb,
} from "./service_process.ts";
import { type ReceivedDelivery, type Receiver, startReceiver } from "./webhook_receiver.ts";

const BATCH_A = 200;
const BATCH_B = 100;
/** Requests the receivers leave unanswered in case B before the kill. */
const HELD = 6;
/** A killed attempt's lease (10 s timeout + 5 s) must run out before the sweep sends it again. */
const RECOVERY_MS = 60_000;

/** Prints what a finished service child logged (warnings and errors), if anything. */
function showLog(what: string, s: Service): void {
  const lines = s.stderr().split("\n").filter((l) => l.trim() !== "");
  if (lines.length) {
    console.log(`${what} service logged ${lines.length} lines:\n  ${lines.slice(0, 10).join("\n  ")}`);
  }
}

/** The (webhook-id, subscription) pair of a delivery. */
function pairOf(d: ReceivedDelivery): string {
  return `${d.headers["webhook-id"]} ${d.headers["x-mcp-subscription-id"]}`;
}

Deno.test("events survive SIGKILL: every event arrives at least once after a restart, same webhook-id", async (t) => {
  const sdb = await serviceDb();
  const ca = await caFile();
  const secrets = [newSecret(), newSecret()];
  // Case B: the receivers take the next `holding` requests for events in `holdIds` (webhook-ids) and answer them
  // only when `release` is called.
  let holding = 0;
  let holdIds = new Set<string>();
  const held: Array<(r: Response) => void> = [];
  const heldPairs: string[] = [];
  const receivers: Receiver[] = [];
  for (const secret of secrets) {
    receivers.push(
      await startReceiver({
        secrets: () => [secret],
        respond: (d) => {
          if (holding <= 0 || !holdIds.has(d.headers["webhook-id"] ?? "")) {
            return new Response(null, { status: 204 });
          }
          holding--;
          heldPairs.push(pairOf(d));
          return new Promise<Response>((resolve) => held.push(resolve));
        },
      }),
    );
  }
  const release = () => {
    for (const r of held.splice(0)) r(new Response(null, { status: 204 }));
  };
  const env = { ...sdb.env, ...deliveryEnv(receivers.map((r) => r.port), ca) };
  let people: EventPeople | undefined;
  const subs: string[] = [];
  let service: Service | undefined;
  let idsA: string[] = [];
  let aDeliveriesAtStop = 0;

  /** Deliveries of the events `ids` (any receiver), and the pairs still missing. */
  const progress = (ids: string[]) => {
    const wanted = new Set(ids.map(eventIdOf));
    const got = receivers.flatMap((r) => r.deliveries).filter((d) =>
      wanted.has(d.headers["webhook-id"] ?? "")
    );
    const seen = new Set(got.map(pairOf));
    const missing = ids.flatMap((id) => subs.map((s) => `${eventIdOf(id)} ${s}`)).filter((p) => !seen.has(p));
    return { got, missing };
  };

  /** Every pair of `ids` arrived, verified, with the right ids; prints and returns the duplicates. */
  const check = (what: string, ids: string[]): Map<string, number> => {
    const { got, missing } = progress(ids);
    assert.deepEqual(missing, [], `${what}: pairs never delivered`);
    const known = new Set([...idsA, ...ids].map(eventIdOf));
    const strangers = receivers.flatMap((r) => r.deliveries).map((d) => d.headers["webhook-id"])
      .filter((id) => !known.has(id ?? ""));
    assert.deepEqual(strangers, [], "every webhook-id is evt_ + the uuid of an outbox row without dashes");
    for (const [i, r] of receivers.entries()) {
      for (const d of r.deliveries.filter((d) => got.includes(d))) {
        const body = d.json as { eventId?: string; name?: string };
        assert.equal(d.headers["x-mcp-subscription-id"], subs[i], "each receiver gets its own subscription");
        assert.equal(body.eventId, d.headers["webhook-id"], "body eventId = webhook-id");
        assert.equal(body.name, "inquiry.received");
        assert.deepEqual(d.verified, { standardwebhooks: true, svix: true }, "signed with the secret");
      }
    }
    const counts = new Map<string, number>();
    for (const d of got) counts.set(pairOf(d), (counts.get(pairOf(d)) ?? 0) + 1);
    const dupes = new Map([...counts].filter(([, n]) => n > 1));
    console.log(
      `${what}: ${ids.length} events × ${subs.length} subscriptions = ${ids.length * subs.length} pairs, ` +
        `${got.length} deliveries, ${dupes.size} pairs delivered more than once` +
        [...dupes].map(([p, n]) => `\n  ${p} ×${n}`).join(""),
    );
    return dupes;
  };

  try {
    await t.step("prepare: provider, app with consent, two subscriptions", async () => {
      await withDb(sdb, async (db) => {
        people = await preparePeople(db);
        for (const [i, r] of receivers.entries()) {
          subs.push(await addSubscription(db, people, r.url, secrets[i]!));
        }
      });
    });

    await t.step(`A: SIGKILL while ${BATCH_A} events are being dispatched, restart`, async () => {
      const ids = idsA = await withDb(sdb, (db) => recordInquiries(db, people!, BATCH_A));
      assert.deepEqual(
        new Set(ids.map(eventIdOf)).size,
        BATCH_A,
        "distinct event ids",
      );
      service = await startService(env);
      await until(() => progress(ids).got.length > 0, RECOVERY_MS, "first delivery");
      const killed = await service.kill();
      showLog("killed", service);
      service = undefined;
      assert.equal(killed.signal, "SIGKILL");
      console.log(`A: killed after ${progress(ids).got.length} of ${BATCH_A * subs.length} deliveries`);
      service = await startService(env);
      await until(() => progress(ids).missing.length === 0, RECOVERY_MS, "every pair of batch A");
      check("A", ids);
      const stopped = await service.stop();
      showLog("stopped", service);
      service = undefined;
      assert.equal(stopped.code, 0, "SIGTERM stops cleanly");
      aDeliveriesAtStop = progress(ids).got.length;
    });

    await t.step(`B: SIGKILL while ${HELD} attempts hang at the receivers, restart`, async () => {
      const ids = await withDb(sdb, (db) => recordInquiries(db, people!, BATCH_B));
      holdIds = new Set(ids.map(eventIdOf));
      holding = HELD;
      service = await startService(env);
      await until(() => held.length === HELD, RECOVERY_MS, `${HELD} hanging requests`);
      const killed = await service.kill();
      showLog("killed", service);
      service = undefined;
      assert.equal(killed.signal, "SIGKILL");
      console.log(
        `B: killed with ${held.length} requests hanging, after ${progress(ids).got.length} deliveries`,
      );
      release(); // their connections died with the process: these answers reach nobody
      service = await startService(env);
      await until(() => progress(ids).missing.length === 0, RECOVERY_MS, "every pair of batch B");
      // The hanging attempts were never answered, so they must have been sent again (lease ran out).
      await until(
        () => heldPairs.every((p) => progress(ids).got.filter((d) => pairOf(d) === p).length >= 2),
        RECOVERY_MS,
        "the hanging attempts sent again",
      );
      const dupes = check("B", ids);
      // Attempts of batch A that the SIGTERM cut short (sent, outcome not yet recorded) are sent again: allowed.
      console.log(
        `A: ${
          progress(idsA).got.length - aDeliveriesAtStop
        } deliveries of batch A sent again after its SIGTERM`,
      );
      for (const p of heldPairs) assert.ok((dupes.get(p) ?? 0) >= 2, `${p} sent again after the kill`);
      const stopped = await service.stop();
      showLog("stopped", service);
      service = undefined;
      assert.equal(stopped.code, 0, "SIGTERM stops cleanly");
    });

    await t.step("the attempt log: no delivery failed or was dropped", async () => {
      await withDb(sdb, async (db) => {
        const states = await db.kysely.selectFrom("event_deliveries").select(["state"]).execute();
        assert.equal(states.length, (BATCH_A + BATCH_B) * subs.length, "one delivery per pair");
        const bad = states.filter((s) => s.state === "failed" || s.state === "dropped");
        assert.deepEqual(bad, [], "nothing failed or dropped");
        const outcomes = await db.kysely.selectFrom("event_delivery_attempts")
          .select(["outcome", db.kysely.fn.countAll<number>().as("n")]).groupBy("outcome").execute();
        console.log(
          `attempts: ${outcomes.map((o) => `${o.outcome} ${Number(o.n)}`).join(", ")}; deliveries: ` +
            [...Map.groupBy(states, (s) => s.state)].map(([k, v]) => `${k} ${v.length}`).join(", "),
        );
      });
    });
  } finally {
    if (service) {
      console.error(service.stderr());
      await service.stop();
    }
    release();
    for (const r of receivers) await r.close();
    await Deno.remove(ca).catch(() => {});
    await sdb.cleanup();
  }
});
