#!/usr/bin/env node
// The main job: `pnpm demo` (the end of `npm run quickstart`), after `turbo run build` of the checkout
// example and the packages it uses (the ones `npm run quickstart` installs).
// It runs the demo merchant of examples/checkout-page (TypeScript, through tsx) on the built packages:
// interactive on a terminal, the headless scripted flow with --script or when stdin is not a terminal.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "examples", "checkout-page", "src", "main.ts");
const child = spawn(process.execPath, ["--import", "tsx", entry, ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
// Ctrl+C reaches the demo itself (same process group): it closes the mock and the backend and exits 0,
// and this launcher waits for that. A SIGTERM sent to the launcher alone is passed on.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.on("error", (error) => {
  console.error(`could not start the demo: ${error.message}`);
  process.exit(1);
});
child.on("exit", (code) => process.exit(code ?? 1));
