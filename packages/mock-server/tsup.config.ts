import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts", "src/engine/index.ts", "src/msw/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "es2022",
    treeshake: true,
    external: ["msw"],
  },
  {
    entry: ["src/node/cli.ts"],
    outDir: "dist/node",
    format: ["esm"],
    sourcemap: true,
    clean: false,
    target: "es2022",
    platform: "node",
  },
]);
