import type { CreateAccountParams } from "../domain/accounts.js";
import type { RegisterPixKeyParams } from "../domain/pix-directory.js";
import type { DeliveryConcurrency } from "../internal/delivery-slots.js";
import type { WebhookFetch } from "../work/sender.js";

/** Options of a mock engine. */
export interface EngineOptions {
  /**
   * Whether payouts move one processing step per `advanceIntervalMs` on their own; `false` is the
   * CLI's `--manual`, leaving every step to the control API. An account's own `autoAdvance` wins.
   * @default true
   */
  autoAdvance?: boolean;
  /** Real time between two automatic payout steps, in ms. @default 1000 */
  advanceIntervalMs?: number;
  /**
   * The default account created at start and after every reset: KYC approved, cards enabled,
   * automatic approval, 1000000 cents available. Fix `publicKey`/`secretKey` here (`--default-keys`).
   */
  defaultAccount?: CreateAccountParams;
  /** Sends webhook deliveries. @default globalThis.fetch */
  fetch?: WebhookFetch;
  /**
   * Most webhook deliveries in flight at once, per receiver origin and overall; the rest wait for a
   * slot, so a receiver that never answers holds a bounded number of sockets.
   * @default { perOrigin: 10, total: 100 }
   */
  webhookConcurrency?: Partial<DeliveryConcurrency>;
  /** How long a webhook receiver has to answer, in ms. @default 10000 */
  webhookTimeoutMs?: number;
  /** When set, every `/_mock` control call needs `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /**
   * Makes the PIX key directory strict by default: only seeded and registered keys are found (the CLI's
   * `--strict-pix-directory`). An account's own `pixDirectory` wins.
   * @default false (open: every well-formed key except `notfound@bank.test` is found)
   */
  strictPixDirectory?: boolean;
  /**
   * Retention for a mock left running for weeks: at most this many payins and this many payouts per
   * account; beyond it the oldest records in a final status (a payout COMPLETED too) are dropped with
   * their webhook deliveries, from memory and from a durable store (a dropped record answers 404, and
   * its payout `referenceId` may be used again). The CLI's `--max-records`.
   * @default unlimited
   */
  maxRecords?: number;
  /**
   * Removes accounts no request used for this long, with their payins, payouts, deliveries and PIX
   * keys: ms, or a duration such as `"30d"`, `"12h"`, `"90m"`, `"45s"`; `0` or `"off"` keeps every
   * account. The default account is never removed. With a durable store the store's clock decides
   * (`now()` in SQL), and its rows are deleted a batch at a time. The CLI's `--retention`.
   * @default off (`createMockServer` with a `dataDir` or `url` store: 30 days)
   */
  retention?: number | string;
  /** PIX keys registered on top of the seed directory (also after a reset). */
  pixKeys?: RegisterPixKeyParams[];
  /** Real wall clock in epoch ms; the mock clock starts from it. @default Date.now */
  now?: () => number;
}

/** The default account's settings: KYC approved, cards enabled, automatic approval, R$ 10.000,00. */
export const DEFAULT_ACCOUNT: CreateAccountParams = {
  kycApproved: true,
  creditCardEnabled: true,
  payoutApproval: "automatic",
  balance: 1_000_000,
};
