// The one vitest base every project of the workspace extends (its vitest.config.ts is
// `export default testProject({ name: "…" })` plus what is its own). What is decided here, once:
// - workspace packages load from src/ through the `@paykit/source` export condition, or from dist/ for
//   the suites that test what a merchant installs;
// - timeouts sized for a loaded 2-core CI machine, where turbo runs every project's tests at once;
// - every process a test file started is gone when the file ends (tests/support/cleanup.ts);
// - a worker runs its files one after the other in one module cache (`isolate: false`): a fresh process
//   per file re-imported the packages, zod, PGlite and the frameworks each time, about 120 of the ~700
//   CPU-seconds of `npm test` (docs/decisions/test-files-share-worker.md). A file restores
//   what it stubs (fake timers, globals, spies) in its own hooks; a project whose files cannot be made
//   to (module-level state under test, as in @paykit/browser) sets `isolate: true`;
// - temporary files in RAM when the machine has a tmpfs with room (tests/support/ram-tmpdir.ts).
// Type-level tests (`*.test-d.ts`) are checked by the `typecheck` task (one tsc program over every
// project's src/ and test/: tsconfig.check.json), not a second time by vitest.
import { fileURLToPath } from "node:url";
import type { ViteUserConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { useRamTmpdir } from "./ram-tmpdir.js";

type TestOptions = NonNullable<ViteUserConfig["test"]>;

/** Options of {@link testProject}. */
export interface TestProjectOptions extends Omit<TestOptions, "name"> {
  /** The project's name in vitest's output. */
  name: string;
  /**
   * How the workspace's packages load: `source` (src/ through the `@paykit/source` condition, so a test
   * never runs a stale dist/) or `dist` (the built packages, as a merchant's code loads them; the
   * project's turbo `test` task then depends on `^build`). @default "source"
   */
  packages?: "source" | "dist";
  /**
   * Whether Node-side resolution takes a dependency's `module` build. Off where a dependency's build
   * for bundlers fails on Node (OpenTelemetry's, with extensionless imports). @default true
   */
  moduleCondition?: boolean;
  /**
   * The test files (paths relative to the project) to start before the others: the long ones that
   * mostly wait (processes, servers, a browser), so that they do not start last and run on alone. A
   * list goes in its order: the files of its first pattern, then those of the next…
   */
  startFirst?: RegExp | readonly RegExp[];
}

/**
 * Vitest's order (files slowest in the last run first; on a fresh clone, with no last run, the largest
 * first), except that the files matching `first` go before all the others, pattern by pattern.
 */
function sequencerStarting(first: RegExp | readonly RegExp[]) {
  const patterns = Array.isArray(first) ? first : [first as RegExp];
  return class StartFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = await super.sort(files);
      const rank = (file: TestSpecification) => {
        const path = file.moduleId.slice(file.project.config.root.length + 1);
        const at = patterns.findIndex((pattern) => pattern.test(path));
        return at < 0 ? patterns.length : at;
      };
      // stable: within a rank, vitest's own order
      return sorted
        .map((file, index) => ({ file, index, rank: rank(file) }))
        .sort((a, b) => a.rank - b.rank || a.index - b.index)
        .map((entry) => entry.file);
    }
  };
}

const cleanup = fileURLToPath(new URL("./cleanup.ts", import.meta.url));

/** A project's vitest config on the shared base. */
export function testProject(options: TestProjectOptions): ViteUserConfig {
  const { name, packages = "source", moduleCondition = true, setupFiles, startFirst, ...test } = options;
  const own = setupFiles === undefined ? [] : Array.isArray(setupFiles) ? setupFiles : [setupFiles];
  useRamTmpdir();
  // Vitest runs Node tests in Vite's SSR environment, which takes its conditions from ssr.resolve:
  // both lists need `@paykit/source`, or tests would load a (possibly stale) dist/.
  const resolve =
    packages === "source"
      ? {
          resolve: { conditions: ["@paykit/source", "module", "browser", "development|production"] },
          ssr: {
            resolve: {
              conditions: [
                "@paykit/source",
                ...(moduleCondition ? ["module"] : []),
                "node",
                "development|production",
              ],
            },
          },
        }
      : {};
  return {
    ...resolve,
    test: {
      name,
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      teardownTimeout: 30_000,
      isolate: false,
      ...(startFirst ? { sequence: { sequencer: sequencerStarting(startFirst) } } : {}),
      ...test,
      setupFiles: [cleanup, ...own],
    },
  };
}
