/**
 * Waiting for a quiet machine before a measurement: how much CPU processes that are not the benchmark's own use
 * (from /proc, read by `cpu.ts`), and whether a `deno test` is running (from `ps`).
 */
import { type ProcSnapshot, readProc } from "./cpu.ts";

/** What other processes did during a short window. */
export interface OtherLoad {
  /** CPU of processes outside the benchmark, in percent of one core. */
  otherPct: number;
  /** The busiest of them: pid, command name and percent of one core. */
  top: Array<{ pid: number; comm: string; pct: number }>;
  /** Command lines of running `deno test` processes. */
  tests: string[];
}

async function denoTests(): Promise<string[]> {
  try {
    const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="], stdout: "piped", stderr: "null" })
      .output();
    return new TextDecoder().decode(out.stdout).split("\n").map((l) => l.trim())
      .filter((l) => /\bdeno (?:test|task (?:test|ok))\b/.test(l));
  } catch {
    return [];
  }
}

/** `roots` and every process descending from them in `snap`. */
export function descendants(snap: ProcSnapshot, roots: number[]): Set<number> {
  const children = new Map<number, number[]>();
  for (const [pid, p] of snap.procs) {
    const list = children.get(p.ppid);
    if (list) list.push(pid);
    else children.set(p.ppid, [pid]);
  }
  const out = new Set<number>();
  const stack = [...roots];
  while (stack.length) {
    const pid = stack.pop()!;
    if (out.has(pid)) continue;
    out.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Measures for `windowMs` the CPU of every process not under `ownRoots` (the benchmark, its cluster). */
export async function otherLoad(ownRoots: () => number[], windowMs = 2000): Promise<OtherLoad> {
  const a = await readProc();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const b = await readProc();
  const seconds = (performance.now() - t0) / 1000;
  const own = descendants(b, ownRoots());
  let other = 0;
  const top: OtherLoad["top"] = [];
  for (const [pid, p] of b.procs) {
    if (own.has(pid)) continue;
    const before = a.procs.get(pid)?.cpu ?? 0;
    const pct = (p.cpu - before) / seconds * 100;
    if (pct <= 0) continue;
    other += pct;
    top.push({ pid, comm: p.comm, pct });
  }
  top.sort((x, y) => y.pct - x.pct);
  return { otherPct: other, top: top.slice(0, 3), tests: await denoTests() };
}

/** Options of {@linkcode waitQuiet}. */
export interface QuietOptions {
  /** Pids whose process trees are the benchmark's own. */
  ownRoots: () => number[];
  /** Give up waiting after this many seconds and measure anyway. */
  maxWaitS: number;
  /** Quiet means: other processes use less than this, in percent of one core, and no `deno test` runs. */
  thresholdPct?: number;
  /** Progress lines. */
  say: (line: string) => void;
}

/** Waits (up to `maxWaitS`) until the machine is quiet; returns the last reading and the seconds waited. */
export async function waitQuiet(
  o: QuietOptions,
): Promise<{ load: OtherLoad; waitedS: number; quiet: boolean }> {
  const threshold = o.thresholdPct ?? 25;
  const t0 = performance.now();
  let announced = false;
  for (;;) {
    const load = await otherLoad(o.ownRoots);
    const waitedS = (performance.now() - t0) / 1000;
    const quiet = load.otherPct < threshold && load.tests.length === 0;
    if (quiet || waitedS >= o.maxWaitS) {
      if (!quiet) {
        o.say(
          `  machine still busy after ${waitedS.toFixed(0)} s (${describe(load)}): measuring anyway`,
        );
      } else if (announced) o.say(`  quiet after ${waitedS.toFixed(0)} s`);
      return { load, waitedS, quiet };
    }
    if (!announced) {
      o.say(`  waiting for a quiet machine (${describe(load)}; up to ${o.maxWaitS} s)`);
      announced = true;
    }
    await new Promise((r) => setTimeout(r, 3000));
  }
}

/** "others 130% of a core (deno 95%, postgres 20%); deno test running: …". */
export function describe(load: OtherLoad): string {
  const top = load.top.filter((t) => t.pct >= 1).map((t) => `${t.comm} ${t.pct.toFixed(0)}%`).join(", ");
  const tests = load.tests.length ? `; deno test running: ${load.tests[0]!.slice(0, 80)}` : "";
  return `others ${load.otherPct.toFixed(0)}% of a core${top ? ` (${top})` : ""}${tests}`;
}
