// A vitest globalSetup that starts Redis and PostgreSQL (scripts/services.mjs) only when a test file of
// the run asks for one, once per run: it serves a small loopback endpoint that starts the named
// service on its first request and answers its URL to every later one (tests/support/services.ts
// asks it). A run of test files that need neither starts neither. The same endpoint makes, on first
// request, the run's PGlite template directory (pglite-template.ts).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { startPostgres, startRedis, type TestService } from "../../scripts/services.mjs";
import { makePgliteTemplate } from "./pglite-template.js";
import type { SharedServiceName } from "./services.js";

let projectDir = process.cwd();
const STARTERS: Record<SharedServiceName, () => Promise<TestService>> = {
  postgres: startPostgres,
  redis: startRedis,
  "pglite-template": () => makePgliteTemplate(projectDir),
};

const started = new Map<SharedServiceName, Promise<TestService>>();
let server: Server | undefined;

export async function setup(project: TestProject): Promise<void> {
  projectDir = project.config.root;
  server = createServer((req, res) => {
    const name = req.url?.slice(1) as SharedServiceName;
    if (!Object.hasOwn(STARTERS, name)) {
      res.writeHead(404, { connection: "close" }).end(`no service ${req.url}`);
      return;
    }
    let service = started.get(name);
    if (service === undefined) {
      service = STARTERS[name]();
      started.set(name, service);
    }
    // `connection: close`: a test process whose event loop PGlite's WASM held for seconds would
    // otherwise reuse a kept-alive connection this server had closed meanwhile ("fetch failed").
    service.then(
      ({ url }) =>
        res
          .writeHead(200, { "content-type": "application/json", connection: "close" })
          .end(JSON.stringify({ url })),
      (error: Error) => res.writeHead(500, { connection: "close" }).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  project.provide("testServices", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

export async function teardown(): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  const services = await Promise.allSettled(started.values());
  await Promise.all(services.map((s) => (s.status === "fulfilled" ? s.value.stop() : undefined)));
  started.clear();
}
