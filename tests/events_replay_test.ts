/**
 * `deno task events:replay` (docs/operations.md §3.7), run as a child process the way an operator runs it, on a
 * database with real failures: a subscription suspended after four 500s (its two events kept) and one whose
 * receiver answered 413 once (that event failed). A dry run lists them in event order and changes nothing; the run
 * reactivates the suspended one and queues the events; the service then delivers each once, in order, with its
 * event id as `webhook-id`, verified by both receiver libraries. Wrong command lines exit 2, an unknown
 * subscription 1.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { startBackground } from "../background.ts";
import type { Db } from "../db/connection.ts";
import { eventIdOf } from "../db/outbox.ts";
import { newSecret, until } from "./events_support.ts";
import { testApp } from "./helpers.ts";
import {
  addSubscription,
  caFile,
  deliveryEnv,
  preparePeople,
  recordInquiries,
  runDeno,
  serviceDb,
} from "./service_process.ts";
import { type ReceivedDelivery, startReceiver } from "./webhook_receiver.ts";

const idOf = (d: ReceivedDelivery) => d.headers["webhook-id"];

async function replay(args: string[], env: Record<string, string>) {
  return await runDeno(["task", "events:replay", ...args], env);
}

function lines(stdout: string): string[] {
  return stdout.split("\n").filter((l) => l.trim() !== "");
}

async function states(db: Db, subscriptionId: string): Promise<string[]> {
  const r = await sql<{ state: string }>`select d.state from event_deliveries d
    join event_outbox o on o.id = d.outbox_id where d.subscription_id = ${subscriptionId}
    order by o.created_at, d.created_at`.execute(db.kysely);
  return r.rows.map((x) => x.state);
}

async function suspended(db: Db, subscriptionId: string): Promise<boolean> {
  const r = await sql<{ s: boolean }>`select suspended_at is not null as s from event_subscriptions
    where id = ${subscriptionId}`.execute(db.kysely);
  return r.rows[0]!.s;
}

Deno.test("events:replay lists (dry run) and sends again what a subscription missed", async (t) => {
  const sdb = await serviceDb();
  const ca = await caFile();
  let healthy = false;
  let pickyCalls = 0;
  const [downSecret, pickySecret] = [newSecret(), newSecret()];
  const down = await startReceiver({
    secrets: () => [downSecret],
    respond: () => new Response(null, { status: healthy ? 204 : 500 }),
  });
  const picky = await startReceiver({
    secrets: () => [pickySecret],
    respond: () => new Response(null, { status: ++pickyCalls === 1 ? 413 : 204 }),
  });
  const env = deliveryEnv([down.port, picky.port], ca);
  let downSub = "", pickySub = "";
  const events: string[] = [];
  try {
    await t.step(
      "real failures: four 500s suspend one subscription, a 413 fails an event of the other",
      async () => {
        const db = await sdb.open();
        const app = await testApp(db, env);
        const delivery = await startBackground(app.deps);
        try {
          const people = await preparePeople(db);
          downSub = await addSubscription(db, people, down.url, downSecret);
          pickySub = await addSubscription(db, people, picky.url, pickySecret);
          // Two events a few milliseconds apart: their order is their time.
          for (let i = 0; i < 2; i++) {
            events.push(eventIdOf((await recordInquiries(db, people, 1))[0]!));
            await new Promise((r) => setTimeout(r, 5));
          }
          await until(
            async () =>
              (await states(db, downSub)).join() === "held,held" &&
              (await states(db, pickySub)).length === 2 &&
              (await states(db, pickySub)).every((s) => s !== "pending" && s !== "sending"),
            30_000,
            "suspended and failed",
          );
          assert.ok(await suspended(db, downSub));
          assert.deepEqual((await states(db, pickySub)).sort(), ["delivered", "failed"]);
        } finally {
          await delivery.stop();
          app.deps.events?.client.close();
          app.kv.close();
          await db.close();
        }
      },
    );
    // The first POST to the picky receiver was answered 413.
    const pickyFailed = () => picky.deliveries[0]!;

    await t.step("--dry-run lists the missed events in order and changes nothing", async () => {
      const r = await replay(["--subscription", downSub, "--since", "2h", "--dry-run"], sdb.env);
      assert.equal(r.code, 0, r.stderr);
      const out = lines(r.stdout);
      assert.match(out[0]!, new RegExp(`subscription ${downSub} is suspended: it would be reactivated`));
      assert.deepEqual(out.slice(1, 3).map((l) => l.split(/\s+/)[1]), events);
      assert.ok(out.slice(1, 3).every((l) => / inquiry\.received +held$/.test(l)), out.join("\n"));
      assert.equal(out[3], "dry run: 2 events would be sent again; nothing changed");
      const p = await replay(["--subscription", pickySub, "--since", "2h", "--dry-run"], sdb.env);
      assert.equal(p.code, 0, p.stderr);
      const failedId = idOf(pickyFailed());
      assert.equal(lines(p.stdout).length, 2);
      assert.match(lines(p.stdout)[0]!, new RegExp(`${failedId}  inquiry\\.received +failed$`));
      const db = await sdb.open();
      try {
        assert.equal(await suspended(db, downSub), true);
        assert.deepEqual(await states(db, downSub), ["held", "held"]);
      } finally {
        await db.close();
      }
    });

    await t.step("wrong command lines exit 2, an unknown subscription 1", async () => {
      const cases: Array<[string[], RegExp]> = [
        [["--since", "2h"], /--subscription is required/],
        [["--subscription", downSub], /--since is required/],
        [["--subscription", "sub_1", "--since", "2h"], /not a subscription id/],
        [["--subscription", downSub, "--since", "25h"], /at most 24 hours back/],
        [["--subscription", downSub, "--since", "2026-10-01"], /not an ISO 8601 time with zone/],
        [["--subscription", downSub, "--since", "yesterday"], /not an ISO 8601 time with zone/],
        [["--subscription", downSub, "--since", "2999-01-01T00:00:00Z"], /lies in the future/],
        [["--subscription", downSub, "--since", "2h", "--all"], /usage: deno task events:replay/],
      ];
      for (const [args, message] of cases) {
        const r = await replay(args, sdb.env);
        assert.equal(r.code, 2, args.join(" "));
        assert.match(r.stderr, message, args.join(" "));
        assert.equal(r.stdout, "");
      }
      const unknown = await replay(["--subscription", `sub_${"a".repeat(26)}`, "--since", "2h"], sdb.env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no live subscription sub_a{26}/);
    });

    await t.step("the run reactivates and queues; the service sends each once, in event order", async () => {
      const r = await replay([
        "--subscription",
        downSub,
        "--since",
        new Date(Date.now() - 3600_000).toISOString(),
      ], sdb.env);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /reactivated; every event kept from the last 24 hours is sent again/);
      assert.match(r.stdout, /2 events are sent again by the running service, in this order, one at a time/);
      const p = await replay(["--subscription", pickySub, "--since", "90m"], sdb.env);
      assert.equal(p.code, 0, p.stderr);
      assert.match(p.stdout, /1 events are sent again/);
      healthy = true;
      const downBefore = down.deliveries.length;
      const pickyBefore = picky.deliveries.length;
      const db = await sdb.open();
      const app = await testApp(db, env);
      const delivery = await startBackground(app.deps);
      try {
        assert.equal(await suspended(db, downSub), false);
        await until(
          async () =>
            (await states(db, downSub)).every((s) => s === "delivered") &&
            (await states(db, pickySub)).every((s) => s === "delivered"),
          30_000,
          "replayed",
        );
      } finally {
        await delivery.stop();
        app.deps.events?.client.close();
        app.kv.close();
        await db.close();
      }
      const replayed = down.deliveries.slice(downBefore);
      assert.deepEqual(replayed.map(idOf), events, "each once, in event order");
      const again = picky.deliveries.slice(pickyBefore);
      assert.deepEqual(again.map(idOf), [idOf(pickyFailed())]);
      for (const d of [...replayed, ...again]) {
        assert.deepEqual(d.verified, { standardwebhooks: true, svix: true });
        assert.equal((d.json as { eventId: string }).eventId, idOf(d));
      }
      const none = await replay(["--subscription", downSub, "--since", "2h"], sdb.env);
      assert.equal(none.code, 0);
      assert.match(none.stdout, /nothing to send again for sub_/);
    });
  } finally {
    await down.close();
    await picky.close();
    await Deno.remove(ca).catch(() => {});
    await sdb.cleanup();
  }
});
