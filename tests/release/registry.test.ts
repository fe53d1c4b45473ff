// The release path, proven against a real registry: Verdaccio on loopback (no uplink), `pnpm release` run in
// a temporary copy of the repository (the working tree is never versioned), then a fresh project outside
// the repository that installs the README's "In your own project, from npm" lines by name from that
// registry and runs them as printed: the mock answers, a script with @paykit/node creates and pays a
// payin, a receiver verifies its webhook, and a page loads the payment screen from the installed package's
// `unpkg` file with the SRI hash the release wrote into the docs, in Chromium. Last, in the released copy,
// a changed public type fails the API check until a major changeset comes with it.
// docs/decisions/release-registry-test.md says what each step costs and why it is done so.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type GroupRun,
  removeDir,
  removeOnExit,
  runGroup,
  spawnGroup,
  stopGroup,
} from "../../scripts/processes.mjs";
import { startRegistry, type TestRegistry } from "../../scripts/services.mjs";
import { launchChromium, SKIP_BROWSER } from "../support/chromium.js";
import { cdnScripts, npmLines } from "./readme.js";
import { closure, seedRegistry } from "./seed.js";
import { copyWorkspace, GIT_IDENTITY, PUBLISHED } from "./workspace-copy.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const here = fileURLToPath(new URL(".", import.meta.url));
const verdaccio = join(
  dirname(createRequire(import.meta.url).resolve("verdaccio/package.json")),
  "bin/verdaccio",
);
const deno = join(here, "node_modules", "deno", "deno");
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

let registry: TestRegistry;
let work: string;
let copy: string;
let project: string;
/** The environment of every npm and node run here: the test registry (read without a token), a cache of our own. */
let env: NodeJS.ProcessEnv;
/** The same with the registry's token, for `pnpm release`. */
let releaseEnv: NodeJS.ProcessEnv;
/** The version each package was released as, by directory under packages/. */
let released: Record<string, string>;
const processes: ChildProcess[] = [];

/** Fails with the end of a run's output when it did not exit 0. */
function expectSuccess(run: GroupRun, what: string): string {
  const output = `${run.stdout}${run.stderr}`;
  if (run.code !== 0) {
    throw new Error(`${what} ${run.timedOut ? "timed out" : `exited ${run.code}`}:\n${output.slice(-6000)}`);
  }
  return output;
}

/** Starts a long-running command in the fresh project; resolves once its output matches `ready`. */
async function startInProject(
  command: string,
  ready: RegExp,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawnGroup("sh", ["-c", command], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
  processes.push(child);
  let out = "";
  child.stdout?.on("data", (chunk) => {
    out += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    out += chunk;
  });
  for (const deadline = Date.now() + 60_000; !ready.test(out); ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`\`${command}\` did not become ready (exit ${child.exitCode}):\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, output: () => out };
}

/** Waits until `output()` matches `pattern` (a process's output arrives after its answer). */
async function waitForOutput(output: () => string, pattern: RegExp): Promise<void> {
  for (const deadline = Date.now() + 30_000; !pattern.test(output()); ) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  const starting = startRegistry({ verdaccio });
  work = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-release-")));
  copy = join(work, "repository");
  project = join(work, "merchant-app");
  mkdirSync(copy);
  mkdirSync(project);
  copyWorkspace(root, copy);
  registry = await starting;
  // The release publishes with the registry's token; the merchant's project reads without one, as anyone.
  const settings = "audit=false\nfund=false\nupdate-notifier=false\n";
  const releaseNpmrc = join(work, "release.npmrc");
  const projectNpmrc = join(work, "project.npmrc");
  writeFileSync(
    releaseNpmrc,
    `//${registry.url.replace(/^http:\/\//, "")}/:_authToken=${registry.token}\n${settings}`,
  );
  writeFileSync(projectNpmrc, settings);
  // pnpm hands its own settings to the scripts it runs as npm_config_*: none of them is for this test's npm.
  const inherited = Object.entries(process.env).filter(
    ([name]) => !/^npm_(config|package|lifecycle)_/i.test(name),
  );
  env = {
    ...Object.fromEntries(inherited),
    ...GIT_IDENTITY,
    npm_config_registry: `${registry.url}/`,
    NPM_CONFIG_REGISTRY: `${registry.url}/`, // Deno's name for it
    npm_config_userconfig: projectNpmrc,
    npm_config_cache: join(work, "npm-cache"),
    DENO: deno,
    DENO_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
  };
  releaseEnv = { ...env, npm_config_userconfig: releaseNpmrc };
  // The README installs the published packages and msw; everything under them comes from this
  // workspace's install (seed.ts).
  const from = join(root, "packages");
  const wanted: Array<[string, string]> = [
    ...PUBLISHED.map((dir) => [`@paykit/${dir}`, here] as [string, string]),
    ["msw", join(from, "mock-server")],
  ];
  await seedRegistry(registry.url, registry.token, closure(wanted));
}, 300_000);

afterAll(async () => {
  await Promise.all(processes.map((child) => stopGroup(child)));
  await registry?.stop();
  if (work) removeDir(work);
});

describe("pnpm release, in a copy of the repository, to a registry on loopback", () => {
  it("versions every package from the changesets, writes their changelogs, builds, commits, tags and publishes", async () => {
    const before = Object.fromEntries(
      PUBLISHED.map((dir) => [dir, readJson(join(root, "packages", dir, "package.json")).version]),
    );
    const pending = readdirSync(join(root, ".changeset")).filter((file) => file.endsWith(".md"));
    // What `changeset version` is to make of the pending changesets, asked before it runs
    const { default: getReleasePlan } = await import("@changesets/get-release-plan");
    const plan = await getReleasePlan(copy);
    const planned = new Map(plan.releases.map((release) => [release.name, release.newVersion]));

    const run = await runGroup("pnpm", ["release", "--reuse-build", "--skip-checks"], {
      cwd: copy,
      env: releaseEnv,
      timeoutMs: 280_000,
    });
    const output = expectSuccess(run, "pnpm release");
    // the tarballs as released, in this run's log too
    console.log(output.match(/^@paykit\/\S+\s+[\d,]+ B\s+\d+ files$/gm)?.join("\n"));

    released = Object.fromEntries(
      PUBLISHED.map((dir) => [dir, readJson(join(copy, "packages", dir, "package.json")).version]),
    );
    for (const dir of PUBLISHED) {
      const name = `@paykit/${dir}`;
      const version = released[dir] as string;
      expect(version, name).toBe(planned.get(name));
      expect(readFileSync(join(copy, "packages", dir, "CHANGELOG.md"), "utf8"), name).toContain(
        `## ${version}`,
      );
      // each tarball's size, in the release's output
      expect(output).toMatch(
        new RegExp(`${name}@${version.replaceAll(".", "\\.")}\\s+[\\d,]+ B\\s+\\d+ files`),
      );
      // on the registry by name, its internal dependencies as ranges of the released versions
      const packument = await (await fetch(`${registry.url}/${name.replace("/", "%2f")}`)).json();
      expect(packument["dist-tags"].latest, name).toBe(version);
      for (const [dependency, range] of Object.entries(packument.versions[version].dependencies ?? {})) {
        if (dependency.startsWith("@paykit/")) expect(range, `${name} → ${dependency}`).toMatch(/^\^\d/);
      }
    }
    expect(readJson(join(copy, "packages/node/jsr.json")).version).toBe(released.node);
    expect(readFileSync(join(copy, "packages/node/src/version.ts"), "utf8")).toContain(`"${released.node}"`);
    expect(existsSync(join(copy, "packages/node/etc/released/index.api.md"))).toBe(true);
    expect(readdirSync(join(copy, ".changeset")).filter((file) => file.endsWith(".md"))).toEqual([]);
    const tags = expectSuccess(await runGroup("git", ["tag"], { cwd: copy }), "git tag");
    expect(tags).toContain(`@paykit/node@${released.node}`);
    expect(output).toContain("Success Dry run complete"); // deno publish --dry-run of the JSR packages

    // The working tree was not touched.
    for (const dir of PUBLISHED) {
      expect(readJson(join(root, "packages", dir, "package.json")).version).toBe(before[dir]);
    }
    expect(readdirSync(join(root, ".changeset")).filter((file) => file.endsWith(".md"))).toEqual(pending);
  });

  let mock: { url: string; publicKey: string; secretKey: string; webhookSecret: string };

  it("the README's npm lines install by name from the registry, and `npx paykit-mock` answers", async () => {
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "merchant-app", private: true }, null, 2)}\n`,
    );
    const lines = npmLines(readFileSync(join(root, "README.md"), "utf8"));
    const start = lines.find((line) => line.startsWith("npx paykit-mock"));
    expect(start, "the README starts the mock with npx").toBeDefined();
    for (const line of lines.filter((line) => line !== start)) {
      expectSuccess(await runGroup("sh", ["-c", line], { cwd: project, env, timeoutMs: 240_000 }), line);
    }
    // every @paykit package came from the registry, at the released version
    const lock = readJson(join(project, "package-lock.json"));
    for (const dir of PUBLISHED.filter((dir) => existsSync(join(project, "node_modules/@paykit", dir)))) {
      const entry = lock.packages[`node_modules/@paykit/${dir}`];
      expect(entry.version, dir).toBe(released[dir]);
      expect(entry.resolved, dir).toMatch(new RegExp(`^${registry.url}/`));
    }
    // The line as printed, on a free port: 4010 may be taken on a developer's machine.
    const { output } = await startInProject(`${start} --port 0`, /whsec_[A-Za-z0-9+/=]+/);
    const text = output();
    mock = {
      url: text.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0] as string,
      publicKey: text.match(/pk_test_\w+/)?.[0] as string,
      // the banner does not print a secret key given with --default-keys: it is the README line's own
      secretKey: (text.match(/sk_test_\w+/)?.[0] ??
        start?.match(/--default-keys \S+:(sk_test_\w+)/)?.[1]) as string,
      webhookSecret: text.match(/whsec_[A-Za-z0-9+/=]+/)?.[0] as string,
    };
    expect(mock.publicKey).toBe("pk_test_local0000000001");
    const openapi = await fetch(`${mock.url}/openapi.json`);
    expect(openapi.status).toBe(200);
  });

  let payin: { id: string; status: string; pix: { qrcode: string } };

  it("a script with @paykit/node creates and pays a PIX payin, and a receiver verifies its webhook", async () => {
    // The receiver imports what the README says a receiver needs from @paykit/node (verifyWebhook is
    // @paykit/webhooks', loaded on first use); a delivery whose body was changed is refused.
    writeFileSync(
      join(project, "receiver.mjs"),
      `import { createServer } from "node:http";
import { verifyWebhook } from "@paykit/node";
const server = createServer(async (request, response) => {
  let body = "";
  for await (const chunk of request) body += chunk;
  try {
    const event = await verifyWebhook(body, request.headers, process.env.PAYKIT_WEBHOOK_SECRET);
    console.log("verified " + event.kind + " " + event.id + " " + event.data.status);
    response.writeHead(200).end();
  } catch (error) {
    console.log("refused " + error.name + " " + error.code);
    response.writeHead(400).end();
  }
});
server.listen(0, "127.0.0.1", () => console.log("receiver http://127.0.0.1:" + server.address().port));
`,
    );
    writeFileSync(
      join(project, "pay.mjs"),
      `import { Paykit, VERSION } from "@paykit/node";
import { createHttpControl, samplePayin } from "@paykit/mock-server";
const paykit = new Paykit({ publicKey: process.env.PAYKIT_PUBLIC_KEY, secretKey: process.env.PAYKIT_SECRET_KEY, baseUrl: process.env.PAYKIT_URL });
const created = await paykit.payins.create({ ...samplePayin("PIX"), webhookUrl: process.env.RECEIVER_URL });
await createHttpControl({ url: process.env.PAYKIT_URL }).payPayin(created.id, { awaitWebhooks: true });
const paid = await paykit.payins.retrieve(created.id);
console.log(JSON.stringify({ version: VERSION, created, status: paid.status }));
`,
    );
    const receiver = await startInProject(
      `PAYKIT_WEBHOOK_SECRET=${mock.webhookSecret} node receiver.mjs`,
      /receiver http:\/\/127\.0\.0\.1:\d+/,
    );
    const receiverUrl = receiver.output().match(/http:\/\/127\.0\.0\.1:\d+/)?.[0] as string;
    const run = await runGroup("node", ["pay.mjs"], {
      cwd: project,
      env: {
        ...env,
        PAYKIT_URL: mock.url,
        PAYKIT_PUBLIC_KEY: mock.publicKey,
        PAYKIT_SECRET_KEY: mock.secretKey,
        RECEIVER_URL: receiverUrl,
      },
      timeoutMs: 60_000,
    });
    const result = JSON.parse(expectSuccess(run, "node pay.mjs").trim().split("\n").pop() as string);
    payin = result.created;
    expect(result.version).toBe(released.node);
    expect([payin.status, result.status]).toEqual(["PENDING", "APPROVED"]);
    await waitForOutput(receiver.output, new RegExp(`verified payin ${payin.id} APPROVED`));

    const tampered = await fetch(receiverUrl, {
      method: "POST",
      headers: {
        "webhook-id": "msg_1",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: JSON.stringify({ id: payin.id, status: "APPROVED" }),
    });
    expect(tampered.status).toBe(400);
    await waitForOutput(receiver.output, /refused WebhookVerificationError \w+/);
  });

  it.skipIf(SKIP_BROWSER)(
    "a page loads the payment screen from the installed package's unpkg file, with the SRI hash the release wrote into the docs",
    async () => {
      const browser = await launchChromium();
      try {
        const installed = join(project, "node_modules/@paykit/browser");
        const manifest = readJson(join(installed, "package.json"));
        const [screen] = cdnScripts(readFileSync(join(copy, "docs/checkout.md"), "utf8"));
        if (!screen) throw new Error("docs/checkout.md shows no CDN script");
        // The docs' URL is the released version's unpkg file, which this project installed by name.
        expect(screen.src).toBe(
          `https://cdn.jsdelivr.net/npm/@paykit/browser@${released.browser}/${manifest.unpkg.replace(/^\.\//, "")}`,
        );
        const file = readFileSync(join(installed, manifest.unpkg));
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        page.on("console", (message) => {
          if (message.type() === "error") errors.push(message.text());
        });
        let served = file;
        const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Checkout</title></head><body>
${screen.tag}
<paykit-payment status-url="/payment-status" locale="pt-BR" payin='${JSON.stringify(payin).replaceAll("&", "&amp;").replaceAll("'", "&#39;")}'></paykit-payment>
</body></html>`;
        // The CDN and the shop, answered by the test: the CDN with the installed file's bytes.
        await page.route("**/*", async (route) => {
          const url = route.request().url();
          if (url === screen.src) {
            return route.fulfill({
              body: served,
              headers: { "content-type": "text/javascript", "access-control-allow-origin": "*" },
            });
          }
          if (url === "https://shop.test/checkout") {
            return route.fulfill({
              body: html,
              headers: {
                "content-type": "text/html",
                "content-security-policy": "default-src 'self'; script-src https://cdn.jsdelivr.net",
              },
            });
          }
          if (url.startsWith("https://shop.test/payment-status")) {
            // the status endpoint's two answers: a stream of events, or one for a poll
            const update = JSON.stringify({
              id: payin.id,
              status: "PENDING",
              updatedAt: new Date().toISOString(),
            });
            const stream = route.request().headers().accept === "text/event-stream";
            return route.fulfill(
              stream
                ? { body: `data: ${update}\n\n`, headers: { "content-type": "text/event-stream" } }
                : { body: update, headers: { "content-type": "application/json" } },
            );
          }
          return route.fulfill({ status: 404, body: "" });
        });
        await page.goto("https://shop.test/checkout");
        const element = page.locator("paykit-payment");
        await element.locator("svg").first().waitFor({ state: "visible", timeout: 30_000 });
        expect(await element.locator("textarea").inputValue()).toBe(payin.pix.qrcode);
        expect(errors).toEqual([]);

        // One byte more and the browser refuses the file: the hash is checked.
        served = Buffer.concat([file, Buffer.from("\n")]);
        await page.goto("https://shop.test/checkout");
        await page.waitForLoadState("load");
        expect(
          await page.evaluate(() => typeof (window as { PaykitCheckout?: unknown }).PaykitCheckout),
        ).toBe("undefined");
        expect(errors.join("\n")).toMatch(/integrity/i);
      } finally {
        await browser.close();
      }
    },
  );

  it("a changed public type fails the API check until a major changeset comes with it", async () => {
    // The public type as the package ships it: its declaration files (a rebuild of the sources would make
    // the same change there, at ten seconds of a core).
    const react = join(copy, "packages/react");
    for (const file of ["dist/index.d.ts", "dist/index.d.cts"]) {
      const text = readFileSync(join(react, file), "utf8");
      // a prop that was optional becomes required: every page that leaves it out breaks
      const changed = text.replace(/\bclassName\?: string;/, "className: string;");
      expect(changed, file).not.toBe(text);
      writeFileSync(join(react, file), changed);
    }
    const check = () => runGroup("node", ["scripts/api-report.mjs", "packages/react"], { cwd: copy, env });
    const kinds = () => runGroup("node", ["scripts/api-semver.mjs", "packages/react"], { cwd: copy, env });

    // the report no longer is the API
    const stale = await check();
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("@paykit/react: the API differs from packages/react/etc/index.api.md");
    expect(stale.stderr).toContain("- className?: string;");
    expect(stale.stderr).toContain("+ className: string;");
    // `pnpm api:update` without its build (the declarations are already what is shipped)
    expectSuccess(
      await runGroup("node", ["scripts/api-report.mjs", "--update", "packages/react"], { cwd: copy, env }),
      "update",
    );

    // a removed export since the release asks for a major; a minor is not enough
    writeFileSync(
      join(copy, ".changeset/react-class-name-required.md"),
      '---\n"@paykit/react": minor\n---\n\n`<PaykitPayment>` needs a `className`.\n',
    );
    const minor = await kinds();
    expect(minor.code).toBe(1);
    expect(minor.stderr).toContain(
      "@paykit/react: its public API changed since the last release with a removal",
    );
    expect(minor.stderr).toContain("needs a major changeset; the pending changesets make it a minor");
    writeFileSync(
      join(copy, ".changeset/react-class-name-required.md"),
      '---\n"@paykit/react": major\n---\n\n`<PaykitPayment>` needs a `className`.\n',
    );
    expectSuccess(await kinds(), "api-semver with a major changeset");
  });
});
