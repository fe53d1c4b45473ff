import { defineProject } from "vitest/config";

export default defineProject({
  // Workspace packages resolve to src/ through the @paykit/source condition. Vitest runs Node tests in
  // Vite's SSR environment, which takes its conditions from ssr.resolve: both lists need it, or tests
  // would load a (possibly stale) dist/.
  resolve: { conditions: ["@paykit/source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["@paykit/source", "module", "node", "development|production"] } },
  test: {
    name: "browser",
    // Generous for a loaded 2-core CI machine, where turbo runs every package\'s tests at once.
    testTimeout: 30_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Builds the ESM, CJS and IIFE output once into test-results/build for the size, tree-shaking and e2e tests.
    globalSetup: ["./test/global-setup.ts"],
    // Files that need a DOM say `// @vitest-environment happy-dom`; these settings then apply.
    environmentOptions: {
      happyDOM: {
        url: "https://shop.example/checkout",
        settings: {
          // Deliberate: happy-dom never fetches or runs an acquirer script. With file loading disabled it
          // fires `load` on every script tag as it is connected (handleDisabledFileLoadingAsSuccess, no console
          // noise); test/acquirer-network.ts holds that event back so each test plays the network itself:
          // load (after defining its fake AcquirerThreeDS), error, or silence for a timeout.
          disableJavaScriptFileLoading: true,
          handleDisabledFileLoadingAsSuccess: true,
        },
      },
    },
    typecheck: {
      enabled: true,
      include: ["src/**/*.test-d.ts", "test/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
    },
  },
});
