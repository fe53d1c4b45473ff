// The one way tests launch a browser: Debian's Chromium (or CHROMIUM_PATH) through playwright-core,
// never a downloaded browser, with the flags this machine and CI need. No Chromium outlives its test
// process: Playwright closes it on exit and on SIGINT/SIGTERM/SIGHUP, and Chromium itself quits when
// its control pipe closes (checked: SIGKILL of the test process leaves no Chromium).
import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium unless CHROMIUM_PATH names another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless, no sandbox (root in CI), and no network side channels of its own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Whether real-browser tests must be skipped: only on a developer's machine without Chromium. In CI
 * (`CI` set) a missing browser is a failure, never a silent skip.
 */
export const SKIP_BROWSER = !existsSync(CHROMIUM_PATH) && !process.env.CI;
if (SKIP_BROWSER) {
  console.warn(
    `Skipping the real-browser tests: no Chromium at ${CHROMIUM_PATH}. Install Debian's chromium, set ` +
      "CHROMIUM_PATH, or run `npm test` at the repository root (it installs Debian's chromium).",
  );
}

/**
 * Launches headless Chromium; `screenshots`, when given, is a directory made ready for page
 * screenshots; `args` are Chromium flags added to {@link CHROMIUM_ARGS} (a test's
 * `--host-resolver-rules`). Close the browser in afterAll; it is killed anyway when the test process ends.
 */
export async function launchChromium(
  options: { screenshots?: string; args?: string[] } = {},
): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: the real-browser tests must run in CI. Install Debian's chromium or set CHROMIUM_PATH.`,
    );
  }
  if (options.screenshots !== undefined) mkdirSync(options.screenshots, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  });
}
