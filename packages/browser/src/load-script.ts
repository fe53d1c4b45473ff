import { abortError, untilAborted } from "./abort.js";
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

/** Attempts per load: the first, plus one retry with a fresh tag after a failed load. */
const ATTEMPTS = 2;

// One load per absolute URL, shared by every caller; dropped when it fails so the next call starts over
// (the stripe-js loader pattern, STYLE.md). Creating the Map touches no browser global: safe under SSR.
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
  // The message names the scheme only: a data: URL may carry a whole script.
  throw new PaykitThreeDSError("SCRIPT_LOAD_FAILED", `3DS script URL refused (${scheme}): https only`);
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
export function loadScript(src: string, options: LoadScriptOptions = {}): Promise<void> {
  if (typeof document === "undefined") {
    return Promise.reject(
      new PaykitThreeDSError(
        "SCRIPT_LOAD_FAILED",
        "loadScript needs a browser page, not server-side rendering.",
      ),
    );
  }
  if (options.signal?.aborted) return Promise.reject(abortError(options.signal));
  let href: string;
  try {
    href = scriptHref(src);
  } catch (error) {
    return Promise.reject(error);
  }
  let load = loads.get(href);
  if (!load) {
    const started = inject(href, options);
    load = started;
    loads.set(href, started);
    started.catch(() => {
      if (loads.get(href) === started) loads.delete(href);
    });
  }
  return untilAborted(load, options.signal);
}

function inject(href: string, { timeoutMs = 15_000, nonce, integrity }: LoadScriptOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let current: HTMLScriptElement | undefined;
    const fail = (error: PaykitThreeDSError) => {
      settled = true;
      clearTimeout(timer);
      // A failed or timed-out tag is removed, so a later call injects a fresh one instead of reusing it.
      current?.remove();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(
          new PaykitThreeDSError(
            "SCRIPT_TIMEOUT",
            `3DS script ${href} did not load within ${timeoutMs} ms: check the network or raise timeoutMs.`,
          ),
        ),
      timeoutMs,
    );
    const attempt = (left: number, script?: HTMLScriptElement) => {
      const reused = !!script;
      if (!script) {
        script = document.createElement("script");
        script.src = href;
        script.async = true;
        if (nonce) script.setAttribute("nonce", nonce);
        if (integrity) {
          script.integrity = integrity;
          script.crossOrigin = "anonymous";
        }
      }
      const tag = script;
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
          if (left > 1) {
            tag.remove();
            attempt(left - 1);
          } else {
            fail(
              new PaykitThreeDSError(
                "SCRIPT_LOAD_FAILED",
                `3DS script ${href} failed to load: check the URL, the CSP script-src and the integrity hash.`,
                { cause: event },
              ),
            );
          }
        },
        { once: true },
      );
      if (!reused) (document.head ?? document.body).appendChild(tag);
    };
    attempt(ATTEMPTS, findScript(href));
  });
}
