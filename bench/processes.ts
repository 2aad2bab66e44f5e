/** Child processes of the benchmark: one-shot commands, and long-running children that log to a file. */

/** Where and with what environment a child runs. */
export interface SpawnOptions {
  /** Extra environment variables (the only ones with `clearEnv`). */
  env?: Record<string, string>;
  /** Start from an empty environment instead of this process's. */
  clearEnv?: boolean;
  /** Working folder. */
  cwd?: string;
}

/** Options of {@linkcode run}. */
export interface RunOptions extends SpawnOptions {
  /** Called with the process id once the command has started. */
  onSpawn?: (pid: number) => void;
}

/** Spawns `cmd` with no stdin and piped stdout and stderr. */
function spawnPiped(cmd: string, args: string[], opts: SpawnOptions): Deno.ChildProcess {
  return new Deno.Command(cmd, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.clearEnv ? { clearEnv: true } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  }).spawn();
}

/** One-shot commands still running (killed by {@linkcode killRunning} when the benchmark is interrupted). */
const running = new Set<Deno.ChildProcess>();

/** Sends SIGTERM to every command started by {@linkcode run} that has not finished yet. */
export function killRunning(): void {
  for (const child of running) {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
  }
}

/** Runs a command to completion and returns its stdout; throws with its stderr when it fails. */
export async function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const child = spawnPiped(cmd, args, opts);
  running.add(child);
  let out: Deno.CommandOutput;
  try {
    opts.onSpawn?.(child.pid);
    out = await child.output();
  } finally {
    running.delete(child);
  }
  const dec = new TextDecoder();
  if (!out.success) {
    const err = dec.decode(out.stderr).trim().split("\n").slice(-15).join("\n");
    throw new Error(`${cmd} ${args.join(" ")} failed (exit ${out.code}):\n${err}`);
  }
  return dec.decode(out.stdout);
}

/** Runs a command to completion, discarding its stdout; throws with its stderr when it fails. */
export async function runQuiet(cmd: string, args: string[], opts: RunOptions = {}): Promise<void> {
  await run(cmd, args, opts);
}

/** Whether `cmd` can be found on the PATH. */
export async function onPath(cmd: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return out.code !== 127;
  } catch {
    return false;
  }
}

/** A long-running child whose stdout and stderr go to a log file. */
export interface Child {
  /** Process id. */
  readonly pid: number;
  /** Path of the log file. */
  readonly logPath: string;
  /** Resolves when the process exits. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Whether it has exited. */
  exited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
  /** The last `lines` lines of its log. */
  tail(lines?: number): Promise<string>;
}

/** Spawns `cmd` with its output appended to `logPath`. */
export async function spawnLogged(
  cmd: string,
  args: string[],
  logPath: string,
  opts: SpawnOptions = {},
): Promise<Child> {
  const log = await Deno.open(logPath, { create: true, append: true });
  const child = spawnPiped(cmd, args, opts);
  const sink = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) await log.write(chunk);
  };
  const pumps = Promise.all([sink(child.stdout), sink(child.stderr)]).catch(() => {});
  let done = false;
  const status = child.status.then(async (s) => {
    done = true;
    await pumps;
    log.close();
    return s;
  });
  return {
    pid: child.pid,
    logPath,
    status,
    exited: () => done,
    async stop(graceMs = 5000) {
      if (done) return;
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const killed = await Promise.race([
        status.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
      ]);
      clearTimeout(timer);
      if (killed) {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
        await status;
      }
    },
    async tail(lines = 20) {
      try {
        return (await Deno.readTextFile(logPath)).trimEnd().split("\n").slice(-lines).join("\n");
      } catch {
        return "";
      }
    },
  };
}
