#!/usr/bin/env node
// `pnpm docs`: the API reference. typedoc reports undocumented exports only when it documents one
// entry point at a time (with several it stays silent), so each entry point is first checked alone
// (no output), then the reference of all of them is written to docs/api/, and the HTTP reference
// rendered from docs/openapi.json to docs/api/openapi.html.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const config = JSON.parse(readFileSync(new URL("../typedoc.json", import.meta.url), "utf8"));
const typedoc = (args) =>
  spawnSync("typedoc", args, { stdio: "inherit", shell: process.platform === "win32" });

for (const entryPoint of config.entryPoints) {
  const result = typedoc(["--entryPoints", entryPoint, "--emit", "none", "--logLevel", "Warn"]);
  if (result.status !== 0) {
    console.error(`typedoc: ${entryPoint} has undocumented exports or broken links (see above)`);
    process.exit(result.status ?? 1);
  }
}
const all = typedoc([]);
if (all.status !== 0) process.exit(all.status ?? 1);
// The HTTP reference: Redoc's static page of docs/openapi.json (offline, one self-contained file),
// written after typedoc, which empties docs/api/ first.
const redoc = spawnSync("pnpm", ["--filter", "@paykit/contract", "run", "openapi:html"], {
  stdio: "inherit",
  shell: process.platform === "win32",
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
});
process.exit(redoc.status ?? 1);
