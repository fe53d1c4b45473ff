import { keyMode } from "@paykit/contract/rules";
import { PaykitConfigError } from "../errors/validation-error.js";
import { VERSION } from "../version.js";
import type { PaykitHooks } from "./hooks.js";
import { type BackoffOptions, DEFAULT_BACKOFF } from "./retry-policy.js";

/** Options of `new Paykit()`. */
export interface PaykitOptions {
  /** The account's public key, `pk_live_…` or `pk_test_…` (Dashboard → Integrations). */
  publicKey: string;
  /** The account's secret key, `sk_live_…` or `sk_test_…`; same mode as the public key. Server-side only. */
  secretKey: string;
  /** The service's base URL, e.g. `https://api.paykit.example/v1` or the mock's URL. Required: no hidden default host. */
  baseUrl: string;
  /**
   * Time limit of one attempt (sending, waiting, reading the answer), in ms.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * How many times a call may be sent again after a failure the retry policy deems safe (docs/errors-and-retries.md).
   * @default 2
   */
  maxRetries?: number;
  /** Backoff between retries; full jitter. @default { initialDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60000 } */
  retryBackoff?: Partial<BackoffOptions>;
  /** The fetch implementation to use (a proxy agent, a test double). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Observability callbacks (request, response, retry, payout lookup, response mismatch). */
  hooks?: PaykitHooks;
  /**
   * Check every request against the contract before sending; a bad request then fails with a
   * `PaykitValidationError` listing every field, and nothing is sent.
   * @default true
   */
  validateRequests?: boolean;
  /**
   * The account's webhook signing secret (`whsec_…`, several during a rotation); `webhooks.parse`
   * verifies with it, and without it throws `SECRET_MISSING` (unless the call passes `allowUnsigned`).
   * An unset environment variable therefore fails loudly instead of switching verification off.
   */
  webhookSecret?: string | readonly string[] | undefined;
  /**
   * Allow running in a browser. The secret key moves money: never ship it to a browser. Only for
   * trusted internal tools.
   * @default false
   */
  dangerouslyAllowBrowser?: boolean;
}

/** Options of one call, overriding the client's. */
export interface RequestOptions {
  /** Cancels the call (and its retries). */
  signal?: AbortSignal;
  /** Time limit of each attempt of this call, in ms. */
  timeoutMs?: number;
  /** Retries for this call. */
  maxRetries?: number;
  /** Extra headers, e.g. tracing ids. `authorization` and `content-type` are set by the client and cannot be overridden. */
  headers?: Readonly<Record<string, string>>;
}

/** The client's checked settings. */
export interface ResolvedConfig {
  baseUrl: string;
  publicKey: string;
  mode: "live" | "test";
  authorization: string;
  timeoutMs: number;
  maxRetries: number;
  backoff: BackoffOptions;
  fetch: typeof fetch;
  hooks: PaykitHooks;
  validateRequests: boolean;
  webhookSecret: string | readonly string[] | undefined;
  clientHeaders: Record<string, string>;
}

function fail(code: ConstructorParameters<typeof PaykitConfigError>[0], message: string): never {
  throw new PaykitConfigError(code, message);
}

/** Checks one key's presence and shape; messages name the key's prefix, never the key. */
function checkKey(value: unknown, kind: "publicKey" | "secretKey"): "live" | "test" {
  const other = kind === "publicKey" ? "secretKey" : "publicKey";
  const expected = kind === "publicKey" ? "pk_live_ or pk_test_" : "sk_live_ or sk_test_";
  if (value === undefined || value === null || value === "") {
    fail(
      "MISSING_KEY",
      `${kind} is missing: pass the account's ${kind} (${expected}…) from Dashboard → Integrations.`,
    );
  }
  if (typeof value !== "string") fail("INVALID_KEY", `${kind} must be a string starting with ${expected}.`);
  if (/\s/.test(value)) {
    fail("INVALID_KEY", `${kind} contains whitespace (often a trailing newline from an env file): trim it.`);
  }
  const mode = keyMode(value, kind);
  if (mode === null) {
    if (keyMode(value, other) !== null) {
      fail(
        "SWAPPED_KEYS",
        `${kind} holds a ${other} (it starts with "${value.slice(0, 8)}"): publicKey and secretKey are swapped.`,
      );
    }
    fail("INVALID_KEY", `${kind} must start with ${expected}.`);
  }
  if (value.length <= 8) fail("INVALID_KEY", `${kind} has nothing after its "${value.slice(0, 8)}" prefix.`);
  return mode;
}

function checkBaseUrl(value: unknown): string {
  if (typeof value !== "string" || value === "") {
    fail("INVALID_BASE_URL", "baseUrl is missing: pass the service's URL (there is no default host).");
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail("INVALID_BASE_URL", `baseUrl is not an absolute URL: "${value}".`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    fail("INVALID_BASE_URL", `baseUrl must be http(s), got "${url.protocol}".`);
  }
  if (url.username || url.password)
    fail("INVALID_BASE_URL", "baseUrl must not carry credentials: pass the keys as options.");
  if (url.search || url.hash) fail("INVALID_BASE_URL", "baseUrl must not have a query or fragment.");
  return url.href.endsWith("/") ? url.href : `${url.href}/`;
}

function checkInteger(name: string, value: unknown, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    fail("INVALID_OPTION", `${name} must be an integer from ${min} to ${max}.`);
  }
  return value;
}

function isBrowser(): boolean {
  const g = globalThis as { window?: { document?: unknown } };
  return typeof g.window === "object" && g.window !== null && typeof g.window.document === "object";
}

function runtimeDescription(): string {
  const g = globalThis as {
    process?: { versions?: { node?: string; bun?: string } };
    Deno?: { version?: { deno?: string } };
  };
  if (g.Deno?.version?.deno) return `deno ${g.Deno.version.deno}`;
  if (g.process?.versions?.bun) return `bun ${g.process.versions.bun}`;
  if (g.process?.versions?.node) return `node ${g.process.versions.node}`;
  return "fetch";
}

function base64(text: string): string {
  // Keys are ASCII (checked prefixes, no whitespace), so btoa is exact and works on every runtime.
  return btoa(text);
}

/** Checks the options and derives everything a request needs; throws `PaykitConfigError`. */
export function resolveConfig(options: PaykitOptions): ResolvedConfig {
  if (options === null || typeof options !== "object") {
    fail("INVALID_OPTION", "new Paykit() needs an options object: { publicKey, secretKey, baseUrl }.");
  }
  const publicMode = checkKey(options.publicKey, "publicKey");
  const secretMode = checkKey(options.secretKey, "secretKey");
  if (publicMode !== secretMode) {
    fail(
      "KEY_MODE_MISMATCH",
      `publicKey is a ${publicMode} key but secretKey is a ${secretMode} key: use the pair of one environment.`,
    );
  }
  if (/[^\x21-\x7e]/.test(options.publicKey + options.secretKey)) {
    fail(
      "INVALID_KEY",
      "publicKey and secretKey must be printable ASCII: copy them again from the dashboard.",
    );
  }
  const browser = isBrowser();
  if (browser && options.dangerouslyAllowBrowser !== true) {
    fail(
      "SECRET_KEY_IN_BROWSER",
      "Paykit runs server-side: the secret key moves money and must never reach a browser. Call your own backend " +
        "instead, or pass dangerouslyAllowBrowser: true for a trusted internal tool.",
    );
  }
  if (options.fetch === undefined && typeof globalThis.fetch !== "function") {
    fail("INVALID_OPTION", "No fetch is available: pass options.fetch.");
  }
  // The global fetch is looked up on every call, not captured here: msw, nock and APM agents patch it
  // after a client may already exist (a module-level client in a test file, say).
  // Called as a method of globalThis: some runtimes throw "Illegal invocation" on a detached fetch.
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const userAgent = `paykit-node/${VERSION} (${runtimeDescription()})`;
  return {
    baseUrl: checkBaseUrl(options.baseUrl),
    publicKey: options.publicKey,
    mode: publicMode,
    authorization: `Basic ${base64(`${options.publicKey}:${options.secretKey}`)}`,
    timeoutMs: checkInteger("timeoutMs", options.timeoutMs, 1, 2_147_483_647, 30_000),
    maxRetries: checkInteger("maxRetries", options.maxRetries, 0, 10, 2),
    backoff: {
      initialDelayMs: checkInteger(
        "retryBackoff.initialDelayMs",
        options.retryBackoff?.initialDelayMs,
        0,
        600_000,
        DEFAULT_BACKOFF.initialDelayMs,
      ),
      maxDelayMs: checkInteger(
        "retryBackoff.maxDelayMs",
        options.retryBackoff?.maxDelayMs,
        0,
        600_000,
        DEFAULT_BACKOFF.maxDelayMs,
      ),
      maxRetryAfterMs: checkInteger(
        "retryBackoff.maxRetryAfterMs",
        options.retryBackoff?.maxRetryAfterMs,
        0,
        3_600_000,
        DEFAULT_BACKOFF.maxRetryAfterMs,
      ),
    },
    fetch: fetchImpl,
    hooks: options.hooks ?? {},
    validateRequests: options.validateRequests ?? true,
    webhookSecret: options.webhookSecret,
    // Browsers forbid setting User-Agent (docs/decisions/authentication.md: the SDK names itself in another header
    // there).
    clientHeaders: browser ? { "x-paykit-client-user-agent": userAgent } : { "user-agent": userAgent },
  };
}
