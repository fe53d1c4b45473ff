// A PostgreSQL server of one test's own, which the test may stop and start again (the run's shared one,
// tests/support/services.ts, must never go down under the other files). The cluster and the server are
// scripts/services.mjs's (Debian's server, initdb into a temporary directory, loopback on a free port, in a
// process group killed with the test process). Unlike the shared one it commits synchronously: an immediate
// stop is a crash, and a commit it acknowledged must survive it, as on any real database.
import { type ChildProcess, execFileSync } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { removeDir, stopGroup } from "../../../../scripts/processes.mjs";
import { freePort, initPostgres, spawnPostgres } from "../../../../scripts/services.mjs";

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

/**
 * Starts a private PostgreSQL server (see the file's comment), with `settings` as `name=value` besides
 * its own (`shared_preload_libraries=pg_stat_statements`, for a test that reads the server's counts).
 */
export async function startPrivatePostgres(settings: readonly string[] = []): Promise<PrivatePostgres> {
  const cluster = initPostgres("paykit-pg-restart-");
  const { bin, dir, data, user } = cluster;
  const port = await freePort();
  let child: ChildProcess | null = null;

  // fsync off (an immediate stop is not a power cut: what was written stays), commits synchronous.
  const start = async () => {
    child = await spawnPostgres(cluster, port, ["fsync=off", ...settings], 60_000);
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
