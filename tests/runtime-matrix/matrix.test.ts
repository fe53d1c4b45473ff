import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGroup } from "../../scripts/processes.mjs";
import { packWorkspace } from "../support/pack.js";

// The runtimes we promise, each running one scenario (payin, signed webhook, two typed errors, and
// @paykit/react's checkout rendered by react-dom/server) on the packed tarballs installed into a fresh
// project, against the mock started from that same install.
const here = fileURLToPath(new URL(".", import.meta.url));
const bin = (...path: string[]) => join(here, "node_modules", ...path);
// The React that @paykit/react is rendered with in every runtime (the workspace's; its peer range is 18 or 19).
const REACT = "19.3.1";
const PER_RUNTIME_MS = 60_000;
// The machine's Node (the one running vitest), named by its major version; "-installed" if it is also
// one of the registry Nodes of the matrix.
const MAJOR = process.versions.node.split(".")[0] ?? "";
const INSTALLED_NAME = ["22", "24"].includes(MAJOR) ? `node${MAJOR}-installed` : `node${MAJOR}`;
const NODE_INSTALLED = [`${INSTALLED_NAME}-esm`, `${INSTALLED_NAME}-cjs`] as const;

interface Runtime {
  name: string;
  command: string;
  args: string[];
}

let project: string;
let mock: { url: string; close(): Promise<void> };
const controlOf = (server: unknown) =>
  (server as { control: { createAccount(params: object): Promise<object> } }).control;
let config: string;
let runtimes: Runtime[];
const results = new Map<string, Promise<Record<string, string>>>();
/** The msw 3 project (see installMsw3), installed while the runtimes run. */
let msw3Project: Promise<string>;

/** The scenario's imports as an ES module; `reactServer` is where `renderToString` comes from. */
function esmImports(reactServer = "react-dom/server"): string {
  return `import { InvalidPixKeyError, Paykit } from "@paykit/node";
import { PaykitPayment, usePaymentStatus, useThreeDS } from "@paykit/react";
import { parseWebhookRequest, WebhookVerificationError } from "@paykit/webhooks";
import { signWebhook } from "@paykit/webhooks/testing";
import React from "react";
import { renderToString } from "${reactServer}";
import { runScenario } from "./core.mjs";
const deps = { Paykit, InvalidPixKeyError, parseWebhookRequest, WebhookVerificationError, signWebhook,
  React, renderToString, PaykitPayment, usePaymentStatus, useThreeDS };
`;
}

function writeScenarioFiles(): void {
  const core = readFileSync(join(here, "scenario/core.mjs"), "utf8");
  writeFileSync(join(project, "core.mjs"), core);
  writeFileSync(
    join(project, "core.cjs"),
    `${core.replace("export async function runScenario", "async function runScenario")}\nmodule.exports = { runScenario };\n`,
  );
  const readConfig = `JSON.parse(globalThis.Deno ? Deno.env.get("PAYKIT_MATRIX_CONFIG") : process.env.PAYKIT_MATRIX_CONFIG)`;
  writeFileSync(
    join(project, "scenario.mjs"),
    `${esmImports()}console.log("RESULT " + JSON.stringify(await runScenario(${readConfig}, deps)));\n`,
  );
  writeFileSync(
    join(project, "scenario.cjs"),
    `const { InvalidPixKeyError, Paykit } = require("@paykit/node");
const { PaykitPayment, usePaymentStatus, useThreeDS } = require("@paykit/react");
const { parseWebhookRequest, WebhookVerificationError } = require("@paykit/webhooks");
const { signWebhook } = require("@paykit/webhooks/testing");
const React = require("react");
const { renderToString } = require("react-dom/server");
const { runScenario } = require("./core.cjs");
const deps = { Paykit, InvalidPixKeyError, parseWebhookRequest, WebhookVerificationError, signWebhook,
  React, renderToString, PaykitPayment, usePaymentStatus, useThreeDS };
runScenario(${readConfig}, deps).then(
  (result) => console.log("RESULT " + JSON.stringify(result)),
  (error) => { console.error(error); process.exitCode = 1; },
);
`,
  );
  writeFileSync(
    join(project, "worker.mjs"),
    `${esmImports()}export default {
  async fetch(_request, env) {
    try {
      return Response.json(await runScenario(JSON.parse(env.CONFIG), deps));
    } catch (error) {
      return new Response(String(error?.stack ?? error), { status: 500 });
    }
  },
};
`,
  );
  // react-dom/server resolves to React's browser build under the edge bundle's conditions ("worker" comes
  // first in react-dom's exports), which needs MessageChannel when it loads: edge-runtime has none. Pages
  // rendered on an edge runtime use React's build for it, react-dom/server.edge.
  writeFileSync(
    join(project, "edge.mjs"),
    `${esmImports("react-dom/server.edge")}globalThis.__paykitMatrix = runScenario(JSON.parse(globalThis.PAYKIT_MATRIX_CONFIG), deps);\n`,
  );
}

async function bundle(entry: string, outfile: string, format: "esm" | "iife", conditions: string[]) {
  await build({
    absWorkingDir: project,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format,
    platform: "browser",
    conditions,
    target: "es2022",
    logLevel: "error",
  });
}

/**
 * A second project, msw3/ in `project`, with msw 3 instead of 2 and the same tarballs; answers its
 * directory once npm installed it. Started with the main install, so that neither waits for the other
 * (one after the other they were two long serial steps of a full run's longest path).
 */
async function installMsw3(): Promise<string> {
  const msw3 = join(project, "msw3");
  mkdirSync(msw3, { recursive: true });
  const overrides: Record<string, string> = {};
  for (const file of readdirSync(join(project, "tarballs"))) {
    const name = `@paykit/${file.replace(/^paykit-/, "").replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")}`;
    overrides[name] = `file:../tarballs/${file}`;
  }
  const dependencies = { ...overrides, msw: "3.0.5" };
  const manifest = { name: "merchant-app-msw3", private: true, type: "module", dependencies, overrides };
  writeFileSync(join(msw3, "package.json"), JSON.stringify(manifest, null, 2));
  const installed = await runGroup(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts"],
    { cwd: msw3, timeoutMs: 240_000 },
  );
  if (installed.code !== 0)
    throw new Error(`npm install of the msw 3 project failed:\n${installed.stdout}${installed.stderr}`);
  return msw3;
}

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "paykit-matrix-"));
  const tarballs = join(project, "tarballs");
  mkdirSync(tarballs);
  await packWorkspace(tarballs);
  msw3Project = installMsw3();
  msw3Project.catch(() => undefined); // its test reports the failure
  const overrides: Record<string, string> = {};
  for (const file of readdirSync(tarballs)) {
    const name = `@paykit/${file.replace(/^paykit-/, "").replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")}`;
    overrides[name] = `file:./tarballs/${file}`;
  }
  // msw: the mock's optional peer (its /msw entry); @types/node: what a Node merchant has for the types;
  // React for @paykit/react (its peers), with its types for the TypeScript consumers.
  const dependencies = {
    ...overrides,
    msw: "2.15.0",
    "@types/node": "20.19.43",
    react: REACT,
    "react-dom": REACT,
    "@types/react": "19.3.0",
  };
  const manifest = { name: "merchant-app", private: true, type: "module", dependencies, overrides };
  writeFileSync(join(project, "package.json"), JSON.stringify(manifest, null, 2));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts"], {
    cwd: project,
    stdio: "pipe",
  });

  // The mock, from the tarball this project installed.
  const require = createRequire(join(project, "package.json"));
  const mockServer = require("@paykit/mock-server");
  const { generateWebhookSecret } = require("@paykit/webhooks/testing");
  mock = await mockServer.createMockServer({ port: 0, host: "127.0.0.1" });
  const account = await controlOf(mock).createAccount({ webhookSecret: generateWebhookSecret() });
  const keys = account as { publicKey: string; secretKey: string; webhookSecret: string };
  config = JSON.stringify({
    baseUrl: mock.url,
    publicKey: keys.publicKey,
    secretKey: keys.secretKey,
    webhookSecret: keys.webhookSecret,
    payin: mockServer.samplePayin("PIX", { amount: 12_345, referenceId: "matrix-order" }),
  });

  writeScenarioFiles();
  for (const file of ["roots", "subpaths"]) {
    copyFileSync(join(here, `consumer/${file}.ts`), join(project, `consumer-${file}.ts`));
  }
  await bundle("worker.mjs", "worker.bundle.mjs", "esm", ["workerd", "worker", "browser"]);
  await bundle("edge.mjs", "edge.bundle.js", "iife", ["edge-light", "worker", "browser"]);

  const node22 = bin("node22/bin/node");
  const node24 = bin("node24/bin/node");
  const system = process.execPath;
  runtimes = [
    { name: NODE_INSTALLED[0], command: system, args: ["scenario.mjs"] },
    { name: NODE_INSTALLED[1], command: system, args: ["scenario.cjs"] },
    { name: "node22-esm", command: node22, args: ["scenario.mjs"] },
    { name: "node22-cjs", command: node22, args: ["scenario.cjs"] },
    { name: "node24-esm", command: node24, args: ["scenario.mjs"] },
    { name: "node24-cjs", command: node24, args: ["scenario.cjs"] },
    { name: "bun-esm", command: bin("bun/bin/bun.exe"), args: ["scenario.mjs"] },
    { name: "bun-cjs", command: bin("bun/bin/bun.exe"), args: ["scenario.cjs"] },
    {
      name: "deno-esm",
      command: bin("deno/deno"),
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-net=127.0.0.1",
        "--allow-env",
        "--allow-read",
        "scenario.mjs",
      ],
    },
    {
      name: "deno-cjs",
      command: bin("deno/deno"),
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-net=127.0.0.1",
        "--allow-env",
        "--allow-read",
        "scenario.cjs",
      ],
    },
    {
      name: "workerd",
      command: node24,
      args: [join(here, "drivers/workerd.mjs"), join(project, "worker.bundle.mjs")],
    },
    {
      name: "edge-runtime",
      command: system,
      args: [join(here, "drivers/edge.mjs"), join(project, "edge.bundle.js")],
    },
  ];
  // Two at a time (CI has 2 cores): each runtime's promise is created here and awaited by its test.
  const queue = [...runtimes];
  const workers = Array.from({ length: 2 }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const runtime = next;
      const done = runScenario(runtime);
      results.set(runtime.name, done);
      await done.catch(() => undefined);
    }
  });
  void Promise.all(workers);
  while (results.size < runtimes.length) await new Promise((resolve) => setTimeout(resolve, 10));
}, 300_000);

afterAll(async () => {
  await mock?.close();
  await msw3Project?.catch(() => undefined); // npm writes in the project until it is done
  if (project) rmSync(project, { recursive: true, force: true });
  const passed = [...results.keys()].filter((name) => settled.get(name) === "ok");
  console.log(
    `runtime-matrix: ${passed.length}/${runtimes?.length ?? 0} runtimes passed: ${passed.join(", ")}`,
  );
});

const settled = new Map<string, "ok" | "failed">();

// Each runtime runs in a process group of its own (scripts/processes.mjs): a hung one is killed with
// its helpers (workerd under its Node driver) at PER_RUNTIME_MS.
async function runScenario(runtime: Runtime): Promise<Record<string, string>> {
  const { code, signal, stdout, stderr, timedOut } = await runGroup(runtime.command, runtime.args, {
    cwd: project,
    timeoutMs: PER_RUNTIME_MS,
    env: { ...process.env, PAYKIT_MATRIX_CONFIG: config, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || !line) {
    settled.set(runtime.name, "failed");
    console.log(`runtime-matrix: ${runtime.name} FAILED`);
    const how = timedOut ? `killed after ${PER_RUNTIME_MS} ms` : `exit ${code ?? signal}`;
    throw new Error(
      `${runtime.name} failed (${line ? how : `${how}, no RESULT line`})\n${stdout}\n${stderr}`,
    );
  }
  const result = JSON.parse(line.slice("RESULT ".length)) as Record<string, string>;
  settled.set(runtime.name, "ok");
  console.log(
    `runtime-matrix: ${runtime.name} ok (payin ${result.payin}, webhook verified, ${result.payoutError}; ${result.secretMissing}; @paykit/react ${result.react})`,
  );
  return result;
}

describe("the scenario on every runtime, from the packed tarballs", () => {
  const names = [
    ...NODE_INSTALLED,
    "node22-esm",
    "node22-cjs",
    "node24-esm",
    "node24-cjs",
    "bun-esm",
    "bun-cjs",
    "deno-esm",
    "deno-cjs",
    "workerd",
    "edge-runtime",
  ];
  it.each(names)(
    "%s: payin, signed webhook, typed errors",
    async (label) => {
      const runtime = runtimes.find((r) => r.name === label);
      expect(runtime).toBeDefined();
      const result = await results.get(runtime?.name ?? "");
      expect(result?.payin).toMatch(/^pi_/);
      expect(result?.webhook).toBe(`verified payin ${result?.payin}`);
      expect(result?.tampered).toMatch(/^WebhookVerificationError /);
      expect(result?.payoutError).toBe("InvalidPixKeyError INVALID_PIX_KEY");
      expect(result?.secretMissing).toBe("WebhookVerificationError SECRET_MISSING");
    },
    PER_RUNTIME_MS * 6,
  );

  // The same process rendered @paykit/react's checkout with react-dom/server: @paykit/browser, which it
  // imports, must load where there is no DOM, and React's server build of each runtime must run it.
  it.each(names)(
    "%s: @paykit/react renders the payment screen's placeholder on the server",
    async (label) => {
      const result = await results.get(label);
      expect(result?.react).toBe(`placeholder, hooks idle (React ${REACT})`);
    },
    PER_RUNTIME_MS * 6,
  );
});

// TypeScript consumers: the merchant files in consumer/, checked against the installed tarballs.
const COMPILERS = {
  "typescript-5": () => bin("typescript/bin/tsc"),
  "typescript-7": () => bin("@typescript/native-preview/bin/tsgo"),
} as const;
const RESOLUTIONS = {
  node16: { module: "node16", moduleResolution: "node16" },
  nodenext: { module: "nodenext", moduleResolution: "nodenext" },
  bundler: { module: "preserve", moduleResolution: "bundler" },
  node10: { module: "commonjs", moduleResolution: "node10" },
} as const;

function typecheck(compiler: keyof typeof COMPILERS, resolution: keyof typeof RESOLUTIONS, files: string[]) {
  const name = `tsconfig.${compiler}.${resolution}.${files.map((file) => file.replace(/\.ts$/, "")).join("+")}.json`;
  const compilerOptions = {
    ...RESOLUTIONS[resolution],
    target: "es2022",
    lib: ["es2022", "dom"],
    strict: true,
    noEmit: true,
    // Most merchants' setting; and checking zod's, msw's and @types/node's own files took ~25 s a run.
    skipLibCheck: true,
    esModuleInterop: true,
    types: ["node"],
  };
  writeFileSync(join(project, name), JSON.stringify({ compilerOptions, files }, null, 2));
  return runGroup(process.execPath, [COMPILERS[compiler](), "-p", name, "--pretty", "false"], {
    cwd: project,
    timeoutMs: 120_000,
  }).then(({ code, stdout, stderr }) => ({ ok: code === 0, output: `${stdout}${stderr}`.trim() }));
}

// Concurrent, two at a time (maxConcurrency in vitest.config.ts): tsc takes ~8 s a run on 2 cores.
describe.concurrent("TypeScript consumers of every entry point, from the packed tarballs", () => {
  const cases = (["typescript-5", "typescript-7"] as const).flatMap((compiler) =>
    (["node16", "nodenext", "bundler"] as const).map((resolution) => [compiler, resolution] as const),
  );

  it.for(cases)("%s, moduleResolution %s: clean", async ([compiler, resolution], { expect }) => {
    const { ok, output } = await typecheck(compiler, resolution, [
      "consumer-roots.ts",
      "consumer-subpaths.ts",
    ]);
    console.log(`runtime-matrix: ${compiler} ${resolution} ${ok ? "ok" : "FAILED"}`);
    expect(output).toBe("");
    expect(ok).toBe(true);
  });

  it("typescript-5, moduleResolution node10: the root entry points type-check", async ({ expect }) => {
    const { ok, output } = await typecheck("typescript-5", "node10", ["consumer-roots.ts"]);
    expect(output).toBe("");
    expect(ok).toBe(true);
  });

  it("typescript-5, moduleResolution node10: subpaths either resolve or fail only as 'cannot find module' (docs/decisions/observability.md)", async ({
    expect,
  }) => {
    const { ok, output } = await typecheck("typescript-5", "node10", ["consumer-subpaths.ts"]);
    const errors = output.split("\n").filter((line) => line.includes("error TS"));
    const unresolved = errors.map((line) => /error TS2307: Cannot find module '([^']+)'/.exec(line)?.[1]);
    console.log(
      `runtime-matrix: typescript-5 node10 subpaths ${ok ? "ok" : `unresolved: ${unresolved.join(", ")}`}`,
    );
    expect(unresolved.every((specifier) => specifier?.startsWith("@paykit/"))).toBe(true);
    expect(ok || unresolved.length > 0).toBe(true);
  });
});

// The mock's msw adapter with both majors its peer range names: msw 2 on the installed Node 20, msw 3
// (which needs Node >= 22.12) on the npm Node 22, each in a project installed from the tarballs.
describe("@paykit/mock-server/msw with msw 2 and msw 3", () => {
  /** Runs the msw scenario with `node` in `cwd` (a project installed from the tarballs). */
  function mswRoundTrip(node: string, cwd: string): Record<string, string> {
    copyFileSync(join(here, "scenario/msw.mjs"), join(cwd, "msw-scenario.mjs"));
    const out = execFileSync(node, ["msw-scenario.mjs"], { cwd, encoding: "utf8", timeout: PER_RUNTIME_MS });
    const line = out.split("\n").find((l) => l.startsWith("RESULT "));
    if (!line) throw new Error(`the msw scenario printed no RESULT line:\n${out}`);
    const result = JSON.parse(line.slice("RESULT ".length)) as Record<string, string>;
    console.log(
      `runtime-matrix: msw ${result.msw} on node ${node === process.execPath ? "20" : "22"} ok (${result.status}, ${result.error})`,
    );
    return result;
  }

  it("msw 2.15.0 on Node 20: a paid PIX payin and a typed 404", () => {
    expect(mswRoundTrip(process.execPath, project)).toEqual({
      msw: "2.15.0",
      status: "APPROVED",
      error: "NotFoundError NOT_FOUND",
    });
  });

  it("msw 3.0.5 on Node 22: a paid PIX payin and a typed 404", async () => {
    expect(mswRoundTrip(bin("node22/bin/node"), await msw3Project)).toEqual({
      msw: "3.0.5",
      status: "APPROVED",
      error: "NotFoundError NOT_FOUND",
    });
  }, 180_000);
});
