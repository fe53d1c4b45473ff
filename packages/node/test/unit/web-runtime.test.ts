import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContext, runInContext } from "node:vm";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPaykitApiError } from "../../src/index.js";
import { scriptedFetch } from "../support/fake-fetch.js";
import { KEYS, payoutRecord, payoutRequest } from "../support/fixtures.js";

/** The globals an edge runtime (workers, Deno, Bun) offers: web standards only, no `process`, no `require`. */
function webGlobals(fetch: typeof globalThis.fetch) {
  return {
    fetch,
    Request,
    Response,
    Headers,
    AbortController,
    AbortSignal,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    ReadableStream,
    Blob,
    FormData,
    DOMException,
    Event,
    EventTarget,
    crypto: globalThis.crypto,
    atob,
    btoa,
    setTimeout,
    clearTimeout,
    queueMicrotask,
    structuredClone,
    console,
  };
}

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "paykit-web-"));
  // The same bundling as the published build (everything inlined), from the sources.
  await build({
    config: false,
    entry: { index: new URL("../../src/index.ts", import.meta.url).pathname },
    format: ["cjs"],
    platform: "neutral",
    target: "es2022",
    outDir: dir,
    dts: false,
    silent: true,
    noExternal: ["@paykit/contract", "@paykit/webhooks", "zod"],
    esbuildOptions(options) {
      options.conditions = ["@paykit/source"];
      options.mainFields = ["module", "main"];
    },
  });
  bundle = await readFile(join(dir, "index.cjs"), "utf8");
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function load(fetch: typeof globalThis.fetch) {
  const context = createContext(webGlobals(fetch));
  const module = { exports: {} as Record<string, unknown> };
  const factory = runInContext(`(function (module, exports) {\n${bundle}\n})`, context, {
    filename: "paykit.cjs",
  });
  factory(module, module.exports);
  return module.exports as typeof import("../../src/index.js");
}

describe("the client on a runtime with only web-standard globals", () => {
  it("the bundle imports no module at all (no node: built-ins)", () => {
    expect(bundle).not.toMatch(/\brequire\(["'](node:)?[a-z_]/);
    expect(bundle).not.toMatch(/from ["']node:/);
  });

  it("reads, creates and fails like on Node, naming the runtime as fetch", async () => {
    const fake = scriptedFetch({
      "GET /v1/payout": [
        {
          status: 200,
          body: { data: [payoutRecord()], meta: { total: 1, page: 1, limit: 10, totalPages: 1 } },
        },
      ],
      "POST /v1/payout": [{ status: 201, body: payoutRecord() }],
      "GET /v1/payin/pi_x": [{ status: 404, body: { code: "NOT_FOUND", message: "payin not found" } }],
    });
    const { Paykit } = load(fake.fetch);
    const paykit = new Paykit({ ...KEYS, baseUrl: "https://api.paykit.test/v1" });
    await expect(paykit.payouts.list()).resolves.toMatchObject({ data: [{ id: "po_01" }] });
    await expect(paykit.payouts.create(payoutRequest)).resolves.toMatchObject({ id: "po_01" });
    const error = await paykit.payins.retrieve("pi_x").catch((e: unknown) => e);
    // An error from another realm: `instanceof` fails, the name-based guard still works.
    expect(error).not.toBeInstanceOf(Error);
    expect(isPaykitApiError(error)).toBe(true);
    expect(error).toMatchObject({ name: "NotFoundError", status: 404 });
    expect(fake.seen[0]?.headers.get("user-agent")).toMatch(/^paykit-node\/\d+\.\d+\.\d+ \(fetch\)$/);
  });

  it("verifies webhooks with WebCrypto alone", async () => {
    const { Paykit } = load(scriptedFetch({}).fetch);
    const { signWebhook } = await import("@paykit/webhooks/testing");
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = JSON.stringify({ ...payoutRecord(), bankReceipt: undefined });
    const headers = await signWebhook(body, { secret });
    const paykit = new Paykit({ ...KEYS, baseUrl: "https://api.paykit.test", webhookSecret: secret });
    await expect(paykit.webhooks.parse(body, headers)).resolves.toMatchObject({
      kind: "payout",
      id: "po_01",
    });
  });
});
