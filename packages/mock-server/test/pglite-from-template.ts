// A setup file of this package's tests (vitest.config.ts): a PGlite data directory that does not exist
// yet, or is empty, starts as a copy of the run's template (tests/support/pglite-template.ts) instead
// of running PGlite's initdb. initdb runs in WASM, ~2.5 s of a core each time, and the suite makes a
// few dozen data directories (each durable harness, every `--data-dir` test, the migration tests); the
// copy is the directory initdb makes, so what PGlite opens, and every byte our code writes, is the same.
// Only this process's PGlite is affected: a `paykit-mock` child process still runs initdb itself.
import { vi } from "vitest";

vi.mock("@electric-sql/pglite", async (importOriginal) => {
  const real = await importOriginal<typeof import("@electric-sql/pglite")>();
  const { cpSync, existsSync, readdirSync } = await import("node:fs");
  const { sharedPgliteTemplate } = await import("../../../tests/support/services.js");
  const create: typeof real.PGlite.create = async (...args: unknown[]) => {
    const [dataDir] = args;
    const onDisk = typeof dataDir === "string" && !dataDir.includes("://");
    if (onDisk && (!existsSync(dataDir) || readdirSync(dataDir).length === 0))
      cpSync(await sharedPgliteTemplate(), dataDir, { recursive: true });
    return (real.PGlite.create as (...a: unknown[]) => ReturnType<typeof real.PGlite.create>)(...args);
  };
  const PGlite = new Proxy(real.PGlite, {
    get: (target, key, receiver) => (key === "create" ? create : Reflect.get(target, key, receiver)),
  });
  return { ...real, PGlite };
});
