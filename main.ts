/**
 * Starts the service: reads the configuration, opens the database and KV, prepares the embedded default
 * (migrations and sample data), serves HTTP, starts the background jobs, and stops within 5 s on SIGINT/SIGTERM.
 *
 * A fast start (docs/architecture.md §11.17): the app's modules load while the database connects, and the
 * background work, the embedded database, the sample data and better-auth are loaded only when they are needed.
 */
// First: registers the cron tick at module top level, before the server starts (Deno Deploy's rule).
import { onCronTick } from "./cron.ts";
import { type Config, ConfigError, configFromEnv } from "./config.ts";
import { type Db, EmbeddedBusyError, openDb } from "./db/connection.ts";
import { openKv } from "./db/kv.ts";
import { pendingMigrations } from "./db/migrate_check.ts";
import { createLogger, type Logger } from "./log.ts";
import { resolveAuthSecret } from "./auth/secret.ts";

/** When better-auth is made at the latest after the start. */
const AUTH_WARM_UP_MS = 1_000;
/** Longest wait for HTTP requests in flight when stopping. */
const SHUTDOWN_WAIT_MS = 1_000;
/** A stop that takes longer than this exits anyway (Deno Deploy allows about 5 s after its SIGINT). */
const STOP_DEADLINE_MS = 4_500;

async function main(): Promise<void> {
  const read = readConfig();
  const log = createLogger(read.logLevel);
  const modules = loadAppModules();
  const db = await openDatabase(read, log);
  const authSecret = await resolveAuthSecret(read);
  if (!authSecret) {
    console.error("AUTH_SECRET must be set (at least 32 characters) when DATABASE_URL is set");
    Deno.exit(2);
  }
  const config: Config = { ...read, authSecret };
  const kv = await openKv(config.kvPath);
  const { createApp, composeDeps, agentReactions } = await modules;
  const deps = composeDeps({ config, db, kv, log, reactions: agentReactions });
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
  const { startBackground, STOP_GRACE_MS } = await import("./background.ts");
  const background = await startBackground(deps);
  onCronTick(() => background.tick());
  // better-auth is made on first use; a moment after the start it is made anyway, so its set-up (and a failure of
  // it) does not wait for the first sign-in.
  setTimeout(() => {
    deps.auth.get().catch((err) =>
      log.log("error", "better-auth could not be set up", { error: err.message })
    );
  }, AUTH_WARM_UP_MS);
  stopOnSignals(log, [
    () => Promise.race([server.shutdown(), delay(SHUTDOWN_WAIT_MS)]),
    () => background.stop(STOP_GRACE_MS),
    () => Promise.resolve(kv.close()),
    () => db.close(),
  ]);
}

/** The configuration, or exit code 2 with the message naming every invalid variable. */
function readConfig(): Config {
  try {
    return configFromEnv();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(e.message);
    Deno.exit(2);
  }
}

/** Starts loading what the app needs to answer; the files load while the database connects. */
async function loadAppModules() {
  const [app, agent] = await Promise.all([import("./app.ts"), import("./agent/hooks.ts")]);
  return { createApp: app.createApp, composeDeps: app.composeDeps, agentReactions: agent.agentReactions };
}

/**
 * Opens the database. The embedded default is migrated, filled with the sample data when empty, and shared with
 * operator tasks; a real server must be migrated already (exit code 2 otherwise), and a held embedded folder gives
 * exit code 3.
 */
async function openDatabase(config: Config, log: Logger): Promise<Db> {
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
    await prepareEmbedded(config, log, db);
    return db;
  }
  const pending = await pendingMigrations(db);
  if (pending.length) {
    console.error(
      `database has pending migrations (${pending.join(", ")}): run \`deno task db:migrate\` first`,
    );
    Deno.exit(2);
  }
  return db;
}

/** Migrates the embedded database, seeds the sample data into an empty one, and shares it with operator tasks. */
async function prepareEmbedded(config: Config, log: Logger, db: Db): Promise<void> {
  const { migrate } = await import("./db/migrate.ts");
  const applied = await migrate(db);
  if (applied.length) log.log("info", "migrations applied", { applied });
  if (config.seedSampleData) {
    const { seedIfEmpty } = await import("./catalogue/seed.ts");
    const { seedSampleZonesIfEmpty } = await import("./valuation/sample_zones.ts");
    const seeded = await seedIfEmpty(db);
    if (seeded) log.log("info", "sample catalogue seeded", { listings: seeded });
    const zones = await seedSampleZonesIfEmpty(db);
    if (zones) log.log("info", "invented sample land-value zones loaded", { zones });
  }
  // Operator tasks started from now on work through this process (db/connection.ts).
  await db.share?.((msg, fields) => log.log("warn", msg, fields));
}

/**
 * On the first SIGINT or SIGTERM runs the `steps` of stopping in order and exits 0, or exits 1 when they take
 * longer than {@linkcode STOP_DEADLINE_MS}; a second signal (systemd and Ctrl-C signal the whole process group)
 * changes nothing.
 */
function stopOnSignals(log: Logger, steps: Array<() => Promise<unknown>>): void {
  let stopping = false;
  const stop = async (signal: Deno.Signal) => {
    if (stopping) return;
    stopping = true;
    log.log("info", "stopping", { signal });
    setTimeout(() => {
      log.log("warn", "stopping took too long; exiting");
      Deno.exit(1);
    }, STOP_DEADLINE_MS);
    for (const step of steps) {
      await step().catch((err) => log.log("warn", "a step of stopping failed", { error: err.message }));
    }
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => void stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

if (import.meta.main) await main();
