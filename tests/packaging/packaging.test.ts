import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What a merchant gets from the registry: the packed tarballs, installed with plain npm into a
// project that has never seen this workspace, then loaded both ways.
const root = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGES = ["contract", "webhooks", "node", "mock-server", "browser"] as const;
const ENTRIES: Record<string, string[]> = {
  "@paykit/contract": ["@paykit/contract"],
  "@paykit/webhooks": ["@paykit/webhooks", "@paykit/webhooks/testing"],
  "@paykit/node": ["@paykit/node"],
  "@paykit/mock-server": ["@paykit/mock-server", "@paykit/mock-server/msw"],
  "@paykit/browser": ["@paykit/browser"],
};

let project: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "paykit-packaging-"));
  const tarballs = join(project, "tarballs");
  mkdirSync(tarballs);
  const overrides: Record<string, string> = {};
  for (const dir of PACKAGES) {
    execFileSync("pnpm", ["pack", "--pack-destination", tarballs], {
      cwd: join(root, "packages", dir),
      stdio: "pipe",
    });
  }
  for (const file of readdirSync(tarballs)) {
    const name = `@paykit/${file.replace(/^paykit-/, "").replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")}`;
    overrides[name] = `file:./tarballs/${file}`;
  }
  // msw is an optional peer of the mock server: a merchant who imports @paykit/mock-server/msw has it.
  const dependencies = { ...overrides, msw: "2.15.0" };
  const manifest = { name: "merchant-app", private: true, dependencies, overrides };
  writeFileSync(join(project, "package.json"), JSON.stringify(manifest, null, 2));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts"], {
    cwd: project,
    stdio: "pipe",
  });
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

function run(args: string[]): string {
  return execFileSync("node", args, { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("the published packages, installed from their tarballs", () => {
  const cases = Object.entries(ENTRIES).flatMap(([pkg, entries]) =>
    entries.map((entry) => [pkg, entry] as const),
  );

  it.each(cases)("%s: import('%s') from ESM", (_pkg, entry) => {
    const out = run([
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(entry)}); console.log(Object.keys(m).length)`,
    ]);
    expect(Number(out.trim())).toBeGreaterThan(0);
  });

  it.each(cases)("%s: require('%s') from CJS", (_pkg, entry) => {
    const out = run(["-e", `console.log(Object.keys(require(${JSON.stringify(entry)})).length)`]);
    expect(Number(out.trim())).toBeGreaterThan(0);
  });

  it("ships no test files and no workspace: ranges", () => {
    for (const pkg of Object.keys(ENTRIES)) {
      const dir = join(project, "node_modules", ...pkg.split("/"));
      const manifest = readFileSync(join(dir, "package.json"), "utf8");
      expect(manifest).not.toContain("workspace:");
      const files = execFileSync("find", [dir, "-name", "*.test.*"], { encoding: "utf8" }).trim();
      expect(files).toBe("");
    }
  });

  it("the browser package ships its <script> build", () => {
    const iife = readFileSync(
      join(project, "node_modules/@paykit/browser/dist/paykit-browser.global.js"),
      "utf8",
    );
    expect(iife).toContain("handlePendingThreeDS");
  });
});
