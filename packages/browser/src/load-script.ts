import { untilAborted } from "./abort.js";
import { PaykitThreeDSError } from "./errors.js";

/** How the acquirer's 3DS script is loaded into the checkout page. */
export interface LoadScriptOptions {
  /**
   * How long to wait for the script, in milliseconds, across the first attempt and its retry.
   * @default 15000
   */
  timeoutMs?: number;
  /** CSP nonce put on the `<script>` tag, for a page whose `script-src` allows scripts by nonce. */
  nonce?: string;
  /**
   * Subresource Integrity hash of the script (`sha384-…`); also sets `crossorigin="anonymous"`,
   * which SRI needs for a script from another origin.
   */
  integrity?: string;
  /** Stops waiting (rejects with `ABORTED`); the load itself goes on for other callers of the same URL. */
  signal?: AbortSignal;
}

// One load per absolute URL, shared by every caller; dropped when it fails so the next call starts over
// (the stripe-js loader pattern, docs/decisions/how-the-code-is-shaped.md). Creating the Map touches no
// browser global: safe under SSR.
const loads = new Map<string, Promise<void>>();

/**
 * The absolute URL of a 3DS script, resolved against the page (relative and protocol-relative URLs
 * too): `https:` only, or `http:` on a loopback host (the mock). Anything else (`data:`, `javascript:`,
 * a plain-http host) is refused with `SCRIPT_LOAD_FAILED` naming the scheme.
 */
export function scriptHref(src: string): string {
  let url: URL | undefined;
  try {
    url = new URL(src, document.baseURI);
  } catch {}
  const scheme = url?.protocol;
  if (scheme === "https:" || (scheme === "http:" && /^(localhost|127\.[\d.]+|\[::1\])$/.test(url!.hostname)))
    return url!.href;
  // The message names the scheme only (a data: URL may carry a whole script), and the one exception
  // (localhost: 127.x and [::1] too), so an http: URL of a mock on another host does not read as "no http".
  throw new PaykitThreeDSError(
    "SCRIPT_LOAD_FAILED",
    `3DS script URL refused (${scheme}): https, or http on localhost`,
  );
}

/** The `<script>` tag already in the page for this absolute URL, if any. */
export function findScript(href: string): HTMLScriptElement | undefined {
  for (const script of document.scripts) if (script.src === href) return script;
  return undefined;
}

/**
 * Loads a payment provider's script once per URL: reuses a `<script>` tag already in the page, shares one
 * promise between callers, retries once with a fresh tag after a failed load, and starts over on the next
 * call after a failure or timeout. Rejects with a {@link PaykitThreeDSError}: `SCRIPT_LOAD_FAILED`
 * (also outside a browser, and for a URL that is not https, or http on localhost), `SCRIPT_TIMEOUT` or
 * `ABORTED`.
 * @example
 * await loadScript(payin.threeDSecureSdkUrl, { nonce: cspNonce, timeoutMs: 10_000 });
 */
export async function loadScript(src: string, options: LoadScriptOptions = {}): Promise<void> {
  // `async`: each refusal below is a rejection with no Promise.reject wrapper (bytes of the IIFE); the body
  // still runs synchronously up to the tag's injection.
  if (typeof document === "undefined") {
    throw new PaykitThreeDSError("SCRIPT_LOAD_FAILED", "loadScript needs a browser page.");
  }
  const href = scriptHref(src);
  // Runs only when the signal has not aborted yet: an aborted caller injects nothing.
  return untilAborted(() => {
    let load = loads.get(href);
    if (!load) {
      load = inject(href, options);
      loads.set(href, load);
      load.catch(() => loads.get(href) === load && loads.delete(href));
    }
    return load;
  }, options.signal);
}

function inject(href: string, { timeoutMs = 15_000, nonce, integrity }: LoadScriptOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled: true | undefined;
    // Set before the timer can fire: the first attempt runs right below, synchronously.
    let current: HTMLScriptElement;
    const fail = (error: PaykitThreeDSError) => {
      settled = true;
      clearTimeout(timer);
      // A failed or timed-out tag is removed, so a later call injects a fresh one instead of reusing it.
      current.remove();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(
          new PaykitThreeDSError(
            "SCRIPT_TIMEOUT",
            `3DS script ${href} not loaded within timeoutMs (${timeoutMs} ms).`,
          ),
        ),
      timeoutMs,
    );
    // One retry with a fresh tag after a failed load: `retry` is true on the first attempt only.
    const attempt = (retry?: boolean, reused?: HTMLScriptElement) => {
      const tag = reused ?? document.createElement("script");
      if (!reused) {
        tag.src = href;
        tag.async = true;
        if (nonce) tag.setAttribute("nonce", nonce);
        if (integrity) {
          tag.integrity = integrity;
          tag.crossOrigin = "anonymous";
        }
      }
      current = tag;
      // Listeners go on before the tag is connected: some DOMs fire load/error while appending.
      tag.addEventListener(
        "load",
        () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
      tag.addEventListener(
        "error",
        (event) => {
          if (settled) return;
          if (retry) {
            tag.remove();
            attempt();
          } else {
            fail(
              new PaykitThreeDSError(
                "SCRIPT_LOAD_FAILED",
                `3DS script ${href} failed to load: check the URL, CSP script-src and integrity.`,
                { cause: event },
              ),
            );
          }
        },
        { once: true },
      );
      if (!reused) (document.head ?? document.body).appendChild(tag);
    };
    attempt(true, findScript(href));
  });
}
