import { defineConfig } from "tsup";

export default defineConfig([
  {
    // Named entries keep the published layout (dist/engine/index.js, dist/msw/index.js) whatever the rooms.
    entry: {
      index: "src/index.ts",
      "engine/index": "src/engine.ts",
      "msw/index": "src/transports/msw/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "es2022",
    treeshake: true,
    external: ["msw"],
  },
  {
    entry: { cli: "src/transports/node/cli.ts" },
    outDir: "dist/node",
    format: ["esm"],
    sourcemap: true,
    clean: false,
    target: "es2022",
    platform: "node",
  },
]);
