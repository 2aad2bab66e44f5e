/**
 * `deno task bench:start`: cold start of the service against a floor measured in the same run. Each round starts a
 * process and times from the spawn to the first 200 of `GET /api/public/properties` (polled every 5 ms), then stops
 * it: the service (`main.ts` with `DATABASE_URL`, so no embedded database) and a minimal hono app
 * (`bench/minimal_hono.ts`), alternating, `BENCH_ROUNDS` times each (default 10). Prints both medians and their
 * ratio (docs/benchmarks.md §11; the goal is at most 5 ×).
 *
 * Settings: `BENCH_DATABASE_URL` (default: a throwaway cluster of its own), `BENCH_ROUNDS`.
 */
import { openDb } from "../db/connection.ts";
import { migrate } from "../db/migrate.ts";
import { freePort, startCluster } from "./pg_cluster.ts";
import { killRunning } from "./processes.ts";
import { randomSecret, serviceEnv } from "./service.ts";

const REPO = new URL("..", import.meta.url).pathname;
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "10");

function say(line: string): void {
  console.log(line);
}

/** Milliseconds from spawning `args` to the first 200 of the catalogue path; the process is stopped again. */
async function coldStart(args: string[], env: Record<string, string>): Promise<number> {
  const port = freePort();
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO,
    clearEnv: true,
    env: serviceEnv({ ...env, PORT: String(port) }),
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/public/properties`);
        await res.body?.cancel();
        if (res.status === 200) return performance.now() - t0;
      } catch { /* not listening yet */ }
      if (performance.now() - t0 > 60_000) throw new Error(`${args.join(" ")}: no 200 within 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench_start_" });
  const cluster = Deno.env.get("BENCH_DATABASE_URL")
    ? undefined
    : await startCluster({ dir: `${dir}/pg`, say });
  const url = Deno.env.get("BENCH_DATABASE_URL") ?? cluster!.url;
  try {
    const db = await openDb({ databaseUrl: url, poolSize: 1 });
    await migrate(db);
    await db.close();
    const service = {
      DATABASE_URL: url,
      AUTH_SECRET: randomSecret(),
      DATA_DIR: `${dir}/data`,
      KV_PATH: `${dir}/kv.sqlite3`,
      LOG_LEVEL: "warn",
    };
    const flags = ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys"];
    const runs = { service: [] as number[], minimal: [] as number[] };
    // One unmeasured start of each fills Deno's caches (module graph, V8 code cache), as a deployed app has them.
    await coldStart([...flags, "--allow-ffi", "main.ts"], service);
    await coldStart([...flags, "bench/minimal_hono.ts"], {});
    for (let r = 1; r <= ROUNDS; r++) {
      runs.minimal.push(await coldStart([...flags, "bench/minimal_hono.ts"], {}));
      runs.service.push(await coldStart([...flags, "--allow-ffi", "main.ts"], service));
      say(
        `round ${r}: minimal hono ${runs.minimal.at(-1)!.toFixed(0)} ms, service ${
          runs.service.at(-1)!.toFixed(0)
        } ms`,
      );
    }
    const m = median(runs.minimal), s = median(runs.service);
    say(`median of ${ROUNDS}: minimal hono ${m.toFixed(0)} ms, service ${s.toFixed(0)} ms`);
    say(`ratio service / minimal hono: ${(s / m).toFixed(2)} (goal: at most 5)`);
  } finally {
    await cluster?.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  Deno.addSignalListener("SIGINT", () => {
    killRunning();
    Deno.exit(130);
  });
  await main();
}
