import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Paykit, type PaykitOptions, VERSION } from "../../src/index.js";
import { scriptedClient } from "../support/client.js";
import { BASE_URL, KEYS } from "../support/fixtures.js";

const valid: PaykitOptions = { ...KEYS, baseUrl: BASE_URL };

describe("new Paykit(): configuration is checked before any request", () => {
  it.each<[string, Partial<PaykitOptions> & Record<string, unknown>, string, RegExp]>([
    ["a missing publicKey", { publicKey: undefined }, "MISSING_KEY", /publicKey is missing/],
    ["a missing secretKey", { secretKey: "" }, "MISSING_KEY", /secretKey is missing/],
    ["swapped keys", { publicKey: KEYS.secretKey, secretKey: KEYS.publicKey }, "SWAPPED_KEYS", /swapped/],
    [
      "a live public key with a test secret key",
      { publicKey: "pk_live_abc" },
      "KEY_MODE_MISMATCH",
      /live key but secretKey is a test key/,
    ],
    [
      "a test public key with a live secret key",
      { secretKey: "sk_live_abc" },
      "KEY_MODE_MISMATCH",
      /test key but secretKey is a live key/,
    ],
    [
      "an unknown key prefix",
      { secretKey: "secret_abc" },
      "INVALID_KEY",
      /must start with sk_live_ or sk_test_/,
    ],
    ["a bare prefix", { publicKey: "pk_test_" }, "INVALID_KEY", /nothing after/],
    ["a key with a trailing newline", { secretKey: `${KEYS.secretKey}\n` }, "INVALID_KEY", /whitespace/],
    ["a missing baseUrl", { baseUrl: undefined }, "INVALID_BASE_URL", /no default host/],
    ["a relative baseUrl", { baseUrl: "/v1" }, "INVALID_BASE_URL", /not an absolute URL/],
    ["a non-http baseUrl", { baseUrl: "ftp://api.paykit.test" }, "INVALID_BASE_URL", /http\(s\)/],
    [
      "a baseUrl with credentials",
      { baseUrl: "https://u:p@api.paykit.test" },
      "INVALID_BASE_URL",
      /credentials/,
    ],
    ["a negative timeout", { timeoutMs: -1 }, "INVALID_OPTION", /timeoutMs/],
    ["a fractional maxRetries", { maxRetries: 1.5 }, "INVALID_OPTION", /maxRetries/],
  ])("refuses %s", (_label, override, code, message) => {
    expect(() => new Paykit({ ...valid, ...override } as PaykitOptions)).toThrow(
      expect.objectContaining({ name: "PaykitConfigError", code, message: expect.stringMatching(message) }),
    );
  });

  it("never echoes the secret key in a configuration error", () => {
    for (const override of [
      { publicKey: KEYS.secretKey, secretKey: KEYS.publicKey },
      { publicKey: "pk_live_x" },
    ]) {
      try {
        new Paykit({ ...valid, ...override });
        expect.unreachable();
      } catch (error) {
        expect(String(error) + JSON.stringify(error)).not.toContain("SUPERSECRET");
      }
    }
  });

  it("accepts a live pair and a test pair", () => {
    expect(new Paykit({ ...valid, publicKey: "pk_live_1", secretKey: "sk_live_2" }).mode).toBe("live");
    expect(new Paykit(valid).mode).toBe("test");
  });

  it("normalizes baseUrl so paths join under it", async () => {
    const api = scriptedClient(
      { "GET /v1/payin/pi_1": [{ status: 200, body: {} }] },
      { baseUrl: "https://api.paykit.test/v1" },
    );
    await api.paykit.payins.retrieve("pi_1");
    expect(api.seen[0]?.url).toBe("https://api.paykit.test/v1/payin/pi_1");
  });
});

describe("in a browser", () => {
  const g = globalThis as { window?: unknown };
  afterEach(() => {
    delete g.window;
  });

  it("refuses to run with a secret key unless explicitly allowed", () => {
    g.window = { document: {} };
    expect(() => new Paykit(valid)).toThrow(expect.objectContaining({ code: "SECRET_KEY_IN_BROWSER" }));
  });

  it("names itself in x-paykit-client-user-agent when allowed (User-Agent is forbidden there)", async () => {
    g.window = { document: {} };
    const api = scriptedClient(
      { "GET /v1/payin/pi_1": [{ status: 200, body: {} }] },
      { dangerouslyAllowBrowser: true },
    );
    await api.paykit.payins.retrieve("pi_1");
    expect(api.seen[0]?.headers.get("x-paykit-client-user-agent")).toMatch(/^paykit-node\/\d+\.\d+\.\d+/);
  });
});

describe("every request", () => {
  it("authenticates with Basic base64(publicKey:secretKey) and names the SDK in User-Agent", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [{ status: 200, body: {} }] });
    await api.paykit.payins.retrieve("pi_1");
    const headers = api.seen[0]!.headers;
    expect(headers.get("authorization")).toBe(`Basic ${btoa(`${KEYS.publicKey}:${KEYS.secretKey}`)}`);
    expect(headers.get("user-agent")).toMatch(
      new RegExp(`^paykit-node/${VERSION.replaceAll(".", "\\.")} \\(node `),
    );
    expect(headers.get("accept")).toBe("application/json");
  });

  it("adds per-call headers but never lets them replace the credentials or content type", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [{ status: 200, body: {} }] });
    await api.paykit.payins.retrieve("pi_1", {
      headers: { "x-trace-id": "t1", Authorization: "Basic evil" },
    });
    expect(api.seen[0]!.headers.get("x-trace-id")).toBe("t1");
    expect(api.seen[0]!.headers.get("authorization")).not.toBe("Basic evil");
  });

  it("reports the package.json version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });
});
