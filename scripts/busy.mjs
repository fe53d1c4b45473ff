#!/usr/bin/env node
// Runs a command on a busy machine: beside it, another CPU-heavy process (worker threads that spin on
// arithmetic, one core each), stopped when the command ends. How the test suite is checked to stay
// green when it does not have the machine to itself:
//   node scripts/busy.mjs -- npm test                 one core busy beside the suite
//   node scripts/busy.mjs --cores 2 -- npm test       both cores of a 2-core machine
// Exits with the command's status and prints how long it took.
import { spawn } from "node:child_process";
import { isMainThread, Worker } from "node:worker_threads";

if (!isMainThread) {
  // Busy work that no JIT can skip: a running hash over a counter.
  let h = 0;
  for (let i = 0; ; i++) {
    h = Math.imul(h ^ i, 0x9e3779b1) >>> 0;
    if (i % 1e9 === 0 && h === 42) console.log(h);
  }
}

const argv = process.argv.slice(2);
const dashes = argv.indexOf("--");
const options = dashes === -1 ? argv : argv.slice(0, dashes);
const command = dashes === -1 ? [] : argv.slice(dashes + 1);
const coresAt = options.indexOf("--cores");
const cores = coresAt === -1 ? 1 : Number(options[coresAt + 1]);
if (command.length === 0 || !Number.isInteger(cores) || cores < 1) {
  console.error("usage: node scripts/busy.mjs [--cores N] -- <command> [args…]");
  process.exit(2);
}

const workers = Array.from({ length: cores }, () => new Worker(new URL(import.meta.url)));
console.log(`busy.mjs: ${cores} core(s) kept busy beside: ${command.join(" ")}`);
const started = Date.now();
const child = spawn(command[0], command.slice(1), { stdio: "inherit" });
const stop = async (code) => {
  await Promise.all(workers.map((worker) => worker.terminate()));
  console.log(
    `busy.mjs: ${command.join(" ")} ended (${code}) after ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  process.exit(code);
};
child.on("error", (error) => {
  console.error(`busy.mjs: ${error.message}`);
  void stop(1);
});
child.on("exit", (code, signal) => void stop(code ?? (signal ? 1 : 0)));
// Ctrl+C reaches the command itself (same process group); the burner stops when it ends.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => child.kill("SIGTERM"));
