// Runs in Node without a DOM, as during server-side rendering of a checkout page.
import { describe, expect, it } from "vitest";
import { challengeData, pendingPayin } from "./fixtures.js";

describe("@paykit/browser on a server (SSR)", () => {
  it("imports without touching window or document", async () => {
    expect(typeof globalThis.document).toBe("undefined");
    const browser = await import("../src/index.js");
    expect(typeof browser.handlePendingThreeDS).toBe("function");
    expect(typeof browser.loadScript).toBe("function");
  });

  it("loadScript called outside a browser is a clear SCRIPT_LOAD_FAILED", async () => {
    const { loadScript } = await import("../src/index.js");
    await expect(loadScript("https://acquirer.example/3ds.js")).rejects.toMatchObject({
      name: "PaykitThreeDSError",
      code: "SCRIPT_LOAD_FAILED",
      message: expect.stringContaining("needs a browser page"),
    });
  });

  it("handlePendingThreeDS called outside a browser fails the same way", async () => {
    const { handlePendingThreeDS } = await import("../src/index.js");
    await expect(handlePendingThreeDS(pendingPayin(), challengeData)).rejects.toMatchObject({
      code: "SCRIPT_LOAD_FAILED",
    });
  });
});
