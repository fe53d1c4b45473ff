import { defineConfig } from "tsup";

/**
 * The ESM and CJS builds with their type declarations. React, react-dom and @paykit/browser stay imports
 * (peer and dependency), so the page has one copy of each. Every export is a hook or a component that runs in
 * the browser, so the files start with "use client" for React Server Components (Next.js App Router).
 */
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2020",
  platform: "browser",
  // No `treeshake` (rollup): it drops the "use client" banner; esbuild's own bundling keeps only what is used.
  banner: { js: '"use client";' },
});
