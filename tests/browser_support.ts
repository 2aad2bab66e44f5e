/** Shared set-up of the real-browser tests: where Chromium is and how playwright-core is loaded under Deno. */

/** Debian's Chromium, installed by `.ci/run` when missing. */
export const CHROMIUM = "/usr/bin/chromium";
/** Whether Chromium is installed (the browser tests are ignored without it). */
export const HAVE_CHROMIUM = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();

/**
 * Loads playwright-core. At import it probes `/proc/sys/fs/binfmt_misc/WSLInterop` (is-wsl), which Deno allows
 * only with `--allow-all`; `deno task test` grants single permissions, so the import would throw. Without access
 * to /proc, the probe is skipped through is-wsl's own test switch (it then only affects playwright's `open`
 * helper for the trace viewer, which these tests do not use).
 */
export async function loadPlaywright(): Promise<typeof import("playwright-core")> {
  let procReadable = true;
  try {
    Deno.statSync("/proc/version");
  } catch {
    procReadable = false;
  }
  if (procReadable || Deno.env.has("__IS_WSL_TEST__")) return await import("playwright-core");
  Deno.env.set("__IS_WSL_TEST__", "1");
  try {
    return await import("playwright-core");
  } finally {
    Deno.env.delete("__IS_WSL_TEST__");
  }
}
