import { ApiCore } from "./core/api-core.js";
import { type PaykitOptions, type ResolvedConfig, resolveConfig } from "./core/config.js";
import { Transport } from "./core/transport.js";
import { INSPECT_CUSTOM } from "./errors/paykit-error.js";
import { Payins } from "./resources/payins.js";
import { Payouts } from "./resources/payouts.js";
import { Webhooks } from "./resources/webhooks.js";

/** What `console.log(paykit)` and `JSON.stringify(paykit)` show: never a secret. */
export interface PaykitDescription {
  baseUrl: string;
  publicKey: string;
  mode: "live" | "test";
  secretKey: "[redacted]";
}

/**
 * The merchant's server-side Paykit client: payins, PIX payouts, pagination, money-safe retries
 * and webhooks. The options are checked here, before any request: missing or mismatched keys and
 * a bad baseUrl throw a `PaykitConfigError`.
 *
 * @example
 * ```ts
 * import { Paykit } from "@paykit/node";
 * const paykit = new Paykit({
 *   publicKey: process.env.PAYKIT_PUBLIC_KEY!,
 *   secretKey: process.env.PAYKIT_SECRET_KEY!,
 *   baseUrl: "https://api.paykit.example",
 * });
 * const payin = await paykit.payins.create({ paymentMethod: "PIX", ... });
 * ```
 */
export class Paykit {
  /** Collections from a paying customer. */
  readonly payins: Payins;
  /** Withdrawals to a PIX key. */
  readonly payouts: Payouts;
  /** Webhook deliveries: parse, verify, confirm. */
  readonly webhooks: Webhooks;
  // Private fields: invisible to util.inspect, JSON.stringify and Object.keys.
  readonly #config: ResolvedConfig;

  constructor(options: PaykitOptions) {
    this.#config = resolveConfig(options);
    const core = new ApiCore(this.#config, new Transport(this.#config));
    this.payins = new Payins(core);
    this.payouts = new Payouts(core);
    this.webhooks = new Webhooks(this.payins, this.payouts, this.#config.webhookSecret);
  }

  /** The service this client talks to, with a trailing slash. */
  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /** Whether the keys are live (real money) or test keys. */
  get mode(): "live" | "test" {
    return this.#config.mode;
  }

  /** A log-safe description. */
  toJSON(): PaykitDescription {
    return {
      baseUrl: this.#config.baseUrl,
      publicKey: this.#config.publicKey,
      mode: this.#config.mode,
      secretKey: "[redacted]",
    };
  }

  /** What `console.log`/`util.inspect` show of a client: the public key and mode, never the secret. */
  [INSPECT_CUSTOM](): string {
    return `Paykit ${JSON.stringify(this.toJSON())}`;
  }
}
