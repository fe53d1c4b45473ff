// Durability of both embedded engines across `kill -9` in the middle of a stream of single-row
// transactions: after a restart, every row whose commit returned is there, the database opens and
// takes new writes. What the mock's --data-dir must promise for a 201 it answered.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: plain ESM helper shared with bench.mjs, no types
import { ENGINES, payinRow } from "./engines.mjs";

const writer = fileURLToPath(new URL("./writer.mjs", import.meta.url));

/** Runs the writer from row `from` until `acks` commits returned, then SIGKILLs it; answers the acked rows. */
function writeThenKill(engine: string, dir: string, from: number, acks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, engine, dir, String(from)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acked: number[] = [];
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line === "ready") return;
      acked.push(Number(line));
      if (acked.length === acks) child.kill("SIGKILL");
    });
    child.on("exit", (_code, signal) => {
      if (signal === "SIGKILL") resolve(acked);
      else reject(new Error(`writer exited without being killed: ${stderr}`));
    });
  });
}

describe("PGlite (the --data-dir engine) under kill -9", () => {
  const engine = "pglite";
  it("keeps every committed row through two kills, then opens and takes writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), `paykit-kill-${engine}-`));
    try {
      const first = await writeThenKill(engine, dir, 0, 150);
      const second = await writeThenKill(engine, dir, 10_000, 150);
      const db = await ENGINES[engine](dir);
      try {
        for (const n of [...first, ...second]) {
          expect(await db.get(payinRow("acct_kill", n).id), `row ${n}`).toBeDefined();
        }
        const count = await db.count();
        // more may be there: commits the writer made after its last line was read, before the kill landed
        expect(count).toBeGreaterThanOrEqual(300);
        await db.insert(payinRow("acct_kill", 99_999));
        expect(await db.count()).toBe(count + 1);
        console.log(`${engine}: ${count} rows after 2 kills, every one of the 300 acknowledged among them`);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("node-sqlite3-wasm under kill -9 (why it was not chosen)", () => {
  it("its VFS locks with a directory that a process killed mid-transaction leaves behind: every later open is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paykit-kill-sqlite-"));
    try {
      // a kill between two transactions leaves no lock: kill until one lands inside a transaction
      let kills = 0;
      while (!existsSync(join(dir, "mock.sqlite.lock")) && kills < 20) {
        await writeThenKill("sqlite", dir, kills * 1_000, 20);
        kills++;
      }
      expect(existsSync(join(dir, "mock.sqlite.lock"))).toBe(true);
      await expect(
        (async () => {
          const db = await ENGINES.sqlite(dir);
          await db.insert(payinRow("acct_kill", 99_999));
        })(),
      ).rejects.toThrow(/database is locked/);
      console.log(
        `node-sqlite3-wasm: stale lock after ${kills} kill(s); the database refuses writes until it is removed by hand`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
