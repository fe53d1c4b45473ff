import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({
  name: "browser",
  // A fresh module cache per file: the tests check module-level state (the script loader's one tag per
  // URL, a custom element defined once per page), which the next file must see new.
  isolate: true,
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
});
