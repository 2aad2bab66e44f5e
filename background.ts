/**
 * The scheduled work of one process (DESIGN §1): viewing reminders every minute and saved-search runs every five
 * minutes, with `Deno.cron`. Every job is safe when several processes run it at once (row locks and unique keys
 * in the domain modules), so each instance may schedule them.
 */
import type { AppDeps } from "./routes/env.ts";
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
