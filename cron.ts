/**
 * The top-level cron tick (docs/architecture.md §8): every minute the process's background jobs all run once.
 *
 * The new Deno Deploy finds `Deno.cron` jobs only when they are registered at module top level before the server
 * starts (not inside a function, a condition or a handler), and starts an instance for a tick when none runs. So
 * this module registers the tick when it is imported (`main.ts` imports it first) and `main.ts` hands it the work
 * once the app is ready; a tick that fires earlier waits for that. It is the one piece of module state of the
 * service, which the platform's rule requires. Tests and tasks never import it.
 */

/** The cron schedule of the tick: every minute. */
export const TICK_SCHEDULE = "* * * * *";

const ready = Promise.withResolvers<() => Promise<void>>();

Deno.cron("background tick", TICK_SCHEDULE, async () => {
  const tick = await ready.promise;
  await tick();
});

/** Gives the cron tick its work (called once, when the app is ready); a second call is ignored. */
export function onCronTick(tick: () => Promise<void>): void {
  ready.resolve(tick);
}
