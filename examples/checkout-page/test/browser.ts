import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { launchChromium as launch } from "../../../tests/support/chromium.js";

// Debian's Chromium (or CHROMIUM_PATH), skipped only on a developer's machine without it: the
// workspace's one launcher (tests/support/chromium.ts).
export { CHROMIUM_PATH, SKIP_BROWSER } from "../../../tests/support/chromium.js";

/** Where screenshots go (gitignored). */
export const OUTPUT_DIR = fileURLToPath(new URL("../test-results/", import.meta.url));

/** Launches headless Chromium, with OUTPUT_DIR ready for screenshots. */
export function launchChromium(): Promise<Browser> {
  return launch({ screenshots: OUTPUT_DIR });
}
