/**
 * Shared set-up of the real-browser tests: where Chromium is, how playwright-core is loaded under Deno, and how
 * Chromium is started.
 */
import type { Browser, Locator, Page } from "playwright-core";

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
  // Set for the rest of the process, never removed: test files run in parallel share the environment, and one
  // file removing the switch while another imports playwright made that import throw NotCapable.
  if (!procReadable) Deno.env.set("__IS_WSL_TEST__", "1");
  return await import("playwright-core");
}

/** Chromium's flags for the tests: no sandbox (CI runs as root), no GPU, no traffic of its own. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Starts headless Chromium; the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await loadPlaywright();
  return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Clicks a form's submit button and waits for the next page; fails at once when the service refused the POST as
 * cross-site (its CSRF page) instead of timing out on the next wait.
 */
export async function submitForm(page: Page, button: Locator): Promise<void> {
  await button.click();
  await page.waitForLoadState();
  const refused = await page.locator("p.error", { hasText: /Formular ist abgelaufen|form has expired/ })
    .count();
  if (refused) throw new Error(`form POST from ${page.url()} was refused by the CSRF check (403)`);
}

/**
 * How long a screenshot may take. Playwright's 15 s (the tests' default) was exceeded once in CI while two test
 * files with a Chromium each shared two cores; a screenshot is the record a person looks at, not the check, so it
 * gets more room than the checks' waits.
 */
const SCREENSHOT_TIMEOUT_MS = 60_000;

/** Saves a screenshot of a page (the whole page unless `viewportOnly`) or of one element to `file`. */
export async function saveScreenshot(
  target: Page | Locator,
  file: URL,
  options: { viewportOnly?: boolean } = {},
): Promise<void> {
  const path = file.pathname;
  if ("goto" in target) {
    await target.screenshot({ path, fullPage: !options.viewportOnly, timeout: SCREENSHOT_TIMEOUT_MS });
  } else {
    await target.screenshot({ path, timeout: SCREENSHOT_TIMEOUT_MS });
  }
}
