import type { AcquirerThreeDS } from "../src/index.js";

/**
 * The acquirer's side of the network in happy-dom: holds back happy-dom's own `load` event on each injected
 * script tag (see vitest.config.ts) so a test decides what the network does: `load(tag)`, `fail(tag)`, or
 * nothing (a script that never answers).
 */
export function acquirerNetwork() {
  // Only the events this harness dispatches get through; happy-dom's own (even one fired while a test's event
  // is being handled, e.g. for the retry's fresh tag) are held back.
  const played = new WeakSet<Event>();
  const hold = (event: Event) => {
    if (!played.has(event) && event.target instanceof HTMLScriptElement) event.stopImmediatePropagation();
  };
  document.addEventListener("load", hold, true);
  document.addEventListener("error", hold, true);
  const fire = (tag: HTMLScriptElement, type: "load" | "error") => {
    const event = new Event(type);
    played.add(event);
    tag.dispatchEvent(event);
  };
  return {
    /** Every `<script>` tag in the page, in document order. */
    tags: (): HTMLScriptElement[] => [...document.querySelectorAll("script")],
    /** The script answers and runs: it defines `sdk` (if given) as `globalThis.AcquirerThreeDS`, then fires `load`. */
    load(tag: HTMLScriptElement, sdk?: AcquirerThreeDS) {
      if (sdk) (globalThis as { AcquirerThreeDS?: AcquirerThreeDS }).AcquirerThreeDS = sdk;
      fire(tag, "load");
    },
    /** The script fails to load (404, network, CSP or SRI refusal). */
    fail: (tag: HTMLScriptElement) => fire(tag, "error"),
    /** Ends the test: stops holding events, empties the page and forgets the fake SDK. */
    reset() {
      document.removeEventListener("load", hold, true);
      document.removeEventListener("error", hold, true);
      document.head.replaceChildren();
      document.body.replaceChildren();
      delete (globalThis as { AcquirerThreeDS?: AcquirerThreeDS }).AcquirerThreeDS;
    },
  };
}

let counter = 0;
/** A fresh acquirer script URL, so each test starts with no memoised load. */
export function freshScriptUrl(): string {
  counter += 1;
  return `https://acquirer.example/3ds-${counter}.js`;
}
