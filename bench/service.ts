/**
 * The service under load as a child process (the Deno binary itself running `main.ts`), with a clean environment,
 * its own data folder and KV file, and a wait for `/healthz`. Used by `bench/valuation.ts`.
 */
import { openDb } from "../db/connection.ts";
import { migrate } from "../db/migrate.ts";
import { freePort } from "./pg_cluster.ts";
import { type Child, spawnLogged } from "./processes.ts";

const REPO = new URL("..", import.meta.url).pathname;

/** Environment of a child service: the parent's without any service configuration, plus `vars`. */
export function serviceEnv(vars: Record<string, string>): Record<string, string> {
  const env = Deno.env.toObject();
  for (
    const k of [
      "PORT",
      "BASE_URL",
      "DATABASE_URL",
      "DATA_DIR",
      "KV_PATH",
      "TRUST_PROXY",
      "AUTH_SECRET",
      "SMTP_URL",
      "RATE_LIMIT",
      "SEED_SAMPLE_DATA",
      "LOG_LEVEL",
      "DENO_DEPLOYMENT_ID",
    ]
  ) delete env[k];
  return { ...env, NO_COLOR: "1", ...vars };
}

/** 48 random bytes as base64url: an AUTH_SECRET for one child service. */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/** Polls `url` until it answers 2xx; fails early when the child exits, and after `timeoutMs`. */
export async function waitHealthy(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exited()) throw new Error(`the process exited before it was healthy:\n${await child.tail()}`);
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not healthy after ${timeoutMs / 1000} s:\n${await child.tail()}`);
}

/** Options of {@linkcode startService}. */
export interface ServiceOptions {
  /** postgres:// URL of the database (migrated here first: main.ts refuses pending migrations). */
  databaseUrl: string;
  /** Folder for the log, the data folder and the KV file. */
  workdir: string;
  /** Distinguishes the files of several services in one workdir. */
  label: string;
  /** RATE_LIMIT on or off. */
  rateLimit: boolean;
  /** `file` (a KV file in the workdir) or `memory`. */
  kv: "file" | "memory";
  /** Called with the child as soon as it is spawned (register its stop for cleanup here). */
  onSpawn: (child: Child) => void;
}

/** Starts the service with TRUST_PROXY=1 and LOG_LEVEL=warn, waits for /healthz and returns it with its base URL. */
export async function startService(o: ServiceOptions): Promise<{ child: Child; base: string }> {
  const db = await openDb({ databaseUrl: o.databaseUrl, poolSize: 1 });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  const port = freePort();
  const child = await spawnLogged(
    Deno.execPath(),
    ["run", "-A", "main.ts"],
    `${o.workdir}/service-${o.label}.log`,
    {
      cwd: REPO,
      clearEnv: true,
      env: serviceEnv({
        DATABASE_URL: o.databaseUrl,
        PORT: String(port),
        TRUST_PROXY: "1",
        LOG_LEVEL: "warn",
        RATE_LIMIT: o.rateLimit ? "on" : "off",
        DATA_DIR: `${o.workdir}/data-${o.label}`,
        KV_PATH: o.kv === "memory" ? ":memory:" : `${o.workdir}/data-${o.label}/kv.sqlite3`,
        SEED_SAMPLE_DATA: "0",
        // main.ts requires a secret with DATABASE_URL; a random one per child (sessions are not benchmarked)
        AUTH_SECRET: randomSecret(),
      }),
    },
  );
  o.onSpawn(child);
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(child, `${base}/healthz`);
  return { child, base };
}
