#!/usr/bin/env node
// `pnpm verify` (what `npm test` runs): every package built first (turbo, in dependency order), then
// every check and test suite from one queue, the longest first, a few at a time.
//
// Why not one `turbo run build test …`: turbo starts every ready task at once, so on a 2-core CI machine
// twenty suites (each with its own workers, Chromium, PostgreSQL and child processes) shared two cores
// with the builds the others wait for; timeouts fired on a machine at load 37 and the run took 14 min.
// A queue that starts the longest suites first (their last measured length, below) at a bounded
// concurrency ends the run near the total work divided by the cores, with no suite starved
// (docs/decisions/verify-queue.md).
//
// Usage: node scripts/verify.mjs            (VERIFY_CONCURRENCY=n to change how many run at once)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// Seconds each task took alone on a 2-core machine (user + system CPU of its processes; the
// order, not the figures, is what matters). A task not listed counts as 20.
const MEASURED = {
  "@paykit/mock-server#test": 470,
  "@paykit-tests/release#test": 95,
  "@paykit-tests/webhook-delivery#test": 81,
  "@paykit-tests/runtime-matrix#test": 75,
  "@paykit-tests/docs#test": 73,
  "@paykit-tests/packaging#test": 70,
  "@paykit/browser#test": 62,
  "@paykit/node#test": 61,
  "//#typecheck": 57,
  "//#docs": 45,
  "@paykit-examples/checkout-page#test": 31,
  "@paykit/webhooks#test": 18,
  "@paykit-examples/webhook-recipes#test": 17,
  "@paykit-tests/openapi#test": 16,
};

const concurrency = Math.max(
  1,
  Number(process.env.VERIFY_CONCURRENCY) || Math.min(3, availableParallelism() + 1),
);

/** The workspace's projects: `{ name, dir, scripts }`. */
function projects() {
  return ["packages", "examples", "tests"].flatMap((group) =>
    existsSync(join(root, group))
      ? readdirSync(join(root, group))
          .map((name) => join(root, group, name))
          .filter((dir) => existsSync(join(dir, "package.json")))
          .map((dir) => {
            const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
            return { name: manifest.name, dir, scripts: manifest.scripts ?? {} };
          })
      : [],
  );
}

/** Every task after the builds: the root's typecheck and API docs, each package's checks and tests. */
function tasks() {
  const list = [
    { id: "//#typecheck", dir: root, script: "typecheck" },
    { id: "//#docs", dir: root, script: "docs" },
  ];
  for (const project of projects()) {
    for (const script of ["package:check", "test"]) {
      if (project.scripts[script]) list.push({ id: `${project.name}#${script}`, dir: project.dir, script });
    }
  }
  const weight = (task) => MEASURED[task.id] ?? 20;
  return list.sort((a, b) => weight(b) - weight(a));
}

const running = new Set();
function stopAll() {
  for (const child of running) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  }
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}

/** Runs one task in its own process group, each line of its output prefixed with its id. */
function runTask(task) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn("pnpm", ["run", task.script], {
      cwd: task.dir,
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    running.add(child);
    const prefix = `${task.id.replace("#", ":")}: `;
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
      });
      stream.on("end", () => {
        if (rest !== "") process.stdout.write(`${prefix}${rest}\n`);
      });
    }
    child.on("close", (code, signal) => {
      running.delete(child);
      // whatever the task left in its group (a server a failed test did not stop) goes with it
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      resolve({ ...task, ok: code === 0, code: code ?? signal, start: started, end: Date.now() });
    });
  });
}

function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: process.env });
  return result.status === 0;
}

const t0 = Date.now();
if (!run("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"])) {
  console.error("\nThe build failed: nothing else runs.");
  process.exit(1);
}
const built = Date.now();
const queue = tasks();
console.log(`\n▶ ${queue.length} checks and test suites, ${concurrency} at a time, the longest first`);
const results = [];
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let task = queue.shift(); task !== undefined; task = queue.shift())
      results.push(await runTask(task));
  }),
);

const s = (ms) => `${(ms / 1000).toFixed(0)} s`.padStart(5);
console.log(`\nBuilt in ${s(built - t0).trim()}; the slowest tasks after it (start → end, duration):`);
for (const r of [...results].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, 10))
  console.log(`  ${s(r.start - built)} → ${s(r.end - built)}  ${s(r.end - r.start)}  ${r.id}`);
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.map((r) => `${r.id} (${r.code})`).join(", ")}`);
  console.error(
    `Each one again: cd <dir> && pnpm run <script>, e.g. cd ${relative(root, failed[0].dir) || "."} && pnpm run ${failed[0].script}`,
  );
  process.exit(1);
}
console.log(`\nAll ${results.length} passed in ${s(Date.now() - t0).trim()}.`);
