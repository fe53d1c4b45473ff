// The `paykit-mock` CLI for the tests that run it as a process of its own: its source bundled with
// esbuild into one file, once per test process that asks (a worker runs many files: vitest.shared.ts),
// and run with plain `node`. Through tsx, each of the suite's ~45 mock processes compiled and loaded the
// hundred source files one by one, about 0.7 s of a core per start against 0.3 s for the bundle. The
// bundle is made from src/ when a test first asks in a run (a watch-mode re-run starts new workers), so
// it is never staler than the tests' own imports. What this package's node_modules resolves (PGlite,
// pg, msw, zod…) stays an import and loads as it does in the repository; the workspace's packages are
// inlined from src/ (the `@paykit/source` condition). The file sits two levels under the package, where
// the CLI's own lookups of ../../package.json find this package's.
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { removeOnExit } from "../../../scripts/processes.mjs";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/**
 * Whether node's ES module resolution finds the package `specifier` names from this package's
 * directory (in a node_modules of it or of a parent). Not `require.resolve`: pnpm sets NODE_PATH for
 * the scripts it runs, which `require` follows and `import` does not.
 */
function installedHere(specifier: string): boolean {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  for (let dir = PACKAGE_DIR; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", name ?? "", "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

let bundled: Promise<string> | undefined;

/** The path of the bundled CLI: `node <path> [args…]` runs `paykit-mock [args…]`. */
export function mockCli(): Promise<string> {
  bundled ??= (async () => {
    mkdirSync(join(PACKAGE_DIR, "test-results"), { recursive: true });
    const dir = removeOnExit(mkdtempSync(join(PACKAGE_DIR, "test-results", "cli-")));
    const outfile = join(dir, "paykit-mock.mjs");
    await build({
      entryPoints: [join(PACKAGE_DIR, "src/transports/node/cli.ts")],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      conditions: ["@paykit/source"],
      sourcemap: "inline",
      logLevel: "error",
      // CommonJS dependencies inlined into an ES module call require(): give them one.
      banner: {
        js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);',
      },
      plugins: [
        {
          name: "installed-dependencies-stay-imports",
          setup(on) {
            on.onResolve({ filter: /^[^./]/ }, ({ path }) => {
              if (isBuiltin(path)) return { path, external: true };
              if (path.startsWith("@paykit/") || !installedHere(path)) return undefined;
              return { path, external: true };
            });
          },
        },
      ],
    });
    return outfile;
  })();
  return bundled;
}
