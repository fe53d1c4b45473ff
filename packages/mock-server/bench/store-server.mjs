// A mock for bench/stores.mjs, in its own process: `node bench/store-server.mjs <mode> [url]`, where mode
// is memory, pglite (a new data directory) or postgres (the URL; several processes may share it). With
// SEED_PAYINS=n it creates n payins and reports the process's memory before and after.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMockServer, samplePayin } from "../dist/index.js";

const [mode, url] = process.argv.slice(2);
const store =
  mode === "memory"
    ? "memory"
    : mode === "pglite"
      ? { dataDir: mkdtempSync(join(tmpdir(), "paykit-bench-")) }
      : { url };
const mock = await createMockServer({
  autoAdvance: false,
  adminToken: "bench-admin-token",
  sharedSandbox: false,
  store,
});

const request = (authorization, path, body) => ({
  method: "POST",
  path,
  query: "",
  base: "http://bench",
  header: (name) =>
    name === "authorization" ? authorization : name === "content-type" ? "application/json" : undefined,
  body: JSON.stringify(body),
});

/** Creates `count` records through the engine, 500 requests in flight (the store commits them in batches). */
async function create(authorization, count, bodyOf, path) {
  for (let done = 0; done < count; ) {
    const batch = Math.min(500, count - done);
    const answers = await Promise.all(
      Array.from({ length: batch }, (_, i) =>
        mock.engine.dispatch(request(authorization, path, bodyOf(done + i))),
      ),
    );
    for (const res of answers) if (res.status !== 201) throw new Error(`seeding failed: ${res.body}`);
    done += batch;
  }
}

const info = {
  url: mock.url,
  role: mock.store.role,
  auth: `Basic ${btoa(`${mock.account.publicKey}:${mock.account.secretKey}`)}`,
};
if (process.env.SEED_PAYINS) {
  const count = Number(process.env.SEED_PAYINS);
  globalThis.gc?.();
  const before = process.memoryUsage();
  await create(info.auth, count, () => samplePayin("PIX", { referenceId: "bench" }), "/payin");
  globalThis.gc?.();
  const after = process.memoryUsage();
  info.memory = {
    count,
    rssBytes: after.rss - before.rss,
    heapBytes: after.heapUsed - before.heapUsed,
    rss: after.rss,
  };
}
process.stdout.write(`${JSON.stringify(info)}\n`);
process.once("SIGTERM", () => mock.close().then(() => process.exit(0)));
