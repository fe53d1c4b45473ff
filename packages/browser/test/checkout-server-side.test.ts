// Runs in Node without a DOM, as during server-side rendering of a checkout page.
import { describe, expect, it } from "vitest";

describe("@paykit/browser/checkout on a server (SSR)", () => {
  it("imports without touching window, document or customElements, and defines nothing", async () => {
    expect(typeof globalThis.document).toBe("undefined");
    const checkout = await import("../src/checkout/index.js");
    expect(typeof checkout.mountPayment).toBe("function");
    expect(typeof checkout.watchPaymentStatus).toBe("function");
    expect("customElements" in globalThis).toBe(false);
  });

  it("definePaykitPayment and the /checkout/element entry do nothing where there is no customElements", async () => {
    const { definePaykitPayment } = await import("../src/checkout/index.js");
    expect(() => definePaykitPayment()).not.toThrow();
    await expect(import("../src/checkout/define.js")).resolves.toBeDefined();
  });
});
