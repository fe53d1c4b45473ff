import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { describe, expect, inject, it } from "vitest";

const buildDir = inject("buildDir");
const read = (file: string) => readFileSync(join(buildDir, file));

/** The part of esbuild's API used here; esbuild itself comes with tsup, a dev dependency of the workspace. */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ text: string }> }>;
}

async function esbuild(): Promise<Esbuild> {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve("tsup"))("esbuild") as Esbuild;
}

/** Bundles a file that imports `names` from the built ESM entry, the way a merchant's bundler would. */
async function bundleImporting(names: string[]): Promise<string> {
  const { build } = await esbuild();
  const result = await build({
    stdin: {
      contents: `import { ${names.join(", ")} } from "./index.js";\nexport { ${names.join(", ")} };`,
      resolveDir: buildDir,
      loader: "js",
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    minify: true,
  });
  return result.outputFiles[0]!.text;
}

describe("the IIFE build for a <script> tag", () => {
  it("weighs at most 1900 bytes minified and gzipped (zlib level 9)", () => {
    expect(gzipSync(read("paykit-browser.global.js"), { level: 9 }).length).toBeLessThanOrEqual(1900);
  });

  it("defines window.Paykit.handlePendingThreeDS and isPaykitThreeDSError, and nothing else runs", () => {
    const page: Record<string, unknown> = {};
    runInNewContext(read("paykit-browser.global.js").toString(), page);
    expect(Object.keys(page)).toEqual(["Paykit"]);
    expect(page.Paykit).toEqual({
      handlePendingThreeDS: expect.any(Function),
      isPaykitThreeDSError: expect.any(Function),
    });
  });
});

describe("the ESM and CJS builds for bundlers", () => {
  it.each(["index.js", "index.cjs", "paykit-browser.global.js"])("%s imports nothing at run time", (file) => {
    const code = read(file).toString();
    expect(code).not.toMatch(/\bimport\s*\(|\bfrom\s*["']|\brequire\(\s*["']/);
    expect(code).not.toContain("@paykit/contract");
  });

  it("import() and require() of the built entry give the same API", async () => {
    const esm = await import(pathToFileURL(join(buildDir, "index.js")).href);
    const cjs = createRequire(import.meta.url)(join(buildDir, "index.cjs"));
    const api = ["PaykitThreeDSError", "handlePendingThreeDS", "isPaykitThreeDSError", "loadScript"];
    expect(Object.keys(esm).sort()).toEqual(api);
    expect(Object.keys(cjs).sort()).toEqual(api);
  });

  it.each([
    ["loadScript", ["loadScript"]],
    ["the error guard", ["isPaykitThreeDSError"]],
  ])("a page importing only %s gets none of the 3DS flow", async (_, names) => {
    const code = await bundleImporting(names);
    for (const flowOnly of [
      "AcquirerThreeDS",
      "challenge-opened",
      "threeDSecurePending",
      "SECRET_KEY_IN_BROWSER",
    ]) {
      expect(code).not.toContain(flowOnly);
    }
  });

  it("a page importing only the error guard gets no script loader either", async () => {
    const code = await bundleImporting(["isPaykitThreeDSError"]);
    expect(code).not.toContain("createElement");
    expect(code).not.toContain("SCRIPT_TIMEOUT");
  });

  it("a page importing handlePendingThreeDS gets the flow (the checks above can fail)", async () => {
    expect(await bundleImporting(["handlePendingThreeDS"])).toContain("AcquirerThreeDS");
  });
});
