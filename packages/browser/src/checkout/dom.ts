import { CHECKOUT_CSS } from "./styles.js";

/** A child of {@link h}: a node, a text, or nothing. */
export type Child = Node | string | false | null | undefined;

/**
 * Builds an element with attributes and children. Attributes only through `setAttribute` of names the
 * screen chooses: never `style` (a strict CSP blocks style attributes), never `on…` handlers.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = setAttributes(doc.createElement(tag), attributes);
  for (const child of children) if (child) element.append(child);
  return element;
}

/** Sets each of `attributes` on `element` (HTML or SVG) and returns it. */
export function setAttributes<E extends Element>(element: E, attributes: Record<string, string>): E {
  for (const name in attributes) element.setAttribute(name, attributes[name]!);
  return element;
}

/**
 * `url` (absolute, or relative to `base`) as a link the shopper may follow, else `undefined`: https, or http to
 * `base`'s origin or to loopback (the mock server); never `javascript:`, `data:` or another scheme that a tampered
 * payin could carry into an `href`.
 */
export function safeHref(url: string | undefined, base: string): string | undefined {
  try {
    const { protocol, hostname, origin, href } = new URL(url!, base);
    // The host, not the text of the URL: `http://localhost:x@evil.example/` is evil.example.
    const local = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(hostname) || origin === new URL(base).origin;
    if (url && (protocol === "https:" || (protocol === "http:" && local))) return href;
  } catch {}
}

// One stylesheet per window, shared by every screen of the page (constructable sheets are per document tree).
const sheets = new WeakMap<object, CSSStyleSheet>();

/**
 * Styles a shadow root without inline styles: a constructable stylesheet where the browser has them, else a
 * `<link>` to the shipped checkout.css when the page gave its URL, else a `<style>` element (which a strict
 * CSP blocks, hence the link).
 */
export function adoptStyles(root: ShadowRoot, stylesheetUrl?: string): void {
  const doc = root.ownerDocument;
  const view = doc.defaultView as (Window & typeof globalThis) | null;
  if (view && "adoptedStyleSheets" in root && "replaceSync" in view.CSSStyleSheet.prototype) {
    let sheet = sheets.get(view);
    if (!sheet) {
      sheet = new view.CSSStyleSheet();
      sheet.replaceSync(CHECKOUT_CSS);
      sheets.set(view, sheet);
    }
    root.adoptedStyleSheets = [sheet];
  } else if (stylesheetUrl) {
    root.append(h(doc, "link", { rel: "stylesheet", href: stylesheetUrl }));
  } else {
    root.append(h(doc, "style", {}, CHECKOUT_CSS));
  }
}
