import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packWorkspace } from "../support/pack.js";

// What a merchant gets from the registry: the packed tarballs, installed with plain npm into a
// project that has never seen this workspace, then loaded both ways.
const root = fileURLToPath(new URL("../..", import.meta.url));
const ENTRIES: Record<string, string[]> = {
  "@paykit/contract": ["@paykit/contract", "@paykit/contract/br", "@paykit/contract/rules"],
  "@paykit/webhooks": [
    "@paykit/webhooks",
    "@paykit/webhooks/testing",
    "@paykit/webhooks/errors",
    "@paykit/webhooks/redis",
    "@paykit/webhooks/postgres",
    "@paykit/webhooks/dedupe",
    "@paykit/webhooks/order",
  ],
  "@paykit/node": [
    "@paykit/node",
    "@paykit/node/checkout",
    "@paykit/node/checkout/redis",
    "@paykit/node/checkout/postgres",
  ],
  "@paykit/mock-server": ["@paykit/mock-server", "@paykit/mock-server/engine", "@paykit/mock-server/msw"],
  "@paykit/browser": ["@paykit/browser", "@paykit/browser/checkout", "@paykit/browser/checkout/element"],
  "@paykit/react": ["@paykit/react"],
};

let project: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "paykit-packaging-"));
  const tarballs = join(project, "tarballs");
  mkdirSync(tarballs);
  const overrides: Record<string, string> = {};
  await packWorkspace(tarballs);
  for (const file of readdirSync(tarballs)) {
    const name = `@paykit/${file.replace(/^paykit-/, "").replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")}`;
    overrides[name] = `file:./tarballs/${file}`;
  }
  // msw, PGlite and pg are optional peers of the mock server: a merchant who imports
  // @paykit/mock-server/msw has msw, one who keeps the mock's state in a directory or in PostgreSQL
  // installs the driver (the README's commands).
  // React and its types are peers of @paykit/react: a React app has them.
  const react = {
    react: "19.3.1",
    "react-dom": "19.3.1",
    "@types/react": "19.3.0",
    "@types/react-dom": "19.3.0",
  };
  const dependencies = {
    ...overrides,
    ...react,
    msw: "2.15.0",
    "@electric-sql/pglite": "0.5.16",
    pg: "8.23.1",
  };
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

  // One copy of every class in a merchant's process (issue 12): an error thrown inside one package is
  // `instanceof` the class imported from another package or another entry point, in ESM and in CJS.
  const identityChecks = `
    const paykit = new node.Paykit({ publicKey: "pk_test_a", secretKey: "sk_test_b", baseUrl: "http://127.0.0.1:1" });
    const fromClient = await paykit.webhooks.parse("{}", {}).catch((e) => e);
    const fromPackage = await webhooks.verifyWebhook("{}", {}, undefined).catch((e) => e);
    const boleto = (() => { try { br.parseBoletoLine("1"); } catch (e) { return e; } })();
    console.log(JSON.stringify([
      fromClient.code,
      fromClient instanceof node.WebhookVerificationError,
      fromClient instanceof webhooks.WebhookVerificationError,
      fromClient instanceof errors.WebhookVerificationError,
      fromPackage instanceof node.WebhookVerificationError,
      boleto instanceof contract.BoletoError,
      br.isValidCpf === contract.isValidCpf,
    ]));`;
  const expected = ["SECRET_MISSING", true, true, true, true, true, true];

  it("keeps one copy of every class across packages and entry points, in ESM", () => {
    const out = run([
      "--input-type=module",
      "-e",
      `import * as node from "@paykit/node"; import * as webhooks from "@paykit/webhooks";
       import * as errors from "@paykit/webhooks/errors"; import * as contract from "@paykit/contract";
       import * as br from "@paykit/contract/br";
       ${identityChecks}`,
    ]);
    expect(JSON.parse(out)).toEqual(expected);
  });

  it("keeps one copy of every class across packages and entry points, in CJS", () => {
    const out = run([
      "-e",
      `const node = require("@paykit/node"), webhooks = require("@paykit/webhooks");
       const errors = require("@paykit/webhooks/errors"), contract = require("@paykit/contract");
       const br = require("@paykit/contract/br");
       (async () => { ${identityChecks} })();`,
    ]);
    expect(JSON.parse(out)).toEqual(expected);
  });

  it("ships readable code with source maps (sourcesContent) and inlines no other @paykit package", () => {
    for (const pkg of ["node", "webhooks", "contract", "mock-server"]) {
      const dist = join(project, "node_modules/@paykit", pkg, "dist");
      const index = readFileSync(join(dist, "index.js"), "utf8");
      // Unminified: a production stack trace points at a line a person can read.
      expect(index.split("\n").length, pkg).toBeGreaterThan(20);
      const map = JSON.parse(readFileSync(join(dist, "index.js.map"), "utf8")) as {
        sourcesContent?: string[];
      };
      expect(map.sourcesContent?.length, pkg).toBeGreaterThan(0);
    }
    const client = readFileSync(join(project, "node_modules/@paykit/node/dist/index.js"), "utf8");
    expect(client).not.toContain("class WebhookVerificationError");
    expect(client).not.toContain("z.strictObject");
  });

  // NestJS's default tsconfig (`module: commonjs`, `moduleResolution: node`) reads no `exports` map:
  // each subpath's types come from the package's `typesVersions`.
  it("resolves the types of every entry point under moduleResolution node (node10), as in a NestJS project", () => {
    const entries = Object.values(ENTRIES).flat();
    const dir = join(project, "node10");
    mkdirSync(dir, { recursive: true });
    const imports = entries.map((entry, i) => `import * as entry${i} from ${JSON.stringify(entry)};`);
    const uses = entries.map((_, i) => `entry${i}`).join(", ");
    writeFileSync(join(dir, "index.ts"), `${imports.join("\n")}\nexport const all = [${uses}];\n`);
    const tsconfig = {
      compilerOptions: {
        // NestJS's defaults, with our declaration files checked too (skipLibCheck off): an import
        // inside them that node10 cannot resolve is an error as well
        module: "commonjs",
        moduleResolution: "node",
        esModuleInterop: true,
        target: "es2021",
        lib: ["es2023", "esnext.disposable", "dom"], // `await using` of the mock's types
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      files: ["index.ts"],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    let out = "";
    try {
      out = execFileSync("node", [tsc, "-p", dir, "--traceResolution"], {
        cwd: project,
        encoding: "utf8",
        maxBuffer: 512 * 1024 * 1024, // the resolution trace is long
      });
    } catch (error) {
      const { stdout = "", message } = error as { stdout?: string; message: string };
      const errors = stdout.split("\n").filter((line) => line.includes("error TS"));
      throw new Error(`tsc --moduleResolution node failed: ${errors.join("\n") || message}`);
    }
    // every entry resolved to a declaration file of the installed package
    for (const entry of entries) {
      expect(out, entry).toMatch(
        new RegExp(
          `Module name '${entry}' was successfully resolved to '[^']*/node_modules/${entry.split("/").slice(0, 2).join("/")}/dist/[^']*\\.d\\.c?ts'`,
        ),
      );
    }
  });

  // A receiver imports the deduplicator, the order guard and the error guards from @paykit/node; importing the client
  // must still load no schema (the contract's and the webhooks package's main entries, zod).
  it("importing @paykit/node loads neither schemas nor the webhooks parser, in ESM and CJS", () => {
    // The resolve hook runs on the loader's own thread: it appends to a file, read once the import is done.
    const record = join(project, "resolved-esm.txt");
    const hooks = `import { appendFileSync } from "node:fs";
      export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        appendFileSync(${JSON.stringify(record)}, "resolved " + resolved.url + "\\n");
        return resolved;
      }`;
    const esm = run([
      "--input-type=module",
      "-e",
      `import { register } from "node:module";
       register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hooks)}));
       const node = await import("@paykit/node");
       console.log(typeof node.WebhookDeduplicator, typeof node.WebhookOrderGuard, typeof node.isKnownPayinStatus, typeof node.parseWebhookRequest);
       console.log((await import("node:fs")).readFileSync(${JSON.stringify(record)}, "utf8"));`,
    ]);
    const cjs = run([
      "-e",
      `const node = require("@paykit/node");
       for (const file of Object.keys(require.cache)) console.log("resolved " + file);
       console.log(typeof node.WebhookDeduplicator, typeof node.WebhookOrderGuard, typeof node.isKnownPayinStatus, typeof node.parseWebhookRequest);`,
    ]);
    for (const out of [esm, cjs]) {
      expect(out).toContain("function function function function");
      const loaded = out.split("\n").filter((line) => line.startsWith("resolved "));
      expect(loaded.some((line) => line.includes("/@paykit/webhooks/dist/"))).toBe(true);
      expect(
        loaded.filter((line) =>
          /\/@paykit\/(contract|webhooks)\/dist\/index\.c?js$|\/node_modules\/zod\//.test(line),
        ),
      ).toEqual([]);
    }
  });

  it("ships an llms.txt for coding agents, whose links inside the package resolve", () => {
    for (const pkg of Object.keys(ENTRIES)) {
      const dir = join(project, "node_modules", ...pkg.split("/"));
      const text = readFileSync(join(dir, "llms.txt"), "utf8");
      expect(text.startsWith(`# ${pkg}\n`), pkg).toBe(true);
      const local = [...text.matchAll(/\]\(([^)]+)\)/g)]
        .map((match) => match[1] as string)
        .filter((link) => !link.startsWith("https://"));
      expect(local, pkg).toEqual(["README.md"]);
      for (const link of local)
        expect(readFileSync(join(dir, link), "utf8").length, `${pkg} ${link}`).toBeGreaterThan(0);
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

describe("the README's npm path, from the installed tarballs", () => {
  /** `npx paykit-mock …` from the installed tarballs, once it printed its address and the default keys. */
  async function startInstalledMock(args: string[], env: Record<string, string> = {}) {
    const { spawnGroup } = await import("../../scripts/processes.mjs");
    // Its own process group: npx runs the bin as a child, which a signal to npx alone leaves running.
    const child = spawnGroup(
      "npx",
      ["--no-install", "paykit-mock", ...args, "--port", "0", "--host", "127.0.0.1"],
      {
        cwd: project,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...env },
      },
    );
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const groupAlive = () => {
      try {
        process.kill(-(child.pid as number), 0);
        return true;
      } catch {
        return false;
      }
    };
    // npx exits before the paykit-mock it started has closed its store (and released a --data-dir's
    // lock): stopping waits for the whole process group to be gone.
    const stop = async () => {
      try {
        process.kill(-(child.pid as number), "SIGTERM");
      } catch {
        // already gone
      }
      await exited;
      for (const deadline = Date.now() + 30_000; groupAlive() && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    // PGlite opens its data directory in WASM: seconds alone, far more on a loaded 2-core CI machine.
    const deadline = Date.now() + 90_000;
    while (!/http:\/\/127\.0\.0\.1:\d+/.test(out) || !/State: .*\n/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) {
        stop();
        throw new Error(`paykit-mock did not start (exit ${child.exitCode}): ${out}${err}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return {
      stop,
      out,
      url: out.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0] as string,
      publicKey: out.match(/pk_test_\w+/)?.[0] as string,
      secretKey: out.match(/sk_test_\w+/)?.[0] as string,
    };
  }

  it("`npx paykit-mock --manual --default-keys …` serves the mock with those keys and the same webhook secret at every start, and a client built from the printed keys pays through it", async () => {
    const readmeArgs = ["--manual", "--default-keys", "pk_test_local0000000001:sk_test_local0000000001"];
    const first = await startInstalledMock(readmeArgs);
    await first.stop();
    const { stop, url, publicKey, out } = await startInstalledMock(readmeArgs);
    // the secret key given is not printed back: the user has it
    const secretKey = "sk_test_local0000000001";
    try {
      expect(publicKey).toBe("pk_test_local0000000001");
      expect(out).not.toContain(secretKey);
      expect(out).toContain("secret key: the one given in --default-keys (not printed)");
      const secret = out.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
      expect(secret).toBeDefined();
      expect(first.out.match(/whsec_[A-Za-z0-9+/=]+/)?.[0]).toBe(secret);
      // the installed @paykit/node against it, as the README's second block does
      const script = `
        const { Paykit } = await import("@paykit/node");
        const { samplePayin } = await import("@paykit/mock-server");
        const paykit = new Paykit({ publicKey: ${JSON.stringify(publicKey)}, secretKey: ${JSON.stringify(secretKey)}, baseUrl: ${JSON.stringify(url)} });
        const payin = await paykit.payins.create(samplePayin("PIX"));
        console.log(payin.status, payin.pix.qrcode.length > 0);`;
      expect(run(["--input-type=module", "-e", script]).trim()).toBe("PENDING true");
    } finally {
      stop();
    }
  });

  it("`PAYKIT_MOCK_ADMIN_TOKEN=… npx paykit-mock --shared`: a test run makes its own account and drives it with its keys", async () => {
    const { stop, url, out } = await startInstalledMock(["--shared"], {
      PAYKIT_MOCK_ADMIN_TOKEN: "team-admin-token",
    });
    try {
      expect(out).toContain("Shared sandbox: ");
      const script = `
        const { createHttpControl } = await import("@paykit/mock-server");
        const { Paykit } = await import("@paykit/node");
        const url = ${JSON.stringify(url)};
        const keys = await createHttpControl({ url }).createAccount({ balance: 50_000, payoutApproval: "manual" });
        const control = createHttpControl({ url, credentials: keys });
        const paykit = new Paykit({ publicKey: keys.publicKey, secretKey: keys.secretKey, baseUrl: url });
        const payout = await paykit.payouts.create({ amount: 1_000, pixKey: "payouts@example.com", pixKeyType: "EMAIL", referenceId: "team-run-1" });
        const approved = await control.approvePayout(payout.id);
        const refused = await control.clock().catch((error) => error.status);
        console.log(payout.status, approved.status, refused);`;
      expect(run(["--input-type=module", "-e", script]).trim()).toBe("AWAITING_APPROVAL APPROVED 403");
    } finally {
      stop();
    }
  });

  /** `npx paykit-mock <args>` from the installed tarballs, to its end, with `env` as its only PAYKIT_* variables. */
  async function installedCli(args: string[], env: Record<string, string> = {}) {
    const { runGroup } = await import("../../scripts/processes.mjs");
    const clean = { ...process.env };
    for (const name of Object.keys(clean)) if (name.startsWith("PAYKIT_")) delete clean[name];
    return runGroup("npx", ["--no-install", "paykit-mock", ...args], {
      cwd: project,
      env: { ...clean, ...env },
      timeoutMs: 120_000,
    });
  }

  it("`npx paykit-mock account create --env` on a team sandbox prints a .env whose keys and secret work", async () => {
    const sandbox = await startInstalledMock(["--shared", "--manual"], {
      PAYKIT_MOCK_ADMIN_TOKEN: "team-admin-token",
    });
    try {
      const opened = await installedCli(["account", "create", "--url", sandbox.url, "--env"]);
      expect(opened.code, opened.stderr).toBe(0);
      const env = Object.fromEntries(
        opened.stdout
          .split("\n")
          .filter((line: string) => line.startsWith("PAYKIT_"))
          .map((line: string) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      ) as Record<string, string>;
      expect(Object.keys(env)).toEqual([
        "PAYKIT_BASE_URL",
        "PAYKIT_PUBLIC_KEY",
        "PAYKIT_SECRET_KEY",
        "PAYKIT_WEBHOOK_SECRET",
      ]);
      // the installed client and webhooks package with those values, as an app reads its .env
      const script = `
        import { createServer } from "node:http";
        const { Paykit } = await import("@paykit/node");
        const { createHttpControl, samplePayin } = await import("@paykit/mock-server");
        const paykit = new Paykit({ publicKey: process.env.PAYKIT_PUBLIC_KEY, secretKey: process.env.PAYKIT_SECRET_KEY, baseUrl: process.env.PAYKIT_BASE_URL, webhookSecret: process.env.PAYKIT_WEBHOOK_SECRET });
        let verified = "none";
        const receiver = createServer((req, res) => {
          let body = "";
          req.on("data", (c) => (body += c));
          req.on("end", async () => {
            try { verified = (await paykit.webhooks.parse(body, req.headers)).data.status; } catch (e) { verified = e.code; }
            res.writeHead(204).end();
          });
        });
        await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
        const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl: "http://127.0.0.1:" + receiver.address().port }));
        const control = createHttpControl({ url: process.env.PAYKIT_BASE_URL, credentials: { publicKey: process.env.PAYKIT_PUBLIC_KEY, secretKey: process.env.PAYKIT_SECRET_KEY } });
        await control.payPayin(payin.id, { awaitWebhooks: true });
        receiver.close();
        console.log(payin.status, verified);`;
      const ran = execFileSync("node", ["--input-type=module", "-e", script], {
        cwd: project,
        encoding: "utf8",
        env: { ...process.env, ...env },
      });
      expect(ran.trim()).toBe("PENDING APPROVED");
    } finally {
      await sandbox.stop();
    }
  });

  it("`npx paykit-mock trigger` with --amount, --reference-id, --data and --payin, and with a listener attached", async () => {
    const mock = await startInstalledMock(["--manual"]);
    try {
      const opened = await installedCli(["account", "create", "--url", mock.url, "--env"]);
      const env = Object.fromEntries(
        opened.stdout
          .split("\n")
          .filter((line: string) => line.startsWith("PAYKIT_"))
          .map((line: string) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      ) as Record<string, string>;
      writeFileSync(join(project, "order.json"), JSON.stringify({ customer: { name: "João Ninguém" } }));
      const made = await installedCli(
        [
          "trigger",
          "payin.approved",
          "--url",
          mock.url,
          "--amount",
          "14990",
          "--reference-id",
          "order-1042",
          "--data",
          "order.json",
          "--json",
        ],
        env,
      );
      expect(made.code, made.stderr).toBe(0);
      const run = JSON.parse(made.stdout) as { ok: boolean; steps: { id: string; status: string }[] };
      expect(run.ok).toBe(true);
      const check = `
        const { Paykit } = await import("@paykit/node");
        const paykit = new Paykit({ publicKey: process.env.PAYKIT_PUBLIC_KEY, secretKey: process.env.PAYKIT_SECRET_KEY, baseUrl: process.env.PAYKIT_BASE_URL });
        const payin = await paykit.payins.retrieve(${JSON.stringify(run.steps[0]?.id)});
        const pending = await paykit.payins.create((await import("@paykit/mock-server")).samplePayin("BOLETO"));
        console.log(payin.amount, payin.referenceId, payin.customer.name, payin.status, pending.id);`;
      const [amount, reference, first, last, status, pendingId] = execFileSync(
        "node",
        ["--input-type=module", "-e", check],
        { cwd: project, encoding: "utf8", env: { ...process.env, ...env } },
      )
        .trim()
        .split(" ");
      expect([amount, reference, `${first} ${last}`, status]).toEqual([
        "14990",
        "order-1042",
        "João Ninguém",
        "APPROVED",
      ]);
      const driven = await installedCli(
        ["trigger", "payin.approved", "--url", mock.url, "--payin", pendingId as string],
        env,
      );
      expect(driven.code, driven.stderr).toBe(0);
      expect(driven.stdout).toContain(`Driving payin ${pendingId}, PENDING before the run`);
      const refused = await installedCli(
        ["trigger", "payout.failed", "--url", mock.url, "--data", "order.json"],
        env,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("--data: customer ");

      // `listen` in one terminal, `trigger` in another: no --webhook-url, the webhook reaches the receiver
      const { createServer } = await import("node:http");
      const { createInterface } = await import("node:readline");
      const { spawnGroup, stopGroup } = await import("../../scripts/processes.mjs");
      const received: string[] = [];
      const receiver = createServer((req, res) => {
        received.push(String(req.headers["webhook-id"]));
        req.resume().on("end", () => res.writeHead(204).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      const forwardTo = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhooks`;
      const listener = spawnGroup(
        "npx",
        ["--no-install", "paykit-mock", "listen", "--url", mock.url, "--forward-to", forwardTo],
        { cwd: project, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } },
      );
      try {
        for await (const line of createInterface({ input: listener.stdout }))
          if (line.startsWith("Ready:")) break;
        const together = await installedCli(["trigger", "payin.approved", "--url", mock.url], env);
        expect(together.code, together.stderr).toBe(0);
        expect(together.stdout).toContain("Webhooks to your paykit-mock listen:");
        expect(together.stdout).toMatch(/delivered, 1 attempt, answered 204/);
        expect(received).toHaveLength(1);
      } finally {
        await stopGroup(listener);
        receiver.close();
      }
    } finally {
      await mock.stop();
    }
  });

  it("`npx paykit-mock --data-dir DIR`: the sandbox survives a restart", async () => {
    const dir = join(project, ".paykit-mock");
    const first = await startInstalledMock(["--manual", "--data-dir", dir]);
    let payinId: string;
    try {
      expect(first.out).toContain(`State: PGlite in ${dir}`);
      const script = `
        const { Paykit } = await import("@paykit/node");
        const { samplePayin } = await import("@paykit/mock-server");
        const paykit = new Paykit({ publicKey: ${JSON.stringify(first.publicKey)}, secretKey: ${JSON.stringify(first.secretKey)}, baseUrl: ${JSON.stringify(first.url)} });
        console.log((await paykit.payins.create(samplePayin("PIX"))).id);`;
      payinId = run(["--input-type=module", "-e", script]).trim();
    } finally {
      await first.stop();
    }
    const again = await startInstalledMock(["--manual", "--data-dir", dir]);
    try {
      // the same account; its secret key was shown once, by the first start (the store keeps a hash)
      expect(again.publicKey).toBe(first.publicKey);
      expect(again.out).toContain("secret key: shown once, by the start that made the account");
      const script = `
        const { Paykit } = await import("@paykit/node");
        const paykit = new Paykit({ publicKey: ${JSON.stringify(again.publicKey)}, secretKey: ${JSON.stringify(first.secretKey)}, baseUrl: ${JSON.stringify(again.url)} });
        console.log((await paykit.payins.retrieve(${JSON.stringify(payinId)})).status);`;
      expect(run(["--input-type=module", "-e", script]).trim()).toBe("PENDING");
    } finally {
      await again.stop();
    }
  });

  it("`PAYKIT_MOCK_ADMIN_TOKEN=… npx paykit-mock --store postgres://…`: two processes serve one sandbox", async () => {
    const { startPostgres } = await import("../../scripts/services.mjs");
    const postgres = await startPostgres();
    const args = ["--store", postgres.url];
    const token = { PAYKIT_MOCK_ADMIN_TOKEN: "team-admin-token" };
    const first = await startInstalledMock(args, token);
    const second = await startInstalledMock(args, token);
    try {
      // equal processes: each says the store is shared, neither leads nor forwards
      for (const mock of [first, second]) expect(mock.out).toContain("(shared: any number of mock processes");
      expect(second.publicKey).toBe(first.publicKey);
      const script = `
        const { createHttpControl } = await import("@paykit/mock-server");
        const { Paykit } = await import("@paykit/node");
        const keys = await createHttpControl({ url: ${JSON.stringify(second.url)} }).createAccount({ balance: 50_000 });
        const viaSecond = new Paykit({ publicKey: keys.publicKey, secretKey: keys.secretKey, baseUrl: ${JSON.stringify(second.url)} });
        const viaFirst = new Paykit({ publicKey: keys.publicKey, secretKey: keys.secretKey, baseUrl: ${JSON.stringify(first.url)} });
        const payout = await viaSecond.payouts.create({ amount: 1_000, pixKey: "payouts@example.com", pixKeyType: "EMAIL", referenceId: "team-run-1" });
        const page = await viaFirst.payouts.list({ referenceId: "team-run-1" });
        console.log(page.data[0].id === payout.id, page.meta.total);`;
      expect(run(["--input-type=module", "-e", script]).trim()).toBe("true 1");
    } finally {
      await second.stop();
      await first.stop();
      await postgres.stop();
    }
  });
});
