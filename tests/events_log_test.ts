/**
 * `deno task events:log`: the delivery attempts of a subscription or an event, as lines and as JSON, from a
 * database with real attempts (real delivery code against a real HTTPS receiver and a closed port), run as a
 * child process the way an operator runs it; malformed ids and missing options exit with code 2.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { attemptLog, type AttemptLogLine } from "../db/delivery_log.ts";
import { startBackground } from "../background.ts";
import { formatAttempt } from "../tasks/events_log.ts";
import { eventIdOf, outboxIdOf } from "../db/outbox.ts";
import { newSecret, until } from "./events_support.ts";
import { testApp } from "./helpers.ts";
import {
  addSubscription,
  caFile,
  deliveryEnv,
  freePort,
  preparePeople,
  recordInquiries,
  runDeno,
  serviceDb,
} from "./service_process.ts";
import { startReceiver } from "./webhook_receiver.ts";

/** Runs `deno task events:log <args>` (the deno.json entry, with its permissions). */
async function eventsLog(args: string[], env: Record<string, string>) {
  return await runDeno(["task", "events:log", ...args], env);
}

/** What `--json` prints for `rows`. */
function asJson(rows: AttemptLogLine[]): unknown {
  return JSON.parse(JSON.stringify(rows));
}

function lines(stdout: string): string[] {
  return stdout.split("\n").filter((l) => l.trim() !== "");
}

Deno.test("events:log shows every attempt of a subscription or an event; bad input exits 2", async (t) => {
  const sdb = await serviceDb();
  const ca = await caFile();
  const secret = newSecret();
  const answered = new Map<string, number>();
  // The first POST of each event gets a 500 (→ retry), later ones a 204.
  const rx = await startReceiver({
    secrets: () => [secret],
    respond: (d) => {
      const id = d.headers["webhook-id"] ?? "";
      const n = (answered.get(id) ?? 0) + 1;
      answered.set(id, n);
      return new Response(null, { status: n === 1 ? 500 : 204 });
    },
  });
  const closedPort = freePort();
  let okSub = "", deadSub = "";
  let events: string[] = [];
  let bySub: Record<string, AttemptLogLine[]> = {};
  let byEvent: AttemptLogLine[] = [];
  try {
    await t.step("real attempts: a retried 500 then 204, and four refused connections", async () => {
      const db = await sdb.open();
      const app = await testApp(db, deliveryEnv([rx.port, closedPort], ca));
      const delivery = await startBackground(app.deps);
      try {
        const people = await preparePeople(db);
        okSub = await addSubscription(db, people, rx.url, secret);
        deadSub = await addSubscription(db, people, `https://localhost:${closedPort}/hook`, newSecret());
        events = await recordInquiries(db, people, 2);
        await until(
          async () => {
            // One statement, so both counts come from the same snapshot (two statements raced the drain).
            const r = await sql<{ total: number; open: number }>`select count(*)::int as total,
              (count(*) filter (where state in ('pending', 'sending')))::int as open
              from event_deliveries`.execute(db.kysely);
            return r.rows[0]!.total === 4 && r.rows[0]!.open === 0;
          },
          30_000,
          "all deliveries finished",
        );
        bySub = {
          [okSub]: await attemptLog(db, { subscriptionId: okSub }, 100),
          [deadSub]: await attemptLog(db, { subscriptionId: deadSub }, 100),
        };
        byEvent = await attemptLog(db, { outboxId: events[0]! }, 100);
      } finally {
        await delivery.stop();
        app.deps.events?.client.close();
        app.kv.close();
        await db.close();
      }
      const ok = bySub[okSub]!, dead = bySub[deadSub]!;
      assert.deepEqual(
        ok.map((l) => [l.eventId, l.attempt, l.status, l.outcome]).sort(),
        events.flatMap((e) => [[eventIdOf(e), 1, 500, "retry"], [eventIdOf(e), 2, 204, "delivered"]]).sort(),
      );
      // The first event whose fourth attempt fails suspends the subscription (docs/contract.md §6.4): the other
      // one has made its fourth attempt too, or is kept after its third.
      assert.ok(dead.every((l) => l.status === null && l.errorClass === "connection_refused"));
      const perEvent = events.map((e) =>
        dead.filter((l) => l.eventId === eventIdOf(e)).map((l) => l.attempt)
      );
      for (const n of perEvent) {
        assert.ok([3, 4].includes(n.length) && n.every((a, i) => a === i + 1), `${n}`);
      }
      assert.ok(dead.some((l) => l.attempt === 4 && l.outcome === "failed"));
    });

    await t.step("--subscription: one line per attempt, oldest first", async () => {
      for (const sub of [okSub, deadSub]) {
        const r = await eventsLog(["--subscription", sub], sdb.env);
        assert.equal(r.code, 0, r.stderr);
        const out = lines(r.stdout);
        assert.deepEqual(out, bySub[sub]!.map(formatAttempt));
        for (const [i, l] of bySub[sub]!.entries()) {
          const line = out[i]!;
          for (
            const part of [
              l.startedAt.toISOString(),
              l.eventId,
              "inquiry.received",
              sub,
              `#${l.attempt}`,
              String(l.status ?? l.errorClass),
              `${l.durationMs} ms`,
              l.outcome,
            ]
          ) assert.ok(line.includes(part), `${JSON.stringify(part)} in ${JSON.stringify(line)}`);
        }
      }
    });

    await t.step("--event (upper-case hex too), --json and --limit", async () => {
      const evt = eventIdOf(events[0]!);
      const r = await eventsLog(["--event", evt], sdb.env);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(lines(r.stdout), byEvent.map(formatAttempt));
      const deadOfEvent = bySub[deadSub]!.filter((l) => l.eventId === evt).length;
      assert.equal(byEvent.length, 2 + deadOfEvent, "2 attempts to the receiver + those to the closed port");
      assert.ok(byEvent.every((l) => l.eventId === evt));
      const upper = await eventsLog(["--event", `evt_${evt.slice(4).toUpperCase()}`], sdb.env);
      assert.deepEqual(lines(upper.stdout), lines(r.stdout));

      const json = await eventsLog(["--subscription", deadSub, "--json"], sdb.env);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout), asJson(bySub[deadSub]!));

      const limited = await eventsLog(["--event", evt, "--limit", "2", "--json"], sdb.env);
      assert.deepEqual(JSON.parse(limited.stdout), asJson(byEvent.slice(0, 2)));

      const none = await eventsLog(["--subscription", `sub_${"a".repeat(26)}`], sdb.env);
      assert.equal(none.code, 0, none.stderr);
      assert.match(none.stdout, /no delivery attempts for subscription sub_a{26}/);
    });

    await t.step("malformed ids, missing or conflicting options exit with code 2 and say why", async () => {
      const cases: Array<[string[], RegExp]> = [
        [[], /--subscription or --event is required/],
        [["--subscription", "sub_123"], /not a subscription id/],
        [["--subscription", events[0]!], /not a subscription id/],
        [["--event", events[0]!], /not an event id/],
        [["--event", "evt_xyz"], /not an event id/],
        [["--event", okSub], /not an event id/],
        [["--subscription", okSub, "--event", eventIdOf(events[0]!)], /either --subscription or --event/],
        [["--subscription", okSub, "--limit", "0"], /--limit must be an integer/],
        [["--subscription", okSub, "--colour"], /usage: deno task events:log/],
      ];
      for (const [args, message] of cases) {
        const r = await eventsLog(args, sdb.env);
        assert.equal(r.code, 2, `exit code for ${args.join(" ")}`);
        assert.match(r.stderr, message, args.join(" "));
        assert.equal(r.stdout, "");
      }
      assert.equal(outboxIdOf(eventIdOf(events[0]!)), events[0]);
    });
  } finally {
    await rx.close();
    await Deno.remove(ca).catch(() => {});
    await sdb.cleanup();
  }
});
