/**
 * The background job engine of one process (docs/architecture.md §8). Postgres holds every job as a row with a due
 * time; each kind of job is a {@linkcode Job} whose `run` claims what is due (`for update skip locked` or a
 * conditional update, with a lease) and works it off, so any number of instances may run the same jobs at once.
 *
 * A job runs when:
 * - a commit that created its work notifies the channel `jobs` (triggers of migration 0023; every listening
 *   instance hears it, the first to claim does the work),
 * - its locally known due time comes ({@linkcode JobEngine.dueAt}: a retry this process scheduled),
 * - the next due time read from the database comes (read whenever the engine falls idle),
 * - the idle poll fires (at most `pollMs` apart, whatever happened),
 * - the process starts, and every time the top-level cron tick calls {@linkcode JobEngine.tick}.
 * A job asked to run while it runs runs once more afterwards; runs of one job never overlap in one process.
 *
 * Nothing here depends on a KV queue: the new Deno Deploy and KV Connect have none.
 */
import type { Logger } from "../log.ts";

/** One kind of background work. */
export interface Job {
  /** The kind's name: also the payload of its wake-up notifications (migration 0023). */
  name: string;
  /** Claims and works off what is due now; resolves when nothing more is claimable at the moment. */
  run(): Promise<unknown>;
}

/** What the engine needs from the database. */
export interface JobSource {
  /** Calls `onWake(kind)` for every notification on `jobs`, and `onListen` whenever the listener (re)connects. */
  listen(onWake: (kind: string) => void, onListen: () => void): Promise<{ close(): Promise<void> }>;
  /** The earliest time any job is due, or null when nothing waits. */
  nextDueAt(): Promise<Date | null>;
}

/** Options of {@linkcode JobEngine.start}. */
export interface EngineOptions {
  /** Longest time between two runs of every job, however quiet (the idle poll). */
  pollMs: number;
}

/** Shortest pause between two reads of the next due time. */
const NEXT_DUE_EVERY_MS = 1_000;
/** Longest single timer (setTimeout takes 32-bit milliseconds). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface JobState {
  job: Job;
  running: Promise<void> | undefined;
  again: boolean;
}

/** Runs the background jobs of one process; see the module comment. */
export class JobEngine {
  readonly #log: Logger;
  #states: JobState[] = [];
  #source: JobSource | undefined;
  #listener: { close(): Promise<void> } | undefined;
  #pollMs = 15_000;
  #started = false;
  #stopped = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  #nextDueReadAt = 0;
  #readingNextDue = false;
  #ready = Promise.withResolvers<void>();
  readonly #handBacks: Array<() => Promise<unknown>> = [];
  /** Work a job started and left running (e.g. a drain's sending): a stop waits for it too. */
  readonly #tracked = new Set<Promise<unknown>>();

  /** An engine that runs nothing until {@linkcode JobEngine.start}. */
  constructor(log: Logger) {
    this.#log = log;
  }

  /** Whether the engine runs jobs (started and not stopped). */
  get running(): boolean {
    return this.#started && !this.#stopped;
  }

  /**
   * Starts running `jobs` over `source`: listens for wake-ups, runs every job once, then as described in the
   * module comment. Calling it twice throws.
   */
  async start(jobs: readonly Job[], source: JobSource, opts: EngineOptions): Promise<void> {
    if (this.#started) throw new Error("the job engine was started already");
    this.#started = true;
    this.#states = jobs.map((job) => ({ job, running: undefined, again: false }));
    this.#source = source;
    this.#pollMs = opts.pollMs;
    this.#ready.resolve();
    try {
      // Listening (and every reconnection) runs every job: what was missed meanwhile is picked up.
      this.#listener = await source.listen((kind) => this.wake(kind), () => this.wake());
    } catch (err) {
      this.#log.log("warn", "job wake-ups are not heard; jobs run on the poll and the cron tick only", {
        error: (err as Error).message,
      });
      this.wake();
    }
  }

  /** Runs every job now (or once more after its current run); what the cron tick calls. Waits for a start. */
  async tick(): Promise<void> {
    await this.#ready.promise;
    if (this.#stopped) return;
    await Promise.all(this.#states.map((s) => this.#request(s)));
  }

  /** Asks the jobs named `kind` (all jobs without a kind) to run now, or once more after their current run. */
  wake(kind?: string): void {
    if (!this.running) return;
    const states = kind === undefined ? this.#states : this.#states.filter((s) => s.job.name === kind);
    for (const s of states.length ? states : this.#states) void this.#request(s);
  }

  /** Tells the engine that work becomes due at `at` (e.g. a retry this process scheduled): every job runs then. */
  dueAt(at: Date): void {
    if (!this.running) return;
    this.#arm(at.getTime());
  }

  /** Waits for `work` (started by a job that returned before it ended) when stopping, like for a running job. */
  track(work: Promise<unknown>): void {
    const settled = work.catch(() => {}).finally(() => this.#tracked.delete(settled));
    this.#tracked.add(settled);
  }

  /** Registers `fn`, run once when the engine stops, to give back work this process still holds (its leases). */
  onHandBack(fn: () => Promise<unknown>): void {
    this.#handBacks.push(fn);
  }

  /**
   * Stops: no job starts any more; waits up to `graceMs` for running ones, then gives back what is still held
   * (the hand-back functions), so another instance takes it over at once instead of after its lease. Calling it
   * again does nothing.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#ready.resolve();
    clearTimeout(this.#timer);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.close().catch(() => {});
    let limit: ReturnType<typeof setTimeout> | undefined;
    const running = [...this.#states.flatMap((s) => s.running ? [s.running] : []), ...this.#tracked];
    await Promise.race([
      Promise.allSettled(running),
      new Promise((r) => (limit = setTimeout(r, graceMs))),
    ]);
    clearTimeout(limit);
    for (const handBack of this.#handBacks) {
      await handBack().catch((err) =>
        this.#log.log("warn", "handing back held work failed; its lease runs out instead", {
          error: (err as Error).message,
        })
      );
    }
  }

  /** Starts a run of `s` (or notes one more run after the current one); resolves when that run ended. */
  #request(s: JobState): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (s.running) {
      s.again = true;
      return s.running;
    }
    s.running = this.#loop(s).finally(() => {
      s.running = undefined;
      this.#idle();
    });
    return s.running;
  }

  async #loop(s: JobState): Promise<void> {
    do {
      s.again = false;
      try {
        await s.job.run();
      } catch (err) {
        this.#log.log("error", "background job failed", { job: s.job.name, error: (err as Error).message });
      }
    } while (s.again && !this.#stopped);
  }

  /** When no job runs any more: arms the timer for the next due time read from the database (at most 1/s). */
  #idle(): void {
    if (this.#stopped) return;
    this.#arm(Date.now() + this.#pollMs);
    if (this.#states.some((s) => s.running) || this.#readingNextDue) return;
    const wait = this.#nextDueReadAt + NEXT_DUE_EVERY_MS - Date.now();
    if (wait > 0) {
      this.#arm(Date.now() + wait);
      return;
    }
    this.#readingNextDue = true;
    this.#nextDueReadAt = Date.now();
    this.#source!.nextDueAt()
      .then((at) => {
        if (at) this.#arm(Math.max(at.getTime(), Date.now() + 1));
      })
      .catch((err) =>
        this.#log.log("warn", "reading the next due job failed", { error: (err as Error).message })
      )
      .finally(() => this.#readingNextDue = false);
  }

  /** Makes every job run at `atMs` (machine time) unless the timer fires earlier already. */
  #arm(atMs: number): void {
    if (this.#stopped || atMs >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = atMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.wake();
      this.#arm(Date.now() + this.#pollMs);
    }, Math.min(MAX_TIMER_MS, Math.max(0, atMs - Date.now())));
  }
}
