// Child processes that tests and benches start, each in a process group of its own (`detached: true`),
// so that stopping one stops everything under it too: a `tsx` or `sh` in between, PostgreSQL's
// backends, a runtime's helper processes. Every group is written down in this process and in a small
// watcher process ("the reaper") that kills whatever is left when this process ends, however it ends:
// a normal exit, an uncaught error, a test runner that kills its worker with SIGTERM or SIGKILL.
// A test still stops its own processes in afterEach/afterAll (`stopGroup`); the reaper is the net.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";

// One registry per process, shared by every copy of this module (a test runner may load it once per
// test file into the same process).
const REGISTRY = Symbol.for("paykit.test-process-groups");
// `groups` maps a leader's pid to its start time (see startTimeOf).
globalThis[REGISTRY] ??= { groups: new Map(), dirs: new Set(), reaper: null, hooked: false };
const state = globalThis[REGISTRY];

// A pid is a small number that comes round again (pid_max is 32,768 on many machines): a group listed
// here whose leader has exited may, by the time it is killed, name a new process that some other test
// started. The kernel keeps a pid out of use while any process of its group lives, so a listed group is
// still ours when its leader's pid is free, or held by the process that had it when it was listed (same
// start time, field 22 of /proc/<pid>/stat); otherwise the group is left alone.
function startTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return null;
  }
}
const stillOurs = (pgid, start) => {
  const now = startTimeOf(pgid);
  return now === null || now === start;
};

// The reaper reads `+<pgid> <start time>`, `-<pgid>`, `+dir <path>` and `-dir <path>` lines on stdin;
// when stdin closes (its parent is gone) it SIGKILLs every group still listed and still ours, and
// removes the listed directories.
const REAPER = `
const { readFileSync, rmSync } = require("node:fs");
${startTimeOf.toString()}
const groups = new Map();
const dirs = new Set();
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const lines = (pending + chunk).split("\\n");
  pending = lines.pop();
  for (const line of lines) {
    if (line.startsWith("+dir ")) dirs.add(line.slice(5));
    else if (line.startsWith("-dir ")) dirs.delete(line.slice(5));
    else if (line.startsWith("+")) {
      const [pgid, start] = line.slice(1).split(" ");
      groups.set(Number(pgid), start);
    }
    else if (line.startsWith("-")) groups.delete(Number(line.slice(1)));
  }
});
process.stdin.on("close", () => {
  for (const [pgid, start] of groups) {
    const now = startTimeOf(pgid);
    if (now !== null && now !== start) continue;
    try { process.kill(-pgid, "SIGKILL"); } catch {}
  }
  // a killed server may still be writing into its directory for a moment
  setTimeout(() => {
    for (const dir of dirs) { try { rmSync(dir, { recursive: true, force: true }); } catch {} }
    process.exit(0);
  }, dirs.size > 0 ? 500 : 0);
});
process.on("SIGTERM", () => {});
process.on("SIGINT", () => {});
`;

function tell(line) {
  if (state.reaper === null) {
    const reaper = spawn(process.execPath, ["-e", REAPER], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    reaper.on("error", () => undefined);
    reaper.stdin.on("error", () => undefined);
    // Neither the reaper nor its pipe keeps this process alive.
    reaper.unref();
    reaper.stdin.unref?.();
    state.reaper = reaper;
  }
  state.reaper.stdin.write(`${line}\n`);
}

function hookExit() {
  if (state.hooked) return;
  state.hooked = true;
  process.once("exit", () => {
    killAllGroups();
    for (const dir of state.dirs) rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * Spawns `command` as the leader of a new process group, registered so that {@link killAllGroups}, the
 * exit of this process, or its death kill the whole group. Same arguments as `child_process.spawn`.
 */
export function spawnGroup(command, args, options) {
  if (!Array.isArray(args)) return adoptGroup(spawn(command, [], { ...args, detached: true }));
  return adoptGroup(spawn(command, args, { ...options, detached: true }));
}

/**
 * Registers a child some other library spawned as a group leader (`detached: true`; Playwright does so
 * for the browsers it launches), so that it is killed with this process like {@link spawnGroup}'s.
 */
export function adoptGroup(child) {
  // no pid: spawning failed and the child emits `error`
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return child;
  hookExit();
  const pgid = child.pid;
  const start = startTimeOf(pgid) ?? "";
  state.groups.set(pgid, start);
  tell(`+${pgid} ${start}`);
  child.once("exit", () => {
    // The leader is gone: the rest of its group (if any) goes with it.
    if (stillOurs(pgid, start)) signalGroup(pgid, "SIGKILL");
    state.groups.delete(pgid);
    tell(`-${pgid}`);
  });
  return child;
}

function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing left in the group
  }
}

/** Sends `signal` (default SIGKILL) to every process of `child`'s group; false when none was left. */
export function killGroup(child, signal = "SIGKILL") {
  return child.pid === undefined ? false : signalGroup(child.pid, signal);
}

/**
 * Stops `child`'s group: `signal` to the leader alone (a server's own clean shutdown stops its
 * workers), then SIGKILL to the whole group after `graceMs` if the leader has not exited. Resolves
 * once the leader exited.
 */
export function stopGroup(child, { signal = "SIGTERM", graceMs = 5_000 } = {}) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
    if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const force = setTimeout(() => signalGroup(child.pid, "SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    try {
      child.kill(signal);
    } catch {
      signalGroup(child.pid, "SIGKILL");
    }
  });
}

/** SIGKILLs every group this process started and has not seen end; answers how many were signalled. */
export function killAllGroups() {
  let killed = 0;
  for (const [pgid, start] of state.groups) {
    if (stillOurs(pgid, start) && signalGroup(pgid, "SIGKILL")) killed += 1;
  }
  return killed;
}

/** The process groups started here and still running (their leaders' pids). */
export function runningGroups() {
  return [...state.groups.keys()];
}

/**
 * A temporary directory to remove when this process ends, however it ends (the reaper removes it
 * after a crash); {@link removeDir} removes it earlier and forgets it.
 */
export function removeOnExit(dir) {
  hookExit();
  state.dirs.add(dir);
  tell(`+dir ${dir}`);
  return dir;
}

/** Removes a directory given to {@link removeOnExit} now. */
export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  if (state.dirs.delete(dir)) tell(`-dir ${dir}`);
}

/**
 * Runs `command` to its end in a process group of its own, as `execFile` does, and resolves
 * `{ code, signal, stdout, stderr, timedOut }` (it never rejects for an exit code). Past `timeoutMs`
 * the whole group is killed, so a runtime's helper processes never outlive a hung run.
 */
export function runGroup(command, args = [], { timeoutMs = 60_000, ...options } = {}) {
  return new Promise((resolve) => {
    const child = spawnGroup(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, "SIGKILL");
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
