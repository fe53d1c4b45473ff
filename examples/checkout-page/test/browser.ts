import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium unless CHROMIUM_PATH names another; no tool here ever downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Whether the real-browser tests must be skipped: only on a developer's machine without Chromium.
 * In CI (`CI` set) a missing browser is a failure, never a silent skip.
 */
export const SKIP_BROWSER = !existsSync(CHROMIUM_PATH) && !process.env.CI;
if (SKIP_BROWSER) {
  console.warn(
    `Skipping the real-browser tests: no Chromium at ${CHROMIUM_PATH}. Install Debian's chromium or set CHROMIUM_PATH.`,
  );
}

/** Where screenshots go (gitignored). */
export const OUTPUT_DIR = fileURLToPath(new URL("../test-results/", import.meta.url));

/** Launches headless Chromium with the flags this machine and CI need (no network side channels). */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
