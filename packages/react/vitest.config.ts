import { testProject } from "../../tests/support/vitest.shared.js";

/**
 * React 19 (this package's dev dependency). tests/react18 runs the same test files against React 18.
 * Exported so that project extends it rather than repeating it.
 */
export const reactTests = {
  include: ["src/**/*.test.{ts,tsx}", "test/**/*.test.{ts,tsx}"],
  // Files that need a DOM say `// @vitest-environment happy-dom`; these settings then apply.
  environmentOptions: {
    happyDOM: {
      url: "https://shop.example/checkout",
      // The 3DS tests define the acquirer's SDK themselves: happy-dom never fetches or runs a script.
      settings: { disableJavaScriptFileLoading: true, handleDisabledFileLoadingAsSuccess: true },
    },
  },
};

export default testProject({ name: "react", ...reactTests, env: { PAYKIT_REACT_MAJOR: "19" } });
