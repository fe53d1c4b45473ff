// The durability half of the --data-dir engine evaluation (issue 15): each embedded engine across
// `kill -9` in the middle of a stream of single-row transactions. After a restart, every row whose
// commit returned must be there, and the database must open and take new writes: what the mock's
// --data-dir must promise for a 201 it answered. Research, run as a bench (not in `npm test`):
//   pnpm --filter @paykit-tests/store-engines bench      (or: node tests/store-engines/kill.mjs)
// Exits 1 when an engine does not behave as the evaluation recorded. Every writer runs in a process
// group of its own (scripts/processes.mjs): none outlives this script, also on a failure or a timeout.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { killAllGroups, removeDir, removeOnExit, spawnGroup, stopGroup } from "../../scripts/processes.mjs";
import { ENGINES, payinRow } from "./engines.mjs";

const writer = fileURLToPath(new URL("./writer.mjs", import.meta.url));
/** A writer that has not acknowledged its rows by then is killed and the evaluation fails. */
const WRITER_DEADLINE_MS = Number(process.env.KILL_DEADLINE_MS ?? 180_000);

/** Runs the writer from row `from` until `acks` commits returned, then SIGKILLs it; answers the acked rows. */
function writeThenKill(engine, dir, from, acks) {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(process.execPath, [writer, engine, dir, String(from)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acked = [];
    let stderr = "";
    const deadline = setTimeout(() => {
      void stopGroup(child, { signal: "SIGKILL" });
      reject(
        new Error(
          `${engine} writer acknowledged ${acked.length} of ${acks} rows in ${WRITER_DEADLINE_MS} ms`,
        ),
      );
    }, WRITER_DEADLINE_MS);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line === "ready") return;
      acked.push(Number(line));
      if (acked.length === acks) child.kill("SIGKILL");
    });
    child.on("exit", (_code, signal) => {
      clearTimeout(deadline);
      if (signal === "SIGKILL") resolve(acked);
      else reject(new Error(`${engine} writer exited without being killed: ${stderr}`));
    });
  });
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function pglite() {
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-kill-pglite-")));
  try {
    const first = await writeThenKill("pglite", dir, 0, 150);
    const second = await writeThenKill("pglite", dir, 10_000, 150);
    const db = await ENGINES.pglite(dir);
    try {
      for (const n of [...first, ...second]) {
        check((await db.get(payinRow("acct_kill", n).id)) !== undefined, `PGlite lost acknowledged row ${n}`);
      }
      // more may be there: commits the writer made after its last line was read, before the kill landed
      const count = await db.count();
      check(count >= 300, `PGlite holds ${count} rows, fewer than the 300 acknowledged`);
      await db.insert(payinRow("acct_kill", 99_999));
      check((await db.count()) === count + 1, "PGlite did not take a write after the kills");
      return `${count} rows after 2 kills, every one of the 300 acknowledged among them; opens and takes writes`;
    } finally {
      await db.close();
    }
  } finally {
    removeDir(dir);
  }
}

// Why it was not chosen: its VFS locks with a directory that a process killed mid-transaction leaves
// behind, and every later open is refused.
async function sqlite() {
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-kill-sqlite-")));
  try {
    // a kill between two transactions leaves no lock: kill until one lands inside a transaction
    let kills = 0;
    while (!existsSync(join(dir, "mock.sqlite.lock")) && kills < 20) {
      await writeThenKill("sqlite", dir, kills * 1_000, 20);
      kills++;
    }
    check(existsSync(join(dir, "mock.sqlite.lock")), `no stale lock after ${kills} kills`);
    const refused = await (async () => {
      const db = await ENGINES.sqlite(dir);
      await db.insert(payinRow("acct_kill", 99_999));
      return null;
    })().catch((error) => error);
    check(
      /database is locked/.test(String(refused?.message)),
      `a write after the kills: ${refused ?? "accepted"}`,
    );
    return `stale lock after ${kills} kill(s); the database refuses writes until it is removed by hand`;
  } finally {
    removeDir(dir);
  }
}

let failed = false;
for (const [name, run] of [
  ["PGlite (the --data-dir engine)", pglite],
  ["node-sqlite3-wasm (not chosen)", sqlite],
]) {
  const started = performance.now();
  try {
    const outcome = await run();
    console.log(`kill -9, ${name}: ${outcome} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    failed = true;
    console.error(`kill -9, ${name}: FAILED: ${error.message}`);
  }
}
killAllGroups();
process.exit(failed ? 1 : 0);
