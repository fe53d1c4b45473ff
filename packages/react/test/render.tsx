// Renders into happy-dom's document with React's own client (react-dom/client) inside act(), as a page would.
import { act, type ReactNode } from "react";
import { createRoot, type Root } from "react-dom/client";

/** A React root in a fresh container of the document. */
export interface Rendered {
  container: HTMLElement;
  root: Root;
  /** Renders `ui` again into the same root (new props). */
  rerender(ui: ReactNode): Promise<void>;
  /** Unmounts the root, as leaving the page section does. */
  unmount(): Promise<void>;
}

const roots = new Set<Rendered>();

/** Renders `ui` and lets the effects and their microtasks run. */
export async function render(ui: ReactNode): Promise<Rendered> {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  await act(async () => root.render(ui));
  const rendered: Rendered = {
    container,
    root,
    rerender: (next) => act(async () => root.render(next)),
    unmount: async () => {
      roots.delete(rendered);
      await act(async () => root.unmount());
      container.remove();
    },
  };
  roots.add(rendered);
  return rendered;
}

/** Unmounts what a test left mounted (call in afterEach). */
export async function cleanup(): Promise<void> {
  for (const rendered of [...roots]) await rendered.unmount();
}

/** The shadow roots of the payment screens drawn in `container`. */
export function screens(container: ParentNode): ShadowRoot[] {
  return [...container.querySelectorAll("[data-paykit-payment]")].map(
    (host) => host.shadowRoot as ShadowRoot,
  );
}
