#!/usr/bin/env node
// A published package's `package:check`: packs it once with `pnpm pack` (what `pnpm publish` uploads:
// workspace: ranges become versions), prints the tarball's size, checks that it holds only what users
// need (tarballFiles below), runs publint (`--strict`) and attw on that one tarball, then checks the
// package's API reports against its build (scripts/api-report.mjs) and that the pending changesets give
// its API changes since the last release the right bump (scripts/api-semver.mjs).
// `attw --pack` packed it again with `npm pack` (about 2.3 s of a core: npm's own start-up) and publint
// asked pnpm for the file list a second time; one `pnpm pack` costs about 0.6 s, for six packages in
// every `npm test`. Arguments after the command go to attw as they are (`--exclude-entrypoints …`).
// Usage, from a package's directory: `node ../../scripts/package-check.mjs [attw options]`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unpublishable } from "./tarball-files.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The JavaScript file of a root dev dependency's command, run with this `node` (no shell wrapper). */
function bin(name, command) {
  const dir = join(root, "node_modules", ...name.split("/"));
  const { bin: bins } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  return join(dir, typeof bins === "string" ? bins : bins[command]);
}

const attwOptions = process.argv.slice(2);

const destination = mkdtempSync(join(tmpdir(), "paykit-package-check-"));

/** Runs a command (its output shown, or only on failure when `quiet`); exits with its status when it fails. */
function run(command, args, quiet = false) {
  const result = spawnSync(command, args, { stdio: quiet ? "pipe" : "inherit", encoding: "utf8" });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout}${result.stderr}`);
    rmSync(destination, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
  return result.stdout;
}

/** Stops with `problems` (each on its own paragraph) when there are any. */
function fail(problems) {
  if (problems.length === 0) return;
  console.error(problems.join("\n\n"));
  rmSync(destination, { recursive: true, force: true });
  process.exit(1);
}

try {
  const packed = JSON.parse(run("pnpm", ["pack", "--pack-destination", destination, "--json"], true));
  const tarball = packed.filename;
  const paths = packed.files.map((file) => file.path);
  const { size } = statSync(tarball);
  console.log(
    `${packed.name}@${packed.version}: ${size.toLocaleString("en")} B packed, ${paths.length} files`,
  );
  fail(unpublishable(paths).map((path) => `${packed.name}: the tarball must not carry ${path}`));
  run(process.execPath, [bin("publint", "publint"), "--strict", tarball]);
  run(process.execPath, [bin("@arethetypeswrong/cli", "attw"), tarball, ...attwOptions]);
  const { checkReports } = await import("./api-report.mjs");
  const { checkChangesetKinds } = await import("./api-semver.mjs");
  fail(checkReports([process.cwd()]));
  fail(await checkChangesetKinds([process.cwd()]));
  console.log(`${packed.name}: API reports match the build; the pending changesets cover its API changes`);
} finally {
  rmSync(destination, { recursive: true, force: true });
}
