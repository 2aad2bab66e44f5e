/**
 * The process plumbing every benchmark shares: progress lines with the seconds since start, settings read from
 * `BENCH_*` variables, cleanup steps that run last-in first-out on success, on error and on SIGINT/SIGTERM, a
 * working folder removed by that cleanup, and the main wrapper that ties them together.
 */
import { killRunning } from "./processes.ts";

const started = performance.now();

/** Seconds since this benchmark process started. */
export function elapsedS(): number {
  return (performance.now() - started) / 1000;
}

/** Prints a progress line with the seconds since start: `[  12.3s] line`. */
export function say(line: string): void {
  console.log(`[${elapsedS().toFixed(1).padStart(6)}s] ${line}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Settings

/** A `BENCH_*` variable that is set and not empty, else undefined. */
export function textSetting(name: string): string | undefined {
  return Deno.env.get(name) || undefined;
}

/** A whole-number setting of at least `min` (`dflt` when unset or empty); throws on anything else. */
export function intSetting(name: string, dflt: number, min: number): number {
  const raw = textSetting(name);
  if (raw === undefined) return dflt;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be a whole number >= ${min}`);
  return v;
}

/** One of `choices` (the first when unset or empty); throws on anything else. */
export function choiceSetting<T extends string>(name: string, choices: readonly [T, ...T[]]): T {
  const raw = textSetting(name) ?? choices[0];
  if (!(choices as readonly string[]).includes(raw)) {
    throw new Error(`${name} must be ${choices.join(" or ")}`);
  }
  return raw as T;
}

/** `BENCH_KV`: where a service child keeps Deno KV, a file in the working folder (default) or memory. */
export function kvSetting(): "file" | "memory" {
  return choiceSetting("BENCH_KV", ["file", "memory"]);
}

// ---------------------------------------------------------------------------------------------------------------
// Cleanup

const cleanups: Array<() => unknown> = [];
let interrupted = false;

/**
 * Registers a cleanup step (stopping a child, a cluster, removing a folder). Steps run last-in first-out; a step
 * registered after an interrupt (a child spawned while the cleanup ran) runs at once.
 */
export function atCleanup(step: () => unknown): void {
  if (interrupted) void Promise.resolve().then(step).catch(() => {});
  else cleanups.push(step);
}

/** Runs every registered cleanup step, last first; a failing step is reported and the others still run. */
export async function cleanup(): Promise<void> {
  while (cleanups.length) {
    const step = cleanups.pop()!;
    try {
      await step();
    } catch (e) {
      console.error(`cleanup: ${e instanceof Error ? e.message : e}`);
    }
  }
}

/** Throws once SIGINT/SIGTERM arrived, so that a long main flow stops at its next stage. */
export function checkInterrupted(): void {
  if (interrupted) throw new Error("interrupted");
}

function onSignal(): void {
  if (interrupted) return;
  interrupted = true;
  console.error("\ninterrupted: stopping children and the cluster");
  killRunning();
  cleanup().finally(() => Deno.exit(130));
}

/**
 * Runs a benchmark's `main`: SIGINT and SIGTERM stop every child and run the cleanup; an error is printed with its
 * stack; the cleanup runs in any case, and the process exits with 0 (done), 1 (failed) or 130 (interrupted).
 */
export async function runBenchmark(main: () => Promise<void>): Promise<void> {
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  let code = 0;
  try {
    await main();
  } catch (e) {
    // after an interrupt the main flow fails on its killed children: the signal handler reports and exits
    if (!interrupted) console.error(`\nbenchmark failed: ${e instanceof Error ? e.stack ?? e.message : e}`);
    code = 1;
  } finally {
    if (!interrupted) {
      say("cleaning up");
      await cleanup();
      say(`done in ${elapsedS().toFixed(0)} s`);
    }
  }
  if (!interrupted) Deno.exit(code);
}

// ---------------------------------------------------------------------------------------------------------------
// Working folder and the machine

/**
 * A temporary working folder (`prefix` + random), readable by all (the cluster runs as `postgres`), removed by the
 * cleanup unless `keep`.
 */
export async function workFolder(prefix: string, opts: { keep?: boolean } = {}): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  await Deno.chmod(dir, 0o755);
  if (!opts.keep) atCleanup(() => Deno.remove(dir, { recursive: true }));
  return dir;
}

/** The load averages over 1, 5 and 15 minutes, e.g. "2.01 1.93 2.21" ("?" where the platform has none). */
export function loadAverage(): string {
  try {
    return Deno.loadavg().map((v) => v.toFixed(2)).join(" ");
  } catch {
    return "?";
  }
}

/** "deno 2.9.6, 2 cores": what the figures were measured with, for a benchmark's first line. */
export function platform(): string {
  return `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
}
