// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { adoptStyles, h } from "./dom.js";
import { CHECKOUT_CSS } from "./styles.js";

/** A root without `adoptedStyleSheets`, as in browsers before constructable stylesheets. */
const oldRoot = () => document.createElement("div") as unknown as ShadowRoot;

describe("adoptStyles", () => {
  it("adopts one stylesheet per window, shared by every screen", () => {
    const [first, second] = [1, 2].map(() => document.createElement("div").attachShadow({ mode: "open" }));
    adoptStyles(first!);
    adoptStyles(second!);
    expect(first!.adoptedStyleSheets).toHaveLength(1);
    expect(second!.adoptedStyleSheets[0]).toBe(first!.adoptedStyleSheets[0]);
  });

  it("without constructable stylesheets, links the page's checkout.css when given its URL", () => {
    const root = oldRoot();
    adoptStyles(root, "/assets/checkout.css");
    expect(root.querySelector("link")!.outerHTML).toBe('<link rel="stylesheet" href="/assets/checkout.css">');
  });

  it("without either, falls back to a <style> element (for pages whose CSP allows inline styles)", () => {
    const root = oldRoot();
    adoptStyles(root);
    expect(root.querySelector("style")!.textContent).toBe(CHECKOUT_CSS);
  });
});

describe("h", () => {
  it("sets attributes and appends children, skipping empty ones", () => {
    const element = h(
      document,
      "p",
      { part: "message", class: "muted" },
      "a",
      false,
      null,
      h(document, "b", {}, "b"),
    );
    expect(element.outerHTML).toBe('<p part="message" class="muted">a<b>b</b></p>');
  });
});
