/**
 * Step 5 of `bench:events`: delivery throughput with one instance and with several on the same Postgres. The
 * benchmark's own process is one instance (its job engine drains); `extra` service processes (`main.ts`) on the
 * same database are the others. Each round measures this instance alone, then starts the extra instances (stopped
 * with SIGTERM after the round) and measures all of them, each with `measure` (deliveries/s of N events triggered
 * in this process).
 * The wake-ups reach every instance through Postgres; whichever claims an event first sends it.
 */
import { say } from "./harness.ts";
import type { Child } from "./processes.ts";
import { spawnService } from "./service.ts";

/** Options of {@linkcode compareInstances}. */
export interface InstanceOptions {
  /** The service environment of the extra instances (database, secret, webhook settings). */
  env: Record<string, string>;
  /** How many service processes besides this one. */
  extra: number;
  /** Rounds of each kind. */
  rounds: number;
  /** One throughput measurement in deliveries/s. */
  measure: () => Promise<number>;
  /** Folder for the instances' logs. */
  workdir: string;
}

/** Deliveries/s of each round with this instance alone (`one`) and with every instance running (`all`). */
export async function compareInstances(o: InstanceOptions): Promise<{ one: number[]; all: number[] }> {
  const one: number[] = [], all: number[] = [];
  for (let r = 1; r <= o.rounds; r++) {
    one.push(await o.measure());
    const children = await startInstances(o, r);
    try {
      all.push(await o.measure());
    } finally {
      for (const c of children) await c.stop();
    }
    say(
      `instances round ${r}: 1 instance ${one.at(-1)!.toFixed(0)}, ${o.extra + 1} instances ${
        all.at(-1)!.toFixed(0)
      } deliveries/s`,
    );
  }
  return { one, all };
}

/** Starts the extra instances and waits until each answers /healthz. */
async function startInstances(o: InstanceOptions, round: number): Promise<Child[]> {
  const children: Child[] = [];
  try {
    for (let i = 0; i < o.extra; i++) {
      const log = `${o.workdir}/instance-${i + 2}-round-${round}.log`;
      children.push((await spawnService(o.env, log)).child);
    }
    return children;
  } catch (err) {
    for (const c of children) await c.stop();
    throw err;
  }
}
