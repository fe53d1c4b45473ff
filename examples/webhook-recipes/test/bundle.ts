// Bundles a recipe for a runtime that cannot load the workspace's TypeScript itself (workerd, the Edge
// runtime), from the built packages (dist), the way a deploy tool would.
import { fileURLToPath } from "node:url";
import { type BuildOptions, build } from "esbuild";

/** The bundled code of `entry` (relative to the example's folder). */
export async function bundle(entry: string, options: BuildOptions = {}): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`../${entry}`, import.meta.url))],
    bundle: true,
    write: false,
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "edge-light", "browser", "import"],
    logLevel: "silent",
    ...options,
  });
  const output = result.outputFiles?.[0];
  if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
  return output.text;
}
