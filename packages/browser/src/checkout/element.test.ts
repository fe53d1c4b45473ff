// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BR_CODE, FakeEventSource, fakeFetch, PIX as PIX_2025, statusOf } from "../../test/checkout-fakes.js";
import type { PaykitPaymentElement } from "./index.js";

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.stubGlobal("fetch", fakeFetch({ status: 200, body: statusOf("PENDING") }));
});

afterEach(() => {
  document.body.innerHTML = "";
  vi.unstubAllGlobals();
});

// Created now: a payin of 2025 would be expired on the real clock these tests run on.
const PIX = { ...PIX_2025, createdAt: new Date().toISOString() };
const settled = () => new Promise((resolve) => setTimeout(resolve));

describe("<paykit-payment>", () => {
  it("is not defined by importing the checkout entry, only by definePaykitPayment() (once)", async () => {
    const { definePaykitPayment } = await import("./index.js");
    expect(customElements.get("paykit-payment")).toBeUndefined();
    definePaykitPayment();
    const defined = customElements.get("paykit-payment");
    expect(defined).toBeDefined();
    definePaykitPayment();
    expect(customElements.get("paykit-payment")).toBe(defined);
  });

  it("renders from its payin (JSON) and status-url attributes, in its locale, and fires paykit-final", async () => {
    const { definePaykitPayment } = await import("./index.js");
    definePaykitPayment();
    document.body.innerHTML = `<paykit-payment status-url="/payment-status" locale="en"></paykit-payment>`;
    const element = document.querySelector("paykit-payment")!;
    element.setAttribute("payin", JSON.stringify(PIX));
    const finals: unknown[] = [];
    document.body.addEventListener("paykit-final", (event) => finals.push(event.detail));
    await settled();
    const root = element.shadowRoot!;
    expect(root.querySelector("h2")!.textContent).toBe("Pay with PIX");
    expect(root.querySelector("svg")!.getAttribute("aria-label")).toBe(BR_CODE);
    expect(FakeEventSource.last().url).toBe(`/payment-status?id=${PIX.id}`);
    FakeEventSource.last().send(statusOf("APPROVED"));
    expect(finals).toEqual([statusOf("APPROVED")]);
    expect(root.querySelector("h2")!.textContent).toBe("Payment approved");
  });

  it("takes properties too; a change renders again, and removal stops the stream", async () => {
    const { definePaykitPayment } = await import("./index.js");
    definePaykitPayment();
    const element = document.createElement("paykit-payment") as PaykitPaymentElement;
    element.payin = PIX;
    element.statusUrl = "/status";
    element.strings = { pixTitle: "Pix" };
    document.body.append(element);
    await settled();
    expect(element.shadowRoot!.querySelector("h2")!.textContent).toBe("Pix");
    const first = FakeEventSource.last();
    element.locale = "en";
    element.strings = null;
    await settled();
    expect(first.closed).toBe(true);
    expect(FakeEventSource.instances).toHaveLength(2);
    expect(element.shadowRoot!.querySelectorAll("h2")).toHaveLength(1);
    expect(element.shadowRoot!.querySelector("h2")!.textContent).toBe("Pay with PIX");
    element.remove();
    expect(FakeEventSource.last().closed).toBe(true);
  });

  // A framework that creates the element before the script defining it ran sets plain own properties: the
  // element takes them over when it is defined (connected already) or when it is connected (defined before).
  it.each([
    ["connected before the definition", "paykit-early-connected", true],
    ["connected after the definition", "paykit-early-detached", false],
  ])("takes the properties set before it was defined, %s", async (_case, tagName, connectedFirst) => {
    const { definePaykitPayment } = await import("./index.js");
    const element = document.createElement(tagName) as PaykitPaymentElement;
    element.payin = PIX;
    element.statusUrl = "/status";
    element.strings = { pixTitle: "Pix" };
    if (connectedFirst) document.body.append(element);
    definePaykitPayment(tagName);
    if (!connectedFirst) document.body.append(element);
    await settled();
    expect(element.shadowRoot!.querySelector("h2")!.textContent).toBe("Pix");
    expect(FakeEventSource.last().url).toBe(`/status?id=${PIX.id}`);
    // No own property is left to hide an accessor.
    expect(["payin", "statusUrl", "strings"].filter((name) => Object.hasOwn(element, name))).toEqual([]);
    // The element's accessors answer again: a later change renders again.
    element.strings = null;
    await settled();
    expect(element.shadowRoot!.querySelector("h2")!.textContent).toBe("Pague com PIX");
    expect(element.payin).toBe(PIX);
  });

  it("a payin attribute that is not JSON fires paykit-error", async () => {
    const { definePaykitPayment } = await import("./index.js");
    definePaykitPayment();
    const errors: Error[] = [];
    document.body.addEventListener("paykit-error", (event) => errors.push(event.detail));
    document.body.innerHTML = `<paykit-payment status-url="/s" payin="{oops"></paykit-payment>`;
    await settled();
    expect(errors).toEqual([
      expect.objectContaining({ name: "PaykitCheckoutError", code: "INVALID_OPTIONS" }),
    ]);
  });
});
