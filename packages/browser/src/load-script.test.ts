// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from "vitest";
import { acquirerNetwork, freshScriptUrl } from "../test/acquirer-network.js";
import { loadScript } from "./load-script.js";

let network = acquirerNetwork();
afterEach(() => {
  vi.useRealTimers();
  network.reset();
  network = acquirerNetwork();
});

/** Whether a promise has settled, without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  // Microtask turns only, so this also works under fake timers.
  for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
  return done;
}

describe("loadScript: one tag per acquirer script URL", () => {
  it("injects one async <script> with the absolute URL into <head> and resolves when it loads", async () => {
    const url = freshScriptUrl();
    const loading = loadScript(url);
    const [tag] = network.tags();
    expect(network.tags()).toHaveLength(1);
    expect(tag?.parentNode).toBe(document.head);
    expect(tag?.src).toBe(url);
    expect(tag?.async).toBe(true);
    expect(await settled(loading)).toBe(false);
    network.load(tag!);
    await expect(loading).resolves.toBeUndefined();
  });

  it("shares one tag and one load between concurrent callers, and loads nothing again afterwards", async () => {
    const url = freshScriptUrl();
    const first = loadScript(url);
    const second = loadScript(url);
    expect(network.tags()).toHaveLength(1);
    network.load(network.tags()[0]!);
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
    await expect(loadScript(url)).resolves.toBeUndefined();
    expect(network.tags()).toHaveLength(1);
  });

  it("treats a relative URL and its absolute form as the same script", async () => {
    const relative = loadScript("/acquirer/3ds.js");
    const absolute = loadScript("https://shop.example/acquirer/3ds.js");
    expect(network.tags()).toHaveLength(1);
    network.load(network.tags()[0]!);
    await expect(Promise.all([relative, absolute])).resolves.toBeDefined();
  });

  it("reuses a <script> tag the page already has for that URL instead of adding one", async () => {
    const url = freshScriptUrl();
    const own = document.createElement("script");
    own.src = url;
    document.body.append(own);
    const loading = loadScript(url);
    expect(network.tags()).toEqual([own]);
    network.load(own);
    await expect(loading).resolves.toBeUndefined();
  });
});

describe("loadScript: CSP nonce and Subresource Integrity", () => {
  it("puts the nonce on the tag for a nonce-based script-src", () => {
    void loadScript(freshScriptUrl(), { nonce: "r4nd0m" });
    expect(network.tags()[0]?.getAttribute("nonce")).toBe("r4nd0m");
  });

  it("puts the integrity hash and crossorigin=anonymous on the tag, which SRI across origins needs", () => {
    void loadScript(freshScriptUrl(), { integrity: "sha384-abc" });
    const [tag] = network.tags();
    expect(tag?.getAttribute("integrity")).toBe("sha384-abc");
    expect(tag?.getAttribute("crossorigin")).toBe("anonymous");
  });

  it("adds none of these attributes when they are not asked for", () => {
    void loadScript(freshScriptUrl());
    const [tag] = network.tags();
    expect(["nonce", "integrity", "crossorigin"].map((name) => tag?.hasAttribute(name))).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe("loadScript: failures, retry and reset", () => {
  it("retries once with a fresh tag after a failed load", async () => {
    const url = freshScriptUrl();
    const loading = loadScript(url);
    const [first] = network.tags();
    network.fail(first!);
    const [second] = network.tags();
    expect(second).not.toBe(first);
    expect(first?.isConnected).toBe(false);
    network.load(second!);
    await expect(loading).resolves.toBeUndefined();
  });

  it("rejects with SCRIPT_LOAD_FAILED when the retry fails too, removes the tag, and starts over on the next call", async () => {
    const url = freshScriptUrl();
    const loading = loadScript(url);
    network.fail(network.tags()[0]!);
    network.fail(network.tags()[0]!);
    await expect(loading).rejects.toMatchObject({ name: "PaykitThreeDSError", code: "SCRIPT_LOAD_FAILED" });
    expect(network.tags()).toHaveLength(0);

    const again = loadScript(url);
    expect(network.tags()).toHaveLength(1);
    network.load(network.tags()[0]!);
    await expect(again).resolves.toBeUndefined();
  });

  it.each([
    ["the default 15000 ms", undefined, 15_000],
    ["timeoutMs", 2_000, 2_000],
  ])(
    "rejects with SCRIPT_TIMEOUT after %s, removes the tag, and starts over on the next call",
    async (_, timeoutMs, waitMs) => {
      vi.useFakeTimers();
      const url = freshScriptUrl();
      const loading = loadScript(url, timeoutMs === undefined ? {} : { timeoutMs });
      loading.catch(() => {});
      vi.advanceTimersByTime(waitMs - 1);
      expect(await settled(loading)).toBe(false);
      vi.advanceTimersByTime(1);
      await expect(loading).rejects.toMatchObject({ code: "SCRIPT_TIMEOUT" });
      expect(network.tags()).toHaveLength(0);

      void loadScript(url, { timeoutMs: 2_000 });
      expect(network.tags()).toHaveLength(1);
    },
  );

  it("counts the timeout across the first attempt and its retry", async () => {
    vi.useFakeTimers();
    const loading = loadScript(freshScriptUrl(), { timeoutMs: 1_000 });
    loading.catch(() => {});
    vi.advanceTimersByTime(600);
    network.fail(network.tags()[0]!);
    vi.advanceTimersByTime(400);
    await expect(loading).rejects.toMatchObject({ code: "SCRIPT_TIMEOUT" });
  });
});

describe("loadScript: abort", () => {
  it("rejects with ABORTED and injects nothing when the signal is already aborted", async () => {
    const reason = new Error("customer left");
    await expect(loadScript(freshScriptUrl(), { signal: AbortSignal.abort(reason) })).rejects.toMatchObject({
      code: "ABORTED",
      cause: reason,
    });
    expect(network.tags()).toHaveLength(0);
  });

  it("stops only the aborting caller: another caller of the same URL still gets the script", async () => {
    const url = freshScriptUrl();
    const controller = new AbortController();
    const aborted = loadScript(url, { signal: controller.signal });
    const other = loadScript(url);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: "ABORTED" });
    network.load(network.tags()[0]!);
    await expect(other).resolves.toBeUndefined();
  });
});

describe("loadScript: only https (or http on localhost) scripts", () => {
  it.each([
    ["data:", "data:text/javascript,alert(1)"],
    ["javascript:", "javascript:alert(1)"],
    ["http:", "http://cdn.acquirer.example/three-ds.js"],
    ["ftp:", "ftp://cdn.acquirer.example/three-ds.js"],
    ["blob:", "blob:https://cdn.acquirer.example/0d4c"],
  ])(
    "refuses a %s URL with SCRIPT_LOAD_FAILED naming the scheme, and injects nothing",
    async (scheme, url) => {
      await expect(loadScript(url)).rejects.toMatchObject({
        name: "PaykitThreeDSError",
        code: "SCRIPT_LOAD_FAILED",
        message: expect.stringContaining(`(${scheme})`),
      });
      expect(network.tags()).toHaveLength(0);
    },
  );

  it("says, refusing a plain http URL, that http is allowed on localhost only", async () => {
    await expect(loadScript("http://mock.internal:4010/_mock/acquirer/three-ds.js")).rejects.toMatchObject({
      code: "SCRIPT_LOAD_FAILED",
      message: "3DS script URL refused (http:): https, or http on localhost",
    });
  });

  it.each([
    [
      "a protocol-relative URL",
      "//cdn.acquirer.example/three-ds.js",
      "https://cdn.acquirer.example/three-ds.js",
    ],
    [
      "a relative URL (the page is https://shop.example)",
      "/assets/three-ds.js",
      "https://shop.example/assets/three-ds.js",
    ],
    [
      "http on localhost",
      "http://localhost:4010/_mock/acquirer/three-ds.js",
      "http://localhost:4010/_mock/acquirer/three-ds.js",
    ],
    ["http on 127.0.0.1", "http://127.0.0.1:4010/x.js", "http://127.0.0.1:4010/x.js"],
    ["http on [::1]", "http://[::1]:4010/x.js", "http://[::1]:4010/x.js"],
  ])("resolves %s against the page and loads it", async (_, url, href) => {
    const page = new URL(document.baseURI);
    if (
      url.startsWith("/") &&
      !url.startsWith("//") &&
      page.protocol !== "https:" &&
      !/localhost|127\./.test(page.hostname)
    ) {
      // A relative URL takes the page's scheme: only meaningful on an https or local page.
      return;
    }
    const loading = loadScript(url);
    const [tag] = network.tags();
    expect(tag?.src).toBe(href);
    network.load(tag!);
    await expect(loading).resolves.toBeUndefined();
  });

  it("refuses something that is not a URL with SCRIPT_LOAD_FAILED, not a bare TypeError", async () => {
    await expect(loadScript("https://[bad")).rejects.toMatchObject({
      code: "SCRIPT_LOAD_FAILED",
      message: expect.stringContaining("(undefined)"),
    });
  });
});
