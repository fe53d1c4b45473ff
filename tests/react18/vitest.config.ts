// React 18 for @paykit/react's own test files. React 18 is this project's dependency under its real name, so
// pnpm gives react-dom 18 its React 18 (as npm aliases in packages/react it would get the workspace's React 19,
// which it cannot run with); every `react` and `react-dom` import of the tests and of the package's source
// is sent here.
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { ViteUserConfig } from "vitest/config";
import { reactTests } from "../../packages/react/vitest.config.js";
import { testProject } from "../support/vitest.shared.js";

const require = createRequire(import.meta.url);
const home = (name: string) => dirname(require.resolve(`${name}/package.json`));

const config = testProject({
  name: "react18",
  ...reactTests,
  // The real-browser test bundles the page's React from these directories too.
  env: {
    PAYKIT_REACT_MAJOR: "18",
    PAYKIT_REACT_HOME: JSON.stringify({ react: home("react"), "react-dom": home("react-dom") }),
  },
  dir: fileURLToPath(new URL("../../packages/react", import.meta.url)),
});

const react18: ViteUserConfig = {
  ...config,
  // Vite's resolver sends the aliased paths to Node, which loads React 18's files from this project.
  resolve: {
    ...config.resolve,
    alias: [
      { find: /^react(\/.*)?$/, replacement: `${home("react")}$1` },
      { find: /^react-dom(\/.*)?$/, replacement: `${home("react-dom")}$1` },
    ],
  },
};

export default react18;
