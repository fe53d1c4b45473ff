// Real Redis and PostgreSQL servers for tests: Debian's `redis-server` and `postgresql` (installed by
// scripts/run.mjs before the tests), started on 127.0.0.1 on a free port with a temporary data directory,
// and stopped (data removed) by `stop()`. Never a mock of them, never Docker. Likewise an npm registry,
// Verdaccio (the pinned version a test project installs), for the release test.
// Each server runs in a process group of its own, killed with this process however it ends
// (scripts/processes.mjs), its data directory removed with it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDir, removeOnExit, spawnGroup, stopGroup } from "./processes.mjs";

/** A free TCP port on 127.0.0.1 (the OS picks it; the server binds it a moment later). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function waitFor(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = async () => {
      try {
        if (await check()) return resolve();
      } catch {}
      if (Date.now() > deadline)
        return reject(new Error(`${what} did not become ready within ${timeoutMs} ms`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

function stopChild(child, signal) {
  return stopGroup(child, { signal, graceMs: 10_000 });
}

function track(child, name, log) {
  child.stdout?.on("data", (chunk) => log.push(String(chunk)));
  child.stderr?.on("data", (chunk) => log.push(String(chunk)));
  child.once("error", (error) => log.push(`${name}: ${error.message}`));
}

/** Whether Debian's redis-server is installed. */
export function hasRedis() {
  return existsSync("/usr/bin/redis-server");
}

/** Starts redis-server on a free loopback port, without persistence; resolves `{ url, port, stop }`. */
export async function startRedis() {
  if (!hasRedis())
    throw new Error(
      "redis-server is not installed: run the tests through `npm test` (scripts/run.mjs installs it)",
    );
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-redis-")));
  const port = await freePort();
  const log = [];
  const child = spawnGroup(
    "/usr/bin/redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      "--daemonize",
      "no",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  track(child, "redis-server", log);
  try {
    await waitFor(
      () =>
        log.join("").includes("Ready to accept connections") || (child.exitCode !== null && Promise.reject()),
      "redis-server",
    );
  } catch (error) {
    await stopChild(child, "SIGKILL");
    removeDir(dir);
    throw new Error(`${error.message}\n${log.join("").slice(-2000)}`);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await stopChild(child, "SIGTERM");
      removeDir(dir);
    },
  };
}

/** The bin directory of the newest installed PostgreSQL (Debian: /usr/lib/postgresql/<major>/bin). */
export function postgresBin() {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const majors = readdirSync(base)
    .filter((name) => existsSync(join(base, name, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length > 0 ? join(base, majors[0], "bin") : null;
}

function postgresUser() {
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/** Whether Debian's PostgreSQL server is installed. */
export function hasPostgres() {
  return postgresBin() !== null;
}

/**
 * A new PostgreSQL cluster: `initdb` into a temporary directory named `<prefix>…` (removed when this process
 * exits), with the `postgres` superuser and trust authentication. Running as root, the directory belongs to
 * the `postgres` user the Debian package creates, and every tool runs as that user: PostgreSQL refuses root.
 * Returns `{ bin, dir, data, user }`.
 */
export function initPostgres(prefix = "paykit-pg-") {
  const bin = postgresBin();
  if (bin === null)
    throw new Error(
      "PostgreSQL is not installed: run the tests through `npm test` (scripts/run.mjs installs it)",
    );
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), prefix)));
  const data = join(dir, "data");
  const user = process.getuid?.() === 0 ? postgresUser() : {};
  if (user.uid !== undefined) execFileSync("chown", [`${user.uid}:${user.gid}`, dir]);
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    { stdio: "pipe", cwd: dir, ...user },
  );
  return { bin, dir, data, user };
}

/**
 * Starts `postgres` on a cluster of {@link initPostgres}, listening on 127.0.0.1:`port` only (its socket in
 * the cluster's directory), with each of `settings` as a `-c name=value`, in a process group of its own.
 * Resolves the child process once `pg_isready` answers; otherwise kills it and rejects with the end of its log.
 */
export async function spawnPostgres(cluster, port, settings = [], timeoutMs = 30_000) {
  const { bin, dir, data, user } = cluster;
  const log = [];
  const child = spawnGroup(
    join(bin, "postgres"),
    ["-D", data, "-h", "127.0.0.1", "-p", String(port), "-k", dir, ...settings.flatMap((s) => ["-c", s])],
    { stdio: ["ignore", "pipe", "pipe"], cwd: dir, ...user },
  );
  track(child, "postgres", log);
  const ready = join(bin, "pg_isready");
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) return Promise.reject(new Error("postgres exited"));
        execFileSync(ready, ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-q"], {
          stdio: "ignore",
        });
        return true;
      },
      "postgres",
      timeoutMs,
    );
  } catch (error) {
    await stopChild(child, "SIGKILL");
    throw new Error(`${error.message}\n${log.join("").slice(-2000)}`);
  }
  return child;
}

/**
 * Starts PostgreSQL on a free loopback port with `initdb` into a temporary directory (as the `postgres`
 * user when running as root, since PostgreSQL refuses root); resolves `{ url, port, stop }` for the
 * `postgres` database and superuser, trust authentication on loopback only. Tuned for tests: no fsync,
 * commits acknowledged before they are written.
 */
export async function startPostgres() {
  const cluster = initPostgres("paykit-pg-");
  const port = await freePort();
  let child;
  try {
    child = await spawnPostgres(cluster, port, [
      "fsync=off",
      "synchronous_commit=off",
      "full_page_writes=off",
      "max_connections=200",
    ]);
  } catch (error) {
    removeDir(cluster.dir);
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await stopChild(child, "SIGINT");
      removeDir(cluster.dir);
    },
  };
}

/**
 * Starts Verdaccio (`verdaccio`: the path of its `bin/verdaccio`, from the test project that installs the
 * pinned version) on a free loopback port, with its configuration and storage in a temporary directory:
 * no uplink (nothing is ever fetched from another registry: what a test installs, it publishes first), no
 * web UI, anyone may read, a user may publish. Creates that user and resolves `{ url, port, token, stop }`:
 * `token` authenticates a publish (`//127.0.0.1:PORT/:_authToken=…` in an npmrc); `stop()` ends the
 * server and removes its storage.
 */
export async function startRegistry({ verdaccio }) {
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-registry-")));
  const port = await freePort();
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
      "    max_users: 10",
      "uplinks: {}",
      "packages:",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "    unpublish: $authenticated",
      "max_body_size: 200mb",
      // A JWT is checked with an HMAC; the legacy token is the password, bcrypt-verified on every request
      // (a quarter of a second of CPU each: 35 s for one npm install that sends it).
      "security:",
      "  api:",
      "    legacy: false",
      "    jwt:",
      "      sign:",
      "        expiresIn: 1h",
      "web:",
      "  enable: false",
      "logs: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const log = [];
  const child = spawnGroup(
    process.execPath,
    [verdaccio, "--config", config, "--listen", `127.0.0.1:${port}`],
    { stdio: ["ignore", "pipe", "pipe"], cwd: dir },
  );
  track(child, "verdaccio", log);
  const url = `http://127.0.0.1:${port}`;
  let token;
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error("verdaccio exited");
      return (await fetch(`${url}/-/ping`)).ok;
    }, "verdaccio");
    const answer = await fetch(`${url}/-/user/org.couchdb.user:paykit-release`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "paykit-release", password: "paykit-release-password" }),
    });
    token = (await answer.json()).token;
    if (!answer.ok || typeof token !== "string")
      throw new Error(`verdaccio refused the user (${answer.status})`);
  } catch (error) {
    await stopChild(child, "SIGKILL");
    removeDir(dir);
    throw new Error(`${error.message}\n${log.join("").slice(-2000)}`);
  }
  return {
    url,
    port,
    token,
    async stop() {
      await stopChild(child, "SIGTERM");
      removeDir(dir);
    },
  };
}
