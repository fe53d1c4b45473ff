// generated/openapi.d.ts (checked by types.test-d.ts) must be what openapi-typescript makes of the
// committed document today.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

it("generated/openapi.d.ts is current (run `pnpm --filter @paykit-tests/openapi types` when this fails)", () => {
  const dir = mkdtempSync(join(tmpdir(), "paykit-openapi-"));
  try {
    const out = join(dir, "openapi.d.ts");
    const bin = fileURLToPath(new URL("node_modules/.bin/openapi-typescript", import.meta.url));
    const doc = fileURLToPath(new URL("../../docs/openapi.json", import.meta.url));
    execFileSync(bin, [doc, "-o", out], { stdio: "pipe" });
    const committed = readFileSync(new URL("generated/openapi.d.ts", import.meta.url), "utf8");
    expect(readFileSync(out, "utf8")).toBe(committed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
