import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { checkoutBuild, checkoutIifeBuild, iifeBuild, moduleBuild } from "../tsup.config.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Absolute path of the folder holding the test build (index.js, index.cjs, the IIFEs, checkout.js, checkout.css). */
    buildDir: string;
  }
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Builds the package with the real tsup.config.ts options (no .d.ts) into test-results/build. */
export default async function setup(project: TestProject): Promise<void> {
  // tsup is imported here, not at the top, so that loading this file for types costs nothing.
  const { build } = await import("tsup");
  const outDir = here("../test-results/build");
  await mkdir(outDir, { recursive: true });
  const common = { config: false, silent: true, outDir, tsconfig: here("../tsconfig.json") } as const;
  // Sequential, into a folder of its own: a `pnpm build` running at the same time never sees a half-written dist/.
  await build({
    ...moduleBuild,
    ...common,
    dts: false,
    clean: true,
    entry: { index: here("../src/index.ts") },
  });
  await build({ ...iifeBuild, ...common, entry: { "paykit-browser": here("../src/global.ts") } });
  await build({
    ...checkoutBuild,
    ...common,
    dts: false,
    entry: {
      checkout: here("../src/checkout/index.ts"),
      "checkout-element": here("../src/checkout/define.ts"),
    },
  });
  await build({
    ...checkoutIifeBuild,
    ...common,
    entry: { "paykit-checkout": here("../src/checkout/global.ts") },
  });
  project.provide("buildDir", outDir);
}
