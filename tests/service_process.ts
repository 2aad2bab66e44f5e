/**
 * Test support for running the REAL service (`main.ts`) and operator tasks as child processes against a database
 * the test process prepares: a PGlite data folder on disk (opened by the test process while a service child runs,
 * it works through that service, as an operator task does; see db/connection.ts), or a fresh schema on the `DATABASE_URL` server (the child gets it through `?search_path=` on the URL, which
 * postgres.js sends as a startup parameter).
 *
 * Also the event world those tests share: a provider in an office with a listing, an app (OAuth client) with the
 * person's consent (scope lesen), inquiry.received subscriptions inserted directly, and outbox rows.
 */
import postgres from "postgres";
import { type Kysely, sql } from "kysely";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { type Db, openDb } from "../db/connection.ts";
import { insertListings } from "../db/listings.ts";
import { migrate } from "../db/migrate.ts";
import { ensureOffice } from "../db/offices.ts";
import type { Database } from "../db/schema.ts";
import { insertSubscription } from "../db/subscriptions.ts";
import { writeEvent } from "../events/outbox.ts";
import { secretBox } from "../events/signing.ts";
import { newSubscriptionId } from "../events/subscriptions.ts";
import { DATABASE_URL, TEST_AUTH_SECRET } from "./helpers.ts";
import { testCa } from "./webhook_receiver.ts";

/** The repository root (the children's working directory). */
export const ROOT = new URL("../", import.meta.url).pathname;

/** A free TCP port on 127.0.0.1 (taken and released at once). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A database a child process can open too. */
export interface ServiceDb {
  kind: "pglite" | "postgres";
  /** Environment variables that make a child use this database (and a KV file of its own). */
  env: Record<string, string>;
  /** Opens it in the test process (PGlite: close it again before a child starts). */
  open(): Promise<Db>;
  /** Removes the data folder, or drops the schema. */
  cleanup(): Promise<void>;
}

/** A fresh, migrated database for child processes: PGlite on disk, or a new schema on `DATABASE_URL`. */
export async function serviceDb(): Promise<ServiceDb> {
  const dir = await Deno.makeTempDir({ prefix: "service_db_" });
  const kvEnv = { KV_PATH: `${dir}/kv.sqlite3` };
  let sdb: ServiceDb;
  if (!DATABASE_URL) {
    sdb = {
      kind: "pglite",
      env: { DATA_DIR: dir, DATABASE_URL: "", ...kvEnv },
      open: () => openDb({ dataDir: `${dir}/pglite` }),
      cleanup: () => Deno.remove(dir, { recursive: true }),
    };
  } else {
    const schema = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create schema ${schema}`);
    const url = new URL(DATABASE_URL);
    url.searchParams.set("search_path", schema);
    sdb = {
      kind: "postgres",
      env: { DATA_DIR: dir, DATABASE_URL: url.toString(), ...kvEnv },
      open: () => openDb({ databaseUrl: DATABASE_URL, searchPath: schema, poolSize: 4 }),
      async cleanup() {
        await admin.unsafe(`drop schema ${schema} cascade`);
        await admin.end();
        await Deno.remove(dir, { recursive: true });
      },
    };
  }
  const db = await sdb.open();
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  return sdb;
}

/** Runs `fn` with the database open in the test process, and closes it afterwards. */
export async function withDb<T>(sdb: ServiceDb, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await sdb.open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** A PEM file with the test CA (for `WEBHOOK_CA_FILE`); remove it when done. */
export async function caFile(): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "webhook_ca_", suffix: ".pem" });
  await Deno.writeTextFile(path, (await testCa()).caPem);
  return path;
}

/** A running service child process. */
export interface Service {
  url: string;
  child: Deno.ChildProcess;
  /** What the child wrote to stderr so far. */
  stderr(): string;
  /** SIGKILL: the process dies at once, whatever it was doing. */
  kill(): Promise<Deno.CommandStatus>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Starts `deno run -A main.ts` with `env` on a free port and waits until /healthz answers. The port is probed
 * free first, and BASE_URL must name it, so another process can take it in between: a child that fails to bind
 * is started again on another port (up to three times).
 */
export async function startService(env: Record<string, string>, timeoutMs = 60_000): Promise<Service> {
  for (let attempt = 1;; attempt++) {
    try {
      return await startServiceOnce(env, timeoutMs);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= 3) throw err;
    }
  }
}

/** The child could not bind its port (another process took it after the probe). */
class PortTaken extends Error {}

async function startServiceOnce(env: Record<string, string>, timeoutMs: number): Promise<Service> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: { PORT: String(port), BASE_URL: url, LOG_LEVEL: "warn", SEED_SAMPLE_DATA: "off", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  const reading = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of child.stderr) err += dec.decode(chunk, { stream: true });
  })();
  let exited: Deno.CommandStatus | undefined;
  const status = child.status.then(async (s) => {
    exited = s;
    await reading;
    return s;
  });
  const end = async (signal: Deno.Signal) => {
    if (!exited) {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
    }
    return await status;
  };
  const service: Service = {
    url,
    child,
    stderr: () => err,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      await status;
      if (/AddrInUse|address already in use/i.test(err)) throw new PortTaken(`port ${port} was taken`);
      throw new Error(`service exited with ${exited.code} while starting:\n${err}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.ok) return service;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await service.kill();
      throw new Error(`service did not start within ${timeoutMs} ms:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `deno <args>` in the repository with `env`; returns exit code, stdout and stderr. */
export async function runDeno(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Runs an operator task (`tasks/<file>`) with `args` and `env`; returns exit code, stdout and stderr. */
export async function runTask(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return await runDeno(["run", "-A", `tasks/${file}`, ...args], env);
}

/** A provider with an office and a listing, and an app she connected (consent with scope lesen). */
export interface EventPeople {
  officeId: string;
  userId: string;
  clientId: string;
  listingId: string;
}

/** Creates the provider, office, listing, app and consent. */
export async function preparePeople(db: Db): Promise<EventPeople> {
  const suffix = crypto.randomUUID().slice(0, 8);
  const officeId = await ensureOffice(db, `Büro Zustellung ${suffix}`);
  const userId = await insertUser(db, {
    email: `zustellung-${suffix}@example.org`,
    name: "Anbieterin",
    role: "provider",
  });
  await startMembership(db, userId, officeId);
  const [listingId] = await insertListings(db, officeId, [
    { ...sampleListing(7, prng(11), Date.now()), beispiel: true, status: "published" },
  ]);
  const clientId = `app-${suffix}`;
  const now = new Date();
  await sql`insert into "oauthClient" ("id", "clientId", "redirectUris", "scopes", "name", "createdAt", "updatedAt")
    values (${clientId}, ${clientId}, ${JSON.stringify(["http://127.0.0.1:9/cb"])}::text::jsonb,
      ${JSON.stringify(["lesen", "offline_access"])}::text::jsonb, 'Zustell-App', ${now}, ${now})`
    .execute(db.kysely);
  await sql`insert into "oauthConsent" ("id", "clientId", "userId", "scopes", "createdAt", "updatedAt")
    values (${crypto.randomUUID()}, ${clientId}, ${userId},
      ${JSON.stringify(["lesen", "offline_access"])}::text::jsonb, ${now}, ${now})`.execute(db.kysely);
  return { officeId, userId, clientId, listingId: listingId! };
}

/**
 * Inserts a subscription of the app to `url` signed with `secret` (to inquiry.received unless `opts.name` names
 * another provider event); returns its id.
 */
export async function addSubscription(
  db: Db,
  p: EventPeople,
  url: string,
  secret: string,
  opts: { authSecret?: string; name?: string } = {},
): Promise<string> {
  const authSecret = opts.authSecret ?? TEST_AUTH_SECRET;
  const id = newSubscriptionId();
  const now = new Date();
  await insertSubscription(db.kysely, {
    id,
    userId: p.userId,
    clientId: p.clientId,
    server: "anbieter",
    officeId: p.officeId,
    name: opts.name ?? "inquiry.received",
    arguments: {},
    argumentsKey: "{}",
    url,
    secretEnc: await secretBox(authSecret).seal(secret),
    now,
    expiresAt: new Date(now.getTime() + 7 * 86_400_000),
  });
  return id;
}

/** Writes `n` inquiry.received events of the office into the outbox (one transaction); returns their ids. */
export async function recordInquiries(db: Db, p: EventPeople, n: number): Promise<string[]> {
  return await db.kysely.transaction().execute(async (tx: Kysely<Database>) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      ids.push(
        await writeEvent(tx, {
          name: "inquiry.received",
          data: {
            anfrage_id: crypto.randomUUID(),
            objekt_id: p.listingId,
            quelle: "service",
            satz: `Neue Anfrage Nr. ${i + 1} zu Ihrem Objekt.`,
          },
          owner: { office: p.officeId },
          origin: null,
          at: new Date(),
        }),
      );
    }
    return ids;
  });
}

/** The environment of a service child that delivers to loopback receivers on `ports`. */
export function deliveryEnv(ports: number[], caPath: string): Record<string, string> {
  return {
    AUTH_SECRET: TEST_AUTH_SECRET,
    WEBHOOK_LOOPBACK_PORTS: ports.join(","),
    WEBHOOK_CA_FILE: caPath,
    EVENTS_SWEEP_MS: "500",
    EVENTS_RETRY_DELAYS_MS: "0,300,600,900",
  };
}
