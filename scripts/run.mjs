#!/usr/bin/env node
// The README's two commands start here, on a machine that has only Node 20 and npm:
// `npm run quickstart` → `node scripts/run.mjs demo`, `npm test` → `node scripts/run.mjs verify`.
// It brings the pinned pnpm (from the npm registry, into .tools/, no global change), installs the
// workspace from the lockfile, installs Debian's Chromium when the browser tests need it, then runs
// the named root script with pnpm.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { delimiter, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const [task = "verify", ...rest] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pnpmVersion = pkg.packageManager.replace(/^pnpm@/, "").split("+")[0];

function step(message) {
  console.log(`\n▶ ${message}`);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: process.env, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function pnpmOnPath() {
  try {
    return execFileSync("pnpm", ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return null;
  }
}

function ensurePnpm() {
  const toolsBin = join(root, ".tools", "node_modules", ".bin");
  process.env.PATH = `${toolsBin}${delimiter}${process.env.PATH}`;
  if (pnpmOnPath() === pnpmVersion) return;
  step(`installing pnpm ${pnpmVersion} into .tools/`);
  run("npm", [
    "install",
    "--prefix",
    join(root, ".tools"),
    "--no-save",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    `pnpm@${pnpmVersion}`,
  ]);
  if (pnpmOnPath() !== pnpmVersion) throw new Error(`pnpm ${pnpmVersion} is not runnable after install`);
}

function chromiumPath() {
  for (const candidate of [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  return null;
}

// Debian's packages the tests run for real: Chromium (3DS, CSRF and docs pages), Redis and PostgreSQL
// (the shared webhook de-duplication stores). Never a browser download from a test tool, never Docker.
function ensureTestServices() {
  const missing = [];
  if (!chromiumPath()) missing.push("chromium");
  if (!existsSync("/usr/bin/redis-server")) missing.push("redis-server");
  if (!hasPostgresServer()) missing.push("postgresql");
  if (missing.length > 0) {
    if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
      console.error(
        `Missing for the tests and not installable here (needs root and apt-get): ${missing.join(", ")}. ` +
          "Install Debian's packages of those names (or set CHROMIUM_PATH to a Chromium binary).",
      );
      process.exit(1);
    }
    step(`installing Debian's ${missing.join(", ")} for the real-browser and real-store tests`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    run("apt-get", ["update", "-qq"], { env });
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { env });
  }
  process.env.CHROMIUM_PATH = chromiumPath() ?? "/usr/bin/chromium";
}

function hasPostgresServer() {
  const base = "/usr/lib/postgresql";
  return (
    existsSync(base) && readdirSync(base).some((major) => existsSync(join(base, major, "bin", "postgres")))
  );
}

// Every package's vitest writes test-results/vitest.json; the sum is printed as one closing line.
const testProjects = ["packages", "examples", "tests"].flatMap((group) =>
  existsSync(join(root, group))
    ? readdirSync(join(root, group))
        .map((name) => join(root, group, name))
        .filter((dir) => existsSync(join(dir, "package.json")))
    : [],
);

function testTotals() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  for (const project of testProjects) {
    const report = join(project, "test-results", "vitest.json");
    if (!existsSync(report)) continue;
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed += json.numPassedTests;
    failed += json.numFailedTests;
    skipped += json.numPendingTests + json.numTodoTests;
    for (const file of json.testResults ?? []) {
      const where = relative(root, file.name);
      const tests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
      for (const t of tests)
        failures.push({ where, name: t.fullName, message: t.failureMessages?.[0] ?? "" });
      // a file that failed before any of its tests ran (an import error, a hook that threw)
      if (tests.length === 0 && file.status === "failed")
        failures.push({ where, name: "(the file)", message: file.message ?? "" });
    }
  }
  return { passed, failed, skipped, failures };
}

// The failed tests by name, with the first lines of each failure, last in the log: a CI page that
// shows only its tail still says what failed and why.
function printFailures(failures) {
  if (failures.length === 0) return;
  console.log(`\nFailed tests (${failures.length}):`);
  for (const f of failures.slice(0, 20)) {
    console.log(`  ✗ ${f.where} > ${f.name}`);
    const lines = f.message
      .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
      .split("\n")
      .filter((l) => l.trim() !== "");
    for (const line of lines.slice(0, 6)) console.log(`      ${line.slice(0, 300)}`);
  }
}

// turbo's run summary (`--summarize` in the verify script): the slowest tasks, each with when it started
// and ended in the run, so that a slow CI run shows its critical path.
function printSlowestTasks(since) {
  const runs = join(root, ".turbo", "runs");
  if (!existsSync(runs)) return;
  const newest = readdirSync(runs)
    .filter((name) => name.endsWith(".json"))
    .map((name) => join(runs, name))
    .filter((path) => statSync(path).mtimeMs >= since)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest === undefined) return;
  const summary = JSON.parse(readFileSync(newest, "utf8"));
  const t0 = summary.execution.startTime;
  const tasks = summary.tasks
    .filter((t) => t.execution?.endTime > 0)
    .map((t) => ({ id: t.taskId, start: t.execution.startTime - t0, end: t.execution.endTime - t0 }))
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, 10);
  const s = (ms) => `${(ms / 1000).toFixed(0)} s`.padStart(5);
  console.log(`\nSlowest tasks of ${s(summary.execution.endTime - t0).trim()} (start → end, duration):`);
  for (const t of tasks) console.log(`  ${s(t.start)} → ${s(t.end)}  ${s(t.end - t.start)}  ${t.id}`);
}

const started = Date.now();
if (task === "verify") {
  for (const project of testProjects) rmSync(join(project, "test-results", "vitest.json"), { force: true });
}
// The demo needs the root's tools and the checkout example with the packages it uses, nothing of
// what only the tests run: the runtime matrix's Bun, Deno, workerd and other Node versions, the
// recipes' Bun and Workers (hundreds of MB). `npm test` installs the whole workspace.
const DEMO_PROJECTS = ["--filter", ".", "--filter", "@paykit-examples/checkout-page..."];

ensurePnpm();
const install = [
  "install",
  "--frozen-lockfile",
  "--prefer-offline",
  ...(task === "demo" ? DEMO_PROJECTS : []),
];
step(`pnpm ${install.join(" ")}`);
run("pnpm", install);
if (task === "verify") ensureTestServices();
step(`pnpm run ${task}`);
const verifyStarted = Date.now();
const result = spawnSync("pnpm", ["run", task, ...rest], { cwd: root, stdio: "inherit", env: process.env });
if (task === "verify") {
  printSlowestTasks(verifyStarted);
  const { passed, failed, skipped, failures } = testTotals();
  printFailures(failures);
  console.log(`\nTests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
}
if (result.status !== 0) process.exit(result.status ?? 1);
console.log(`\n✔ ${task} finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
