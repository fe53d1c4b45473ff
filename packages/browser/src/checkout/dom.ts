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
  const element = doc.createElement(tag);
  for (const name in attributes) element.setAttribute(name, attributes[name]!);
  for (const child of children) if (child) element.append(child);
  return element;
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
