/**
 * The background work of one process (docs/architecture.md §8): the jobs of the job engine (`jobs/engine.ts`) with
 * the domain function each runs. Every job claims its due rows in Postgres with a lease, so any number of
 * instances run them at once and each piece of work is done by whichever instance comes first; the engine wakes
 * them through Postgres notifications, due times, an idle poll and the top-level cron tick (`cron.ts`).
 */
import type { AppDeps } from "./deps.ts";
import { claimScheduledRun, JOBS_CHANNEL, nextDueAt } from "./db/jobs.ts";
import { processDueDocuments } from "./documents/processing.ts";
import { releaseFiles } from "./db/files.ts";
import { handBackDeliveries, sendDueAttempts, sendTerminations, startDrain } from "./events/delivery.ts";
import { handBackMails, sendDueMails } from "./auth/mail.ts";
import type { Job, JobEngine, JobSource } from "./jobs/engine.ts";
import { runSavedSearches } from "./searches/saved_searches.ts";
import { runViewingReminders } from "./viewings/reminders.ts";

/** Period of the viewing reminders (viewing.upcoming): every minute. */
export const REMINDER_PERIOD_MS = 60_000;
/** Period of the saved-search runs (matches.new): every five minutes. */
export const SAVED_SEARCH_PERIOD_MS = 5 * 60_000;
/** How long a stopping process waits for running jobs before it gives back what it holds. */
export const STOP_GRACE_MS = 2_000;

/** The running background work of one app. */
export interface Background {
  /** Runs every job now (the cron tick). */
  tick(): Promise<void>;
  /** Stops: waits up to `graceMs` (default {@linkcode STOP_GRACE_MS}) for running jobs, then hands back. */
  stop(graceMs?: number): Promise<void>;
}

/** The jobs of `deps`' app; `held` collects what is being worked on, for the hand-back at stop. */
export function backgroundJobs(deps: AppDeps, held: { files: Set<string>; mails: Set<string> }): Job[] {
  return [
    // The drain's run ends once everything is claimed; its sending goes on (and a stop waits for it).
    { name: "outbox", run: async () => deps.jobs!.track((await startDrain(deps)).sent) },
    { name: "attempt", run: () => sendDueAttempts(deps) },
    { name: "terminate", run: () => sendTerminations(deps) },
    { name: "document", run: () => processDueDocuments(deps, held.files) },
    { name: "mail", run: () => sendDueMails(deps, held.mails) },
    {
      name: "schedule",
      run: async () => {
        await scheduled(deps, "viewing_reminders", REMINDER_PERIOD_MS, () => runViewingReminders(deps));
        await scheduled(deps, "saved_searches", SAVED_SEARCH_PERIOD_MS, () => runSavedSearches(deps));
      },
    },
  ];
}

/** Runs `run` if the periodic run `name` is due and this instance claimed it for the period. */
async function scheduled(deps: AppDeps, name: string, periodMs: number, run: () => Promise<unknown>) {
  if (!await claimScheduledRun(deps.db, name, new Date(), periodMs)) return;
  const result = await run();
  deps.log.log("debug", "periodic run done", { job: name, result });
}

/** The database as the job engine sees it: wake-ups on {@linkcode JOBS_CHANNEL}, and the next due time. */
export function jobSource(deps: Pick<AppDeps, "db">): JobSource {
  return {
    listen: (onWake, onListen) => deps.db.listen(JOBS_CHANNEL, onWake, onListen),
    nextDueAt: () => nextDueAt(deps.db),
  };
}

/**
 * Starts the background work of `deps`' app on its job engine (`deps.jobs`): every job runs once at once (what a
 * stopped instance left is taken over), then as the engine wakes it. `pollMs` bounds the time between two runs of
 * every job (default `EVENTS_SWEEP_MS`).
 */
export async function startBackground(deps: AppDeps, opts: { pollMs?: number } = {}): Promise<Background> {
  const engine: JobEngine = deps.jobs!;
  const held = { files: new Set<string>(), mails: new Set<string>() };
  engine.onHandBack(() => handBackDeliveries(deps));
  engine.onHandBack(() => releaseFiles(deps.db, [...held.files]));
  engine.onHandBack(() => handBackMails(deps, held.mails));
  await engine.start(backgroundJobs(deps, held), jobSource(deps), {
    pollMs: opts.pollMs ?? deps.config.eventsSweepMs,
  });
  return {
    tick: () => engine.tick(),
    stop: (graceMs = STOP_GRACE_MS) => engine.stop(graceMs),
  };
}
