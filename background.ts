/**
 * The background work of one process: the job queue's listener, with a handler for each kind of message (event
 * delivery, document reading) and the periodic sweep (docs/architecture.md, "Background work"); and the scheduled
 * jobs, viewing reminders every minute and saved-search runs every five minutes, with `Deno.cron`. Every job is
 * safe when several processes run it at once (row locks, leases and unique keys in the domain modules), so each
 * instance may run them.
 */
import type { AppDeps } from "./deps.ts";
import { processDocument, sweepDocuments } from "./documents/processing.ts";
import { attempt, drain, sendTerminations, sweep } from "./events/delivery.ts";
import { ATTEMPT_TIMEOUT_MS, eventRuntimeOf } from "./events/runtime.ts";
import { sendDueMails } from "./auth/mail.ts";
import { runSavedSearches } from "./searches/saved_searches.ts";
import { runViewingReminders } from "./viewings/reminders.ts";

/** Cron schedule of the viewing reminders (viewing.upcoming). */
export const REMINDER_SCHEDULE = "* * * * *";
/** Cron schedule of the saved-search runs (matches.new). */
export const SAVED_SEARCH_SCHEDULE = "*/5 * * * *";

/** Runs `job`, logging its result or its failure; never throws (a failed run is retried by the next tick). */
async function logged(deps: AppDeps, name: string, job: () => Promise<unknown>): Promise<void> {
  try {
    const result = await job();
    deps.log.log("debug", "background job done", { job: name, result });
  } catch (err) {
    deps.log.log("error", "background job failed", {
      job: name,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** Schedules the background jobs of this process. */
export function startBackground(deps: AppDeps): void {
  Deno.cron(
    "viewing reminders",
    REMINDER_SCHEDULE,
    () => logged(deps, "viewing reminders", () => runViewingReminders(deps)),
  );
  Deno.cron(
    "saved searches",
    SAVED_SEARCH_SCHEDULE,
    () => logged(deps, "saved searches", () => runSavedSearches(deps)),
  );
}

/**
 * Starts this process's job queue listener (outbox drains, delivery attempts, owed terminations, documents, due
 * mails) and the periodic sweep (which also sends the mail retries that are due); returns a stopper that waits
 * (at most one attempt's time) for running jobs.
 */
export function startJobs(deps: AppDeps): { stop(): Promise<void> } {
  return eventRuntimeOf(deps).jobs.listen({
    drain: () => drain(deps),
    attempt: (d, n) => attempt(deps, d, n),
    terminate: () => sendTerminations(deps),
    document: (id) => processDocument(deps, id),
    mail: () => sendDueMails(deps),
    sweep: () => Promise.all([sweep(deps), sweepDocuments(deps), sendDueMails(deps)]),
  }, { sweepMs: deps.config.eventsSweepMs, graceMs: ATTEMPT_TIMEOUT_MS + 1_000 });
}
