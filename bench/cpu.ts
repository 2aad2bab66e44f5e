/**
 * CPU accounting from /proc (Linux): how much CPU each group of processes (service, Postgres, wrk) used during a
 * measured run, in percent of one core, so the report can say where the time went.
 *
 * Deno reads /proc only with --allow-all, so the samples come from `cat` (the task has --allow-run).
 */

const TICKS_PER_SECOND = 100;

/** One process (or thread) in a reading of /proc. */
export interface ProcStat {
  /** Process id. */
  pid: number;
  /** Command name (e.g. `postgres`, `deno`). */
  comm: string;
  /** Parent's process id. */
  ppid: number;
  /** CPU seconds, user + system (for a process: all its threads). */
  cpu: number;
  /** CPU seconds of its reaped children. */
  reaped: number;
}

/** One reading of /proc: the machine's CPU ticks and every process's parent and CPU seconds. */
export interface ProcSnapshot {
  /** Busy and total ticks of all cores since boot. */
  machine: { busy: number; total: number };
  /** Process id → its figures. */
  procs: Map<number, ProcStat>;
}

/** Parses one `/proc/<pid>/stat` (or `/proc/<pid>/task/<tid>/stat`) line; undefined for anything else. */
export function parseStat(line: string): ProcStat | undefined {
  const m = /^([0-9]+) \((.*)\) /.exec(line);
  if (!m) return undefined;
  // the fields after the command name (which may hold spaces and parentheses) start after the last ')'
  const f = line.slice(line.lastIndexOf(")") + 2).split(" ");
  return {
    pid: Number(m[1]),
    comm: m[2]!,
    ppid: Number(f[1]),
    cpu: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND,
    reaped: (Number(f[13]) + Number(f[14])) / TICKS_PER_SECOND,
  };
}

/** Parses `/proc/stat` followed by any number of `/proc/<pid>/stat` lines. */
export function parseProc(text: string): ProcSnapshot {
  const procs = new Map<number, ProcStat>();
  let machine = { busy: 0, total: 0 };
  for (const line of text.split("\n")) {
    if (line.startsWith("cpu ")) {
      const v = line.trim().split(/\s+/).slice(1).map(Number);
      const total = v.reduce((a, b) => a + b, 0);
      machine = { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total };
      continue;
    }
    const p = parseStat(line);
    if (p) procs.set(p.pid, p);
  }
  return { machine, procs };
}

/** The output of a shell script that reads /proc files (`cat`, since Deno reads /proc only with --allow-all). */
export async function procText(script: string): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Reads /proc once. */
export async function readProc(): Promise<ProcSnapshot> {
  return parseProc(await procText("cat /proc/stat; cat /proc/[0-9]*/stat 2>/dev/null; true"));
}

/** `pid` and its children in a snapshot. */
export function withChildren(snap: ProcSnapshot, pid: number): number[] {
  const out = [pid];
  for (const [p, info] of snap.procs) if (info.ppid === pid) out.push(p);
  return out;
}

/** The postmaster's pid of a cluster data folder, or undefined when it is not running. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(Deno.readTextFileSync(`${dataDir}/postmaster.pid`).split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** CPU used per group over a measured window, in percent of one core (`machine`: every process on the host). */
export type CpuUse = Record<string, number>;

/** A group of processes to account for. */
export interface CpuGroup {
  /** The group's current pids in a snapshot (called at every sample). */
  pids: (snap: ProcSnapshot) => number[];
  /**
   * The parent that reaps the group's short-lived members (the postmaster for parallel workers): members that exit
   * during the run are counted through its children's CPU instead of their last sample.
   */
  reaper?: (snap: ProcSnapshot) => number | undefined;
}

/** Samples the CPU time of groups of processes while a run is going on. */
export class CpuMeter {
  readonly #groups: Record<string, CpuGroup>;
  readonly #first = new Map<number, number>();
  readonly #last = new Map<number, number>();
  readonly #members = new Map<string, Set<number>>();
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  #t0 = 0;
  #m0 = { busy: 0, total: 0 };
  #m1 = { busy: 0, total: 0 };
  readonly #reaped0 = new Map<string, { pid: number; reaped: number }>();
  readonly #reaped1 = new Map<string, number>();

  /** `groups` maps a name to the group's processes. */
  constructor(groups: Record<string, CpuGroup>) {
    this.#groups = groups;
  }

  #take(snap: ProcSnapshot, initial: boolean): void {
    this.#m1 = snap.machine;
    for (const [name, group] of Object.entries(this.#groups)) {
      const set = this.#members.get(name) ?? new Set<number>();
      this.#members.set(name, set);
      const reaper = group.reaper?.(snap);
      const r = reaper === undefined ? undefined : snap.procs.get(reaper);
      if (r && reaper !== undefined) {
        if (initial) this.#reaped0.set(name, { pid: reaper, reaped: r.reaped });
        if (this.#reaped0.get(name)?.pid === reaper) this.#reaped1.set(name, r.reaped);
      }
      for (const pid of group.pids(snap)) {
        const p = snap.procs.get(pid);
        if (!p) continue;
        set.add(pid);
        // a process first seen after the start was born during the window: it counts from zero
        if (!this.#first.has(pid)) this.#first.set(pid, initial ? p.cpu : 0);
        this.#last.set(pid, p.cpu);
      }
    }
  }

  /** Takes the first sample, then samples every `everyMs` until {@linkcode stop}. */
  async start(everyMs = 250): Promise<void> {
    const snap = await readProc();
    this.#t0 = performance.now();
    this.#m0 = snap.machine;
    this.#take(snap, true);
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        await new Promise((r) => setTimeout(r, everyMs));
        if (this.#running) this.#take(await readProc(), false);
      }
    })();
  }

  /** Stops sampling and returns each group's CPU use (and the whole machine's) in percent of one core. */
  async stop(): Promise<CpuUse> {
    this.#running = false;
    await this.#loop;
    const final = await readProc();
    this.#take(final, false);
    const seconds = (performance.now() - this.#t0) / 1000;
    const out: CpuUse = {};
    for (const [name, set] of this.#members) {
      const reaped0 = this.#reaped0.get(name);
      let cpu = reaped0 ? (this.#reaped1.get(name) ?? reaped0.reaped) - reaped0.reaped : 0;
      for (const pid of set) {
        // with a reaper, members gone by now are in its children's CPU already
        if (reaped0 && !final.procs.has(pid)) continue;
        cpu += (this.#last.get(pid) ?? 0) - (this.#first.get(pid) ?? 0);
      }
      out[name] = (cpu / seconds) * 100;
    }
    const cores = navigator.hardwareConcurrency;
    out.machine = ((this.#m1.busy - this.#m0.busy) / Math.max(1, this.#m1.total - this.#m0.total)) * cores *
      100;
    return out;
  }
}

/**
 * A meter of a load run's groups: `target` (the process under load), `loader` (the load generator) and `postgres`
 * (the postmaster of the throwaway cluster in `pgDataDir` and its children; none on `BENCH_DATABASE_URL`).
 */
export function loadMeter(
  pgDataDir: string | undefined,
  target: () => number[],
  loader: () => number[],
): CpuMeter {
  const postmaster = () => (pgDataDir ? postmasterPid(pgDataDir) : undefined);
  return new CpuMeter({
    target: { pids: target },
    loader: { pids: loader },
    postgres: {
      pids: (snap) => {
        const pm = postmaster();
        return pm ? withChildren(snap, pm) : [];
      },
      reaper: postmaster,
    },
  });
}

/** Runs `fn` while `meter` samples; returns its value and the CPU use. */
export async function metered<T>(meter: CpuMeter, fn: () => Promise<T>): Promise<{ value: T; cpu: CpuUse }> {
  await meter.start();
  let value: T;
  try {
    value = await fn();
  } catch (e) {
    await meter.stop();
    throw e;
  }
  return { value, cpu: await meter.stop() };
}

/** The benchmark's own process trees: this process (children included) and the cluster's postmaster. */
export function ownRoots(pgDataDir: string | undefined): number[] {
  const pm = pgDataDir ? postmasterPid(pgDataDir) : undefined;
  return pm ? [Deno.pid, pm] : [Deno.pid];
}

/** CPU of a run that none of the watched groups accounts for (kernel network work, anything else on the host). */
export function otherCpu(c: CpuUse): number {
  return Math.max(0, (c.machine ?? 0) - (c.target ?? 0) - (c.postgres ?? 0) - (c.loader ?? 0));
}

/** CPU time so far, in ms: this process's JavaScript thread, the whole process, and every Postgres process. */
export interface SelfCpu {
  /** The main (JavaScript) thread of this process. */
  main: number;
  /** This process, all threads. */
  process: number;
  /** All processes named `postgres` on this machine. */
  postgres: number;
}

/** Reads {@linkcode SelfCpu} from /proc; throws where /proc cannot be read. */
export async function selfCpu(): Promise<SelfCpu> {
  const pid = Deno.pid;
  const text = await procText(
    `cat /proc/${pid}/task/${pid}/stat /proc/${pid}/stat; cat /proc/[0-9]*/stat 2>/dev/null | grep '(postgres)'`,
  );
  const [main, whole, ...postgres] = text.trim().split("\n").map(parseStat);
  if (!main || !whole) throw new Error("no /proc stat of this process");
  const ms = (p: ProcStat | undefined) => (p?.cpu ?? 0) * 1000;
  return { main: ms(main), process: ms(whole), postgres: postgres.reduce((sum, p) => sum + ms(p), 0) };
}
