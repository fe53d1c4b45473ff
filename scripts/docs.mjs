#!/usr/bin/env node
// `pnpm docs`: the API reference of every entry point (typedoc) into docs/api/, failing on an
// undocumented export or a broken link, and the HTTP reference rendered from docs/openapi.json to
// docs/api/openapi.html. First, llms.txt at the root: where a coding agent finds the guides and this
// reference (scripts/llms-txt.mjs).
// One typedoc run checks every entry point: typedoc requires documentation only of the packages named
// in `packagesRequiringDocumentation`, by default the one package of a single entry point, and with
// several entry points none of ours (an undocumented export then passed silently). So the packages of
// all entry points are named here. (It used to be one run per entry point: 16 TypeScript programs.)
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeLlmsTxt } from "./llms-txt.mjs";

const root = new URL("../", import.meta.url);
writeLlmsTxt(fileURLToPath(root));
const config = JSON.parse(readFileSync(new URL("typedoc.json", root), "utf8"));
const packages = [
  ...new Set(
    config.entryPoints.map((entryPoint) => {
      const dir = entryPoint.split("/src/")[0];
      return JSON.parse(readFileSync(new URL(`${dir}/package.json`, root), "utf8")).name;
    }),
  ),
];
const typedoc = spawnSync(
  "typedoc",
  packages.flatMap((name) => ["--packagesRequiringDocumentation", name]),
  { stdio: "inherit", shell: process.platform === "win32" },
);
if (typedoc.status !== 0) {
  console.error("typedoc: an export without documentation, or a broken link (see above)");
  process.exit(typedoc.status ?? 1);
}
// The HTTP reference: Redoc's static page of docs/openapi.json (offline, one self-contained file),
// written after typedoc, which empties docs/api/ first.
const redoc = spawnSync("pnpm", ["--filter", "@paykit/contract", "run", "openapi:html"], {
  stdio: "inherit",
  shell: process.platform === "win32",
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
});
process.exit(redoc.status ?? 1);
