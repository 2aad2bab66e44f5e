/**
 * Children the benchmarks load: the service (the Deno binary itself running `main.ts`) with a clean environment,
 * its own data folder and KV file, and any other Deno program of the repository that answers `/healthz` (the
 * bare-server floor). Each child logs to a file, is stopped by the cleanup (also on SIGINT), and is returned once
 * `/healthz` answers.
 */
import { atCleanup } from "./harness.ts";
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

/** A running child and the base URL it answers on. */
export interface Served {
  /** The child process. */
  child: Child;
  /** `http://127.0.0.1:<port>`. */
  base: string;
}

/** Options of {@linkcode startChild}. */
export interface ChildOptions {
  /** Arguments of the Deno binary, run in the repository folder (e.g. `["run", "-A", "main.ts"]`). */
  args: string[];
  /** The port the child listens on, on 127.0.0.1. */
  port: number;
  /** Its log file. */
  logPath: string;
  /** Its environment: `env` alone (`clearEnv`), or this process's plus `env`. */
  env?: Record<string, string>;
  /** Start from an empty environment. */
  clearEnv?: boolean;
}

/** Spawns a Deno program of the repository, registers its stop for the cleanup, and waits for its `/healthz`. */
export async function startChild(o: ChildOptions): Promise<Served> {
  const child = await spawnLogged(Deno.execPath(), o.args, o.logPath, {
    cwd: REPO,
    ...(o.env ? { env: o.env } : {}),
    ...(o.clearEnv ? { clearEnv: true } : {}),
  });
  atCleanup(() => child.stop());
  const base = `http://127.0.0.1:${o.port}`;
  await waitHealthy(child, `${base}/healthz`);
  return { child, base };
}

/** Starts `main.ts` on a free port with {@linkcode serviceEnv} of `vars` (nothing else of this environment). */
export function spawnService(vars: Record<string, string>, logPath: string): Promise<Served> {
  const port = freePort();
  return startChild({
    args: ["run", "-A", "main.ts"],
    port,
    logPath,
    clearEnv: true,
    env: serviceEnv({ ...vars, PORT: String(port) }),
  });
}

/** Options of {@linkcode startService}. */
export interface ServiceOptions {
  /** postgres:// URL of the database, migrated already (main.ts refuses pending migrations). */
  databaseUrl: string;
  /** Folder for the log, the data folder and the KV file. */
  workdir: string;
  /** Distinguishes the files of several services in one workdir. */
  label: string;
  /** RATE_LIMIT on or off. */
  rateLimit: boolean;
  /** `file` (a KV file in the workdir) or `memory`. */
  kv: "file" | "memory";
}

/** Starts the service under load with TRUST_PROXY=1 and LOG_LEVEL=warn and waits for /healthz. */
export function startService(o: ServiceOptions): Promise<Served> {
  return spawnService({
    DATABASE_URL: o.databaseUrl,
    TRUST_PROXY: "1",
    LOG_LEVEL: "warn",
    RATE_LIMIT: o.rateLimit ? "on" : "off",
    DATA_DIR: `${o.workdir}/data-${o.label}`,
    KV_PATH: o.kv === "memory" ? ":memory:" : `${o.workdir}/data-${o.label}/kv.sqlite3`,
    SEED_SAMPLE_DATA: "0",
    // main.ts requires a secret with DATABASE_URL; a random one per child (sessions are not benchmarked)
    AUTH_SECRET: randomSecret(),
  }, `${o.workdir}/service-${o.label}.log`);
}
