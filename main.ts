/**
 * Starts the service: reads the configuration, opens the database and KV, prepares the embedded default
 * (migrations and sample data), starts the background jobs and serves HTTP until SIGINT/SIGTERM.
 */
// First: registers the cron tick at module top level, before the server starts (Deno Deploy's rule).
import { onCronTick } from "./cron.ts";
import { createApp } from "./app.ts";
import { ConfigError, configFromEnv } from "./config.ts";
import { EmbeddedBusyError, openDb } from "./db/connection.ts";
import { openKv } from "./db/kv.ts";
import { migrate } from "./db/migrate.ts";
import { pendingMigrations } from "./db/migrate_check.ts";
import { TokenBuckets } from "./db/token_bucket.ts";
import { kvPseudonyms } from "./db/kv_keys.ts";
import { createLogger } from "./log.ts";
import { resolveAuthSecret } from "./auth/secret.ts";
import { lazyAuth } from "./auth/auth_handle.ts";
import { createAuthRuntime } from "./auth/runtime.ts";
import type { AppDeps } from "./deps.ts";
import { agentReactions } from "./agent/hooks.ts";
import { startBackground, STOP_GRACE_MS } from "./background.ts";

async function main(): Promise<void> {
  const config = (() => {
    try {
      return configFromEnv();
    } catch (e) {
      if (e instanceof ConfigError) {
        console.error(e.message);
        Deno.exit(2);
      }
      throw e;
    }
  })();
  const log = createLogger(config.logLevel);
  if (!config.databaseUrl && config.dataDir !== ":memory:") {
    await Deno.mkdir(config.dataDir, { recursive: true });
  }
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir === ":memory:" ? undefined : `${config.dataDir}/pglite`,
    opener: { role: "service", name: "deno task start" },
  }).catch((err) => {
    if (!(err instanceof EmbeddedBusyError)) throw err;
    console.error(err.message);
    Deno.exit(EmbeddedBusyError.EXIT_CODE);
  });
  if (db.kind === "pglite") {
    const applied = await migrate(db);
    if (applied.length) log.log("info", "migrations applied", { applied });
    if (config.seedSampleData) {
      // Loaded here only: a service on a real Postgres never seeds (docs/architecture.md §11.17).
      const { seedIfEmpty } = await import("./catalogue/seed.ts");
      const { seedSampleZonesIfEmpty } = await import("./valuation/sample_zones.ts");
      const seeded = await seedIfEmpty(db);
      if (seeded) log.log("info", "sample catalogue seeded", { listings: seeded });
      const zones = await seedSampleZonesIfEmpty(db);
      if (zones) log.log("info", "invented sample land-value zones loaded", { zones });
    }
    // Operator tasks started from now on work through this process (db/connection.ts).
    await db.share?.((msg, fields) => log.log("warn", msg, fields));
  } else {
    const pending = await pendingMigrations(db);
    if (pending.length) {
      console.error(
        `database has pending migrations (${pending.join(", ")}): run \`deno task db:migrate\` first`,
      );
      Deno.exit(2);
    }
  }
  config.authSecret = await resolveAuthSecret(config);
  if (!config.authSecret) {
    console.error("AUTH_SECRET must be set (at least 32 characters) when DATABASE_URL is set");
    Deno.exit(2);
  }
  const kv = await openKv(config.kvPath);
  const auth = lazyAuth({ config, db, log });
  const deps: AppDeps = {
    config,
    db,
    kv,
    buckets: new TokenBuckets(kv, { pseudonym: kvPseudonyms(config.authSecret) }),
    log,
    auth,
    authRuntime: createAuthRuntime({ config, db }),
    reactions: agentReactions,
  };
  const app = createApp(deps);
  const server = Deno.serve({
    port: config.port,
    onListen: ({ hostname, port }) =>
      log.log("info", "listening", {
        url: `http://${hostname}:${port}`,
        baseUrl: config.baseUrl,
        database: db.kind,
      }),
  }, (req, info) => app.fetch(req, info));
  // After the server: a start woken by a request answers it first (Deno Deploy starts instances on demand).
  const background = await startBackground(deps);
  onCronTick(() => background.tick());
  // better-auth is made on first use; a moment after the start it is made anyway, so its set-up (and a failure of
  // it) does not wait for the first sign-in.
  setTimeout(() => {
    auth.get().catch((err) => log.log("error", "better-auth could not be set up", { error: err.message }));
  }, AUTH_WARM_UP_MS);
  let stopping = false;
  const stop = async (signal: Deno.Signal) => {
    if (stopping) return; // systemd and Ctrl-C signal the whole process group: a second signal changes nothing
    stopping = true;
    log.log("info", "stopping", { signal });
    // Deno Deploy gives a stopped instance about 5 s: whatever still runs then is cut off.
    const deadline = setTimeout(() => {
      log.log("warn", "stopping took too long; exiting");
      Deno.exit(1);
    }, STOP_DEADLINE_MS);
    await Promise.race([server.shutdown(), delay(SHUTDOWN_WAIT_MS)]);
    await background.stop(STOP_GRACE_MS);
    kv.close();
    await db.close().catch((err) => log.log("warn", "closing the database failed", { error: err.message }));
    clearTimeout(deadline);
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => void stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
}

/** When better-auth is made at the latest after the start. */
const AUTH_WARM_UP_MS = 1_000;
/** Longest wait for HTTP requests in flight when stopping. */
const SHUTDOWN_WAIT_MS = 1_000;
/** A stop that takes longer than this exits anyway (Deno Deploy allows about 5 s after its SIGINT). */
const STOP_DEADLINE_MS = 4_500;

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

if (import.meta.main) await main();
