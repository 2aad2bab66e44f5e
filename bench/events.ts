/**
 * `deno task bench:events`: webhook delivery throughput and trigger-to-delivery latency.
 *
 * One local HTTPS receiver (test CA, loopback allowed for its port only) answers 204 and notes when each
 * (webhook-id, subscription) arrived. In the same run, `BENCH_ROUNDS` rounds of 1 and 2, alternating:
 * 1. Floor: N × M plain signed `fetch` POSTs to that receiver over HTTP/1.1 keep-alive with `BENCH_CONCURRENCY` in
 *    flight: the protocol, the signing (Web Crypto, as the service signs) and the parallel connections per
 *    receiver of the service's webhook client (16), so both sides do the same work. For reference, the same with `fetch`'s defaults (HTTP/2 when offered, 32 in flight;
 *    the floor of earlier runs) is printed too (once).
 * 2. Throughput: N events triggered through the domain path (`act` + `recordEvent`, as the tools do) with
 *    M matching subscriptions; the service drains the outbox (one statement per 100 events holds them and returns
 *    their first attempts), re-checks access, signs and POSTs each through the SSRF-safe client, and writes each
 *    delivery with its first attempt in batched statements. Deliveries/s from the first trigger to the last arrival.
 *    The ratio of a round is its throughput over the floor measured just before it; the result is the median of
 *    the rounds' ratios. Why rounds: on a shared 2-CPU machine the floor alone varied from 5,548 to 10,058
 *    deliveries/s between consecutive 1.3 s measurements in one process, so one floor and one throughput
 *    measured seconds apart gave a ratio that was mostly noise (0.38 to 0.77 for the same code).
 *    After each round, the same N×M signed POSTs through the service's webhook client alone (no database), against
 *    a floor measured just before: its rate over the floor's and its JavaScript-thread CPU per POST (from /proc).
 *    This compared our client with undici and node:https (docs/architecture.md §11.5).
 * 3. Latency: events triggered at a steady rate of half the median floor (in deliveries/s) for `BENCH_SECONDS`;
 *    trigger-to-arrival p50/p99.
 * Expected (issue): throughput ≥ 0.5 × floor (median ratio of the rounds); p99 under 1 s at that rate.
 *
 * 5. Instances (on Postgres): the same throughput with this process alone and with BENCH_INSTANCES − 1 service
 *    processes (`main.ts`) on the same database beside it, alternating (`events_instances.ts`), with the receiver
 *    answering after BENCH_RECEIVER_MS (100) as real receivers do; expected: the instances together deliver at
 *    least as much as one.
 * 6. With BENCH_PHASES=1, afterwards: N events triggered with delivery stopped, then delivered with nothing else
 *    running; for each phase its rate and the CPU per event or delivery of the service's JavaScript thread, its
 *    other threads (Deno's I/O) and the Postgres processes on this machine (from /proc; Linux only). It tells
 *    where the time of the whole path goes; it prints figures, no verdict.
 * Environment (optional): BENCH_EVENTS (1000), BENCH_SUBS (4), BENCH_CONCURRENCY (16), BENCH_SECONDS (5),
 * BENCH_ROUNDS (5), BENCH_POOL (10, the service's Postgres connections), BENCH_DATABASE_URL (use this server; else
 * a throwaway cluster, kept in BENCH_PG_DIR when set, or PGlite with BENCH_DB=pglite), BENCH_JSON (write the
 * figures to this file), BENCH_PHASES (1: the phase split of step 6), BENCH_INSTANCES (3), BENCH_RECEIVER_MS (100).
 */
import { eventIdOf } from "../db/outbox.ts";
import { sql } from "kysely";
import { loadConfig } from "../config.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { type Db, openDb } from "../db/connection.ts";
import { migrate } from "../db/migrate.ts";
import { ensureOffice } from "../db/offices.ts";
import { insertSubscription } from "../db/subscriptions.ts";
import { startBackground } from "../background.ts";
import { recordEvent } from "../events/outbox.ts";
import { composeDeps } from "../app.ts";
import { agentReactions } from "../agent/hooks.ts";
import { base64 } from "../crypto.ts";
import { secretBox } from "../events/signing.ts";
import { newSubscriptionId } from "../events/subscriptions.ts";
import { act, type AppDeps } from "../deps.ts";
import { type SelfCpu, selfCpu } from "./cpu.ts";
import { benchDatabase } from "./database.ts";
import { type Arrivals, clientAlone, floor, type Receiver, startReceiver } from "./events_floor.ts";
import { compareInstances } from "./events_instances.ts";
import { atCleanup, intSetting, runBenchmark, say, textSetting, workFolder } from "./harness.ts";
import { ascending, median, percentile } from "./stats.ts";

const N = intSetting("BENCH_EVENTS", 1000, 1);
const M = intSetting("BENCH_SUBS", 4, 1);
const CONCURRENCY = intSetting("BENCH_CONCURRENCY", 16, 1);
const SECONDS = intSetting("BENCH_SECONDS", 5, 1);
const ROUNDS = intSetting("BENCH_ROUNDS", 5, 1);
/** Postgres connections of the service (the service's default unless BENCH_POOL). */
const POOL = intSetting("BENCH_POOL", 10, 1);
const AUTH_SECRET = "bench-only-secret-0123456789abcdefghijklmnop";
/** Instances in step 5 (this process and BENCH_INSTANCES − 1 service processes on the same Postgres). */
const INSTANCES = intSetting("BENCH_INSTANCES", 3, 1);
/**
 * How long the receiver takes to answer in step 5 (ms): real receivers take tens to hundreds of milliseconds, so
 * an instance's 64 attempts in flight, not its CPU, bound what it delivers; 0 measures the CPU-bound case.
 */
const RECEIVER_MS = intSetting("BENCH_RECEIVER_MS", 100, 0);

/** A provider with an office, a consent to one app, and M subscriptions of that app to inquiry.received. */
async function prepare(db: Db, url: string): Promise<{ officeId: string }> {
  await migrate(db);
  const suffix = crypto.randomUUID().slice(0, 8);
  const officeId = await ensureOffice(db, `Bench-Büro ${suffix}`);
  const userId = await insertUser(db, {
    email: `bench-events-${suffix}@example.org`,
    name: "Bench",
    role: "seeker",
  });
  await startMembership(db, userId, officeId);
  const clientId = `bench-app-${suffix}`;
  const now = new Date();
  await sql`insert into "oauthClient" ("id", "clientId", "redirectUris", "name", "createdAt", "updatedAt")
    values (${clientId}, ${clientId}, '["http://127.0.0.1:9/cb"]'::jsonb, 'Bench app', ${now}, ${now})`
    .execute(db.kysely);
  await sql`insert into "oauthConsent" ("id", "clientId", "userId", "scopes", "createdAt", "updatedAt")
    values (${crypto.randomUUID()}, ${clientId}, ${userId}, '["lesen"]'::jsonb, ${now}, ${now})`.execute(
    db.kysely,
  );
  const box = secretBox(AUTH_SECRET);
  for (let i = 0; i < M; i++) {
    await insertSubscription(db.kysely, {
      id: newSubscriptionId(),
      userId,
      clientId,
      server: "anbieter",
      officeId,
      name: "inquiry.received",
      arguments: {},
      argumentsKey: "{}",
      url: `${url}?s=${i}`,
      secretEnc: await box.seal(`whsec_${base64(crypto.getRandomValues(new Uint8Array(32)))}`),
      now,
      expiresAt: new Date(now.getTime() + 86_400_000),
    });
  }
  return { officeId };
}

/** Triggers one inquiry.received event the way a tool does; returns its webhook-id and trigger time. */
async function trigger(deps: AppDeps, officeId: string): Promise<{ id: string; at: number }> {
  const at = performance.now();
  const outboxId = await act(
    deps,
    { actor: { kind: "service", officeId }, origin: null },
    (a) =>
      recordEvent(a, {
        name: "inquiry.received",
        data: {
          anfrage_id: crypto.randomUUID(),
          objekt_id: crypto.randomUUID(),
          quelle: "service",
          satz: "Neue Anfrage (Benchmark).",
        },
        owner: { office: officeId },
      }),
  );
  return { id: eventIdOf(outboxId), at };
}

/** Triggers N events, 16 at a time (as 16 concurrent tool calls would). */
async function triggerAll(deps: AppDeps, officeId: string): Promise<void> {
  let made = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (made < N) {
      made++;
      await trigger(deps, officeId);
    }
  }));
}

/** Prints a phase's rate and CPU per unit since `c0` (see step 4 of the header). */
async function phaseLine(what: string, n: number, unit: string, ms: number, c0: SelfCpu) {
  const c = await selfCpu();
  const per = (cpuMs: number) => `${((cpuMs * 1000) / n).toFixed(0)} µs`;
  say(
    `  ${what}: ${(n / (ms / 1000)).toFixed(0)} ${
      unit === "delivery" ? "deliveries" : `${unit}s`
    }/s; CPU per ${unit}: JavaScript thread ${per(c.main - c0.main)}, other threads ${
      per(c.process - c0.process - (c.main - c0.main))
    }, Postgres ${per(c.postgres - c0.postgres)}`,
  );
}

/** Step 4: triggering with delivery stopped, then delivery alone. */
async function phases(
  deps: AppDeps,
  officeId: string,
  rx: { waitFor(n: number, ms: number): Promise<void> },
) {
  let c0: SelfCpu;
  try {
    c0 = await selfCpu();
  } catch (err) {
    return say(`phases: CPU times not readable (${(err as Error).message})`);
  }
  say(`phases (N=${N}, M=${M}; CPU in 10 ms ticks, so short phases are coarse):`);
  let t0 = performance.now();
  await triggerAll(deps, officeId);
  await phaseLine("triggering only (delivery stopped)", N, "event", performance.now() - t0, c0);
  c0 = await selfCpu();
  t0 = performance.now();
  const delivery = await startBackground(withEngine(deps));
  await rx.waitFor(N * M, 120_000);
  await phaseLine("delivering only", N * M, "delivery", performance.now() - t0, c0);
  await delivery.stop();
}

/** `deps` with a job engine and an event runtime of their own (an engine starts once). */
function withEngine(deps: AppDeps): AppDeps {
  const { config, db, kv, log, reactions } = deps;
  return composeDeps({ config, db, kv, log, reactions });
}

type Rx = Receiver;

/** One round's service measurement (and the floor measured just before it). */
interface Round {
  floorRate: number;
  rate: number;
  triggeredMs: number;
}

/** A few events through the whole path; on failure prints where they stuck. */
async function warmUp(deps: AppDeps, officeId: string, rx: Rx, db: Db): Promise<void> {
  for (let i = 0; i < 20; i++) await trigger(deps, officeId);
  await rx.waitFor(20 * M, 30_000).catch(async (e) => {
    const r =
      await sql`select (select count(*) from event_outbox where dispatched_at is null)::int as pending,
        (select count(*) from event_deliveries)::int as deliveries,
        (select count(*) from event_delivery_attempts)::int as attempts,
        (select string_agg(distinct coalesce(error_class, status::text), ',') from event_delivery_attempts) as errs`
        .execute(db.kysely);
    console.error(r.rows);
    throw e;
  });
}

/** Step 2: N events triggered 16 at a time; deliveries/s from the first trigger to the last arrival. */
async function throughput(
  deps: AppDeps,
  officeId: string,
  rx: Rx,
  arrivals: Arrivals,
): Promise<Omit<Round, "floorRate">> {
  const t0 = performance.now();
  await triggerAll(deps, officeId);
  const triggeredMs = performance.now() - t0;
  await rx.waitFor(N * M, 120_000);
  const last = Math.max(...arrivals.values());
  return { rate: (N * M) / ((last - t0) / 1000), triggeredMs };
}

/** Step 3: events at a steady `deliveriesPerSecond` / M per second for SECONDS; trigger-to-arrival p50/p99. */
async function latency(
  deps: AppDeps,
  officeId: string,
  rx: Rx,
  arrivals: Arrivals,
  deliveriesPerSecond: number,
) {
  const eventsPerSecond = deliveriesPerSecond / M;
  const count = Math.max(1, Math.round(eventsPerSecond * SECONDS));
  const triggers: Array<{ id: string; at: number }> = [];
  const start = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / eventsPerSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(trigger(deps, officeId).then((t) => void triggers.push(t)));
  }
  await Promise.all(pending);
  await rx.waitFor(count * M, 120_000);
  const triggeredAt = new Map(triggers.map((t) => [t.id, t.at]));
  const lat: number[] = [];
  for (const [key, at] of arrivals) {
    const t = triggeredAt.get(key.slice(0, key.indexOf(" ")));
    if (t !== undefined) lat.push(at - t);
  }
  const sorted = ascending(lat);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), perSecond: eventsPerSecond * M };
}

/** The database: embedded PGlite (`BENCH_DB=pglite`), or Postgres through {@linkcode benchDatabase}. */
async function openDatabase(workdir: string): Promise<{ db: Db; kind: string; url?: string }> {
  if (textSetting("BENCH_DB") === "pglite") {
    const db = await openDb({ databaseUrl: undefined, dataDir: undefined });
    atCleanup(() => db.close());
    return { db, kind: "PGlite (in memory)" };
  }
  const database = await benchDatabase({ workdir });
  const db = await openDb({ databaseUrl: database.url, dataDir: undefined, poolSize: POOL });
  atCleanup(() => db.close());
  return { db, url: database.url, kind: `Postgres ${database.pgVersion || "(given)"}` };
}

/** The service's settings of this process and of the instances of step 5. */
function serviceSettings(rx: Receiver, caFile: string): Record<string, string> {
  return {
    AUTH_SECRET,
    WEBHOOK_LOOPBACK_PORTS: String(rx.port),
    WEBHOOK_CA_FILE: caFile,
    EVENTS_SWEEP_MS: "30000",
    LOG_LEVEL: "warn",
  };
}

/** The dependencies of this process's service: config, database, an in-memory KV, job engine and event runtime. */
async function serviceDeps(db: Db, settings: Record<string, string>): Promise<AppDeps> {
  const kv = await Deno.openKv(":memory:");
  atCleanup(() => kv.close());
  const config = loadConfig({ DATA_DIR: ":memory:", ...settings });
  const log = {
    log: (level: string, msg: string, f?: Record<string, unknown>) =>
      level !== "debug" && console.error(level, msg, f),
  };
  const deps = composeDeps({ config, db, kv, log, reactions: agentReactions });
  atCleanup(() => deps.events.client.close());
  return deps;
}

/** Steps 1 and 2 in `ROUNDS` alternating rounds, each followed by the webhook client alone against a floor. */
async function rounds(deps: AppDeps, officeId: string, rx: Rx, arrivals: Arrivals, url: string) {
  const all: Round[] = [];
  const aloneRatios: number[] = [];
  const aloneCpu: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const floorRate = await floor(url, rx.caPem, CONCURRENCY, false, N * M);
    arrivals.clear();
    const round = { floorRate, ...await throughput(deps, officeId, rx, arrivals) };
    arrivals.clear();
    all.push(round);
    const floorAgain = await floor(url, rx.caPem, CONCURRENCY, false, N * M);
    const alone = await clientAlone(deps.events!.client, url, CONCURRENCY, N * M);
    arrivals.clear();
    aloneRatios.push(alone.rate / floorAgain);
    aloneCpu.push(alone.cpuUs);
    say(
      `round ${r} client alone: floor ${floorAgain.toFixed(0)}, webhook client ${
        alone.rate.toFixed(0)
      } posts/s, ratio ${(alone.rate / floorAgain).toFixed(2)}, JavaScript thread ${
        alone.cpuUs.toFixed(0)
      } µs per post`,
    );
    say(
      `round ${r}: floor (plain signed fetch, HTTP/1.1, ${CONCURRENCY} in flight) ${floorRate.toFixed(0)}, ` +
        `service (trigger → signed delivery) ${round.rate.toFixed(0)} deliveries/s, ratio ${
          (round.rate / floorRate).toFixed(2)
        } (triggering took ${round.triggeredMs.toFixed(0)} ms)`,
    );
  }
  return { rounds: all, aloneRatios, aloneCpu };
}

/** Step 5: this instance alone against `INSTANCES` instances, the receiver answering after `RECEIVER_MS`. */
async function instances(
  deps: AppDeps,
  officeId: string,
  rx: Rx,
  arrivals: Arrivals,
  env: Record<string, string>,
  workdir: string,
): Promise<void> {
  rx.answerAfter.ms = RECEIVER_MS;
  const dir = `${workdir}/instances`;
  await Deno.mkdir(dir);
  const { one, all } = await compareInstances({
    env: { ...env, KV_PATH: ":memory:", DATA_DIR: dir },
    extra: INSTANCES - 1,
    rounds: Math.max(1, Math.ceil(ROUNDS / 2)),
    measure: async () => {
      arrivals.clear();
      const r = await throughput(deps, officeId, rx, arrivals);
      arrivals.clear();
      return r.rate;
    },
    workdir: dir,
  });
  say(
    `instances (receiver answering after ${RECEIVER_MS} ms): 1 instance median ${
      median(one).toFixed(0)
    }, ${INSTANCES} instances median ${median(all).toFixed(0)} deliveries/s, ratio ${
      (median(all) / median(one)).toFixed(2)
    } (expected ≥ 1)`,
  );
  rx.answerAfter.ms = 0;
}

async function main() {
  const workdir = await workFolder("bench-events-");
  const arrivals: Arrivals = new Map();
  const rx = await startReceiver(arrivals);
  atCleanup(() => rx.server.shutdown());
  const url = `https://localhost:${rx.port}/hook`;
  const caFile = `${workdir}/ca.pem`;
  await Deno.writeTextFile(caFile, rx.caPem);
  const { db, kind, url: dbUrl } = await openDatabase(workdir);
  const settings = serviceSettings(rx, caFile);
  const deps = await serviceDeps(db, settings);
  say(
    `bench:events  N=${N} events × M=${M} subscriptions, ${CONCURRENCY} in flight (floor), database ${kind}, pool ${POOL}`,
  );
  const { officeId } = await prepare(db, url);
  const defaultRate = await floor(url, rx.caPem, 32, true, N * M);
  arrivals.clear();
  say(`reference: fetch defaults, HTTP/2, 32 in flight: ${defaultRate.toFixed(0)} deliveries/s`);
  const delivery = await startBackground(deps);
  await warmUp(deps, officeId, rx, db);
  arrivals.clear();
  const { rounds: measured, aloneRatios, aloneCpu } = await rounds(deps, officeId, rx, arrivals, url);
  const floorRate = median(measured.map((r) => r.floorRate));
  const rate = median(measured.map((r) => r.rate));
  const ratio = median(measured.map((r) => r.rate / r.floorRate));
  say(
    `median of ${ROUNDS} rounds: floor ${floorRate.toFixed(0)}, service ${
      rate.toFixed(0)
    } deliveries/s, ratio ${ratio.toFixed(2)} (expected ≥ 0.5; ratios ${
      measured.map((r) => (r.rate / r.floorRate).toFixed(2)).join(" ")
    })`,
  );
  say(
    `webhook client alone: median ratio ${median(aloneRatios).toFixed(2)} (${
      aloneRatios.map((x) => x.toFixed(2)).join(" ")
    }), JavaScript thread per post median ${median(aloneCpu).toFixed(0)} µs`,
  );
  const { p50, p99, perSecond } = await latency(deps, officeId, rx, arrivals, 0.5 * floorRate);
  say(
    `latency at ${perSecond.toFixed(0)} deliveries/s (${
      (perSecond / M).toFixed(0)
    } events/s × ${M}) for ${SECONDS} s: ` +
      `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (expected p99 < 1000 ms)`,
  );
  const ok = ratio >= 0.5 && p99 < 1000;
  say(ok ? "result: meets the expected ratio and latency" : "result: BELOW the expectation");
  const jsonPath = textSetting("BENCH_JSON");
  if (jsonPath) {
    const figures = {
      N,
      M,
      rounds: measured,
      aloneRatios,
      aloneCpu,
      floorRate,
      defaultRate,
      rate,
      ratio,
      p50,
      p99,
    };
    await Deno.writeTextFile(jsonPath, JSON.stringify(figures, null, 2));
  }
  if (dbUrl && INSTANCES > 1) {
    await instances(deps, officeId, rx, arrivals, { DATABASE_URL: dbUrl, ...settings }, workdir);
  }
  await delivery.stop();
  if (textSetting("BENCH_PHASES") === "1") {
    arrivals.clear();
    await phases(deps, officeId, rx);
  }
}

if (import.meta.main) await runBenchmark(main);
