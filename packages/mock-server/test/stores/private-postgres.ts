// A PostgreSQL server of one test's own, which the test may stop and start again (the run's shared one,
// tests/support/services.ts, must never go down under the other files). Debian's server, initdb into a
// temporary directory, loopback on a free port, in a process group killed with the test process
// (scripts/processes.mjs). Unlike the shared one it commits synchronously: an immediate stop is a crash,
// and a commit it acknowledged must survive it, as on any real database.
import { type ChildProcess, execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDir, removeOnExit, spawnGroup, stopGroup } from "../../../../scripts/processes.mjs";
import { freePort, postgresBin } from "../../../../scripts/services.mjs";

/** A private PostgreSQL server: its URL, and the calls that crash it, start it again and remove it. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust on loopback). */
  readonly url: string;
  /** `pg_ctl stop -m immediate`: every backend ends at once, nothing is shut down cleanly. */
  stopImmediately(): Promise<void>;
  /** Starts the server again on the same directory and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (whatever state it is in) and removes its directory. Idempotent. */
  close(): Promise<void>;
}

/** Starts a private PostgreSQL server (see the file's comment). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (bin === null) throw new Error("PostgreSQL is not installed: run the tests through `npm test`");
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-pg-restart-")));
  const data = join(dir, "data");
  // PostgreSQL refuses to run as root: it runs as the `postgres` user the Debian package creates.
  const user: { uid?: number; gid?: number } = process.getuid?.() === 0 ? postgresUser() : {};
  if (user.uid !== undefined) execFileSync("chown", [`${user.uid}:${user.gid}`, dir]);
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    { stdio: "pipe", cwd: dir, ...user },
  );
  const port = await freePort();
  let child: ChildProcess | null = null;
  let log: string[] = [];

  const start = async () => {
    log = [];
    const started = spawnGroup(
      join(bin, "postgres"),
      ["-D", data, "-h", "127.0.0.1", "-p", String(port), "-k", dir, "-c", "fsync=off"],
      { stdio: ["ignore", "pipe", "pipe"], cwd: dir, ...user },
    );
    child = started;
    started.stdout?.on("data", (chunk) => log.push(String(chunk)));
    started.stderr?.on("data", (chunk) => log.push(String(chunk)));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (started.exitCode !== null)
        throw new Error(`postgres exited at start:\n${log.join("").slice(-2000)}`);
      try {
        execFileSync(
          join(bin, "pg_isready"),
          ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-q"],
          {
            stdio: "ignore",
          },
        );
        return;
      } catch {
        if (Date.now() > deadline)
          throw new Error(`postgres did not start in 60 s:\n${log.join("").slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };

  let closed = false;
  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stopImmediately() {
      const running = child;
      if (running === null || running.exitCode !== null) return;
      const exited = once(running, "exit");
      execFileSync(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w", "-t", "60"], {
        stdio: "pipe",
        cwd: dir,
        ...user,
      });
      await exited;
      child = null;
    },
    start,
    async close() {
      if (closed) return;
      closed = true;
      if (child !== null && child.exitCode === null)
        await stopGroup(child, { signal: "SIGQUIT", graceMs: 10_000 });
      removeDir(dir);
    },
  };
  try {
    await start();
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}
