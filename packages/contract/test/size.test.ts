// Bundlers keep only what a page uses from `@paykit/contract/br` (issue 12): a one-validator import is
// bundled with esbuild, minified and gzipped, and weighed. Budgets in bytes are deterministic.
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

async function weigh(
  entry: string,
  names: string[],
): Promise<{ minified: number; gzipped: number; code: string }> {
  const out = await build({
    stdin: {
      contents: `import { ${names.join(", ")} } from "./src/${entry}.ts"; console.log(${names.join(", ")});`,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
    platform: "browser",
  });
  const bytes = out.outputFiles[0]!.contents;
  return {
    minified: bytes.length,
    gzipped: gzipSync(bytes, { level: 9 }).length,
    code: new TextDecoder().decode(bytes),
  };
}

describe("one-function imports stay small", () => {
  it.each([
    ["br", ["isValidCpf"], 2_048],
    ["br", ["isValidCnpj"], 2_048],
    ["br", ["isValidPixKey"], 4_096],
    ["br", ["parseBrCode"], 4_096],
    ["br", ["isValidBoletoLine"], 4_096],
    ["rules", ["keyMode", "WEBHOOK_HEADERS"], 1_024],
    // both languages' texts are most of it: a checkout shows pt-BR and en
    ["messages", ["formatPaymentError"], 4_096],
  ] as const)(
    "@paykit/contract/%s { %s } is at most %i B min+gz, without zod",
    async (entry, names, budget) => {
      const { minified, gzipped, code } = await weigh(entry, [...names]);
      console.log(
        `size: @paykit/contract/${entry} { ${names.join(", ")} }: ${minified} B minified, ${gzipped} B min+gz`,
      );
      expect(gzipped).toBeLessThanOrEqual(budget);
      // zod's error map and its `$ZodType` constructors would show here if a schema had been pulled in.
      expect(code).not.toMatch(/\$Zod|zod/i);
    },
  );
});

describe("the OpenAPI generator has its own subpath", () => {
  it.each([
    ["index", false],
    ["openapi", true],
  ] as const)("all of ./src/%s.ts, bundled, holds the document's generator: %s", async (entry, holds) => {
    const out = await build({
      stdin: {
        contents: `import * as entry from "./src/${entry}.ts"; console.log(entry);`,
        resolveDir: root,
        loader: "ts",
      },
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
    });
    const code = new TextDecoder().decode(out.outputFiles[0]!.contents);
    // Strings only the generator writes: its rules extension and its component references.
    expect(code.includes("x-paykit-rules")).toBe(holds);
    expect(code.includes("#/components/schemas/")).toBe(holds);
  });
});
