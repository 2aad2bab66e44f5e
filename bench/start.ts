/**
 * `deno task bench:start`: cold start of the service against a floor measured in the same run. Each round starts a
 * process and times from the spawn to the first 200 of `GET /api/public/properties` (polled every 5 ms), then stops
 * it: the service (`main.ts` with `DATABASE_URL`, so no embedded database) and a minimal hono app
 * (`bench/minimal_hono.ts`), alternating, `BENCH_ROUNDS` times each (default 10). Prints both medians and their
 * ratio (docs/benchmarks.md §11; the goal is at most 5 ×).
 *
 * Settings: `BENCH_DATABASE_URL` (default: a throwaway cluster of its own, kept in `BENCH_PG_DIR` when set),
 * `BENCH_ROUNDS`.
 */
import { benchDatabase } from "./database.ts";
import { atCleanup, intSetting, runBenchmark, say, workFolder } from "./harness.ts";
import { freePort } from "./pg_cluster.ts";
import { randomSecret, serviceEnv } from "./service.ts";
import { median } from "./stats.ts";

const REPO = new URL("..", import.meta.url).pathname;
const ROUNDS = intSetting("BENCH_ROUNDS", 10, 1);

/** The process of the start being timed (stopped by the cleanup when the benchmark is interrupted). */
let starting: Deno.ChildProcess | undefined;

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
  starting = child;
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
    starting = undefined;
  }
}

async function main(): Promise<void> {
  const dir = await workFolder("bench_start_");
  const { url } = await benchDatabase({ workdir: dir });
  atCleanup(() => starting?.kill("SIGKILL"));
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
}

if (import.meta.main) await runBenchmark(main);
