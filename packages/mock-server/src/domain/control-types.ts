import type { AccountView } from "./accounts.js";
import type { WebhookDelivery } from "./deliveries.js";
import type { ListenParams, ListenResult } from "./listeners.js";
import type { ListOptions, PayinView, PayoutView } from "./lists.js";
import type { PixKeyEntry } from "./pix-directory.js";

/** The mock's clock as `GET /_mock/clock` answers it. */
export interface ClockView {
  /** ISO 8601 mock time. */
  now: string;
}

/** How to move the mock clock: to a moment, or forward by some milliseconds. */
export interface SetClockParams {
  /** The new mock time (ISO 8601 string, Date or epoch ms); it keeps moving with real time. */
  now?: string | Date | number;
  /** Move forward by this many ms (after `now`, when both are given). */
  advanceMs?: number;
}

/** An account's `paykit-mock listen` (`GET /_mock/accounts/{id}/listener`). */
export interface ListenerView {
  /** A listener takes the account's deliveries now: they go to it rather than to their `webhookUrl`. */
  attached: boolean;
  /** The events it takes (`payin.approved`, `payout.*`); null for every event, or when none is attached. */
  events: string[] | null;
}

/** An account's webhook signing secret (`GET /_mock/accounts/{id}/webhook-secret`). */
export interface WebhookSecretView {
  /** The secret deliveries are signed with (`whsec_…`); null for an account whose deliveries are unsigned. */
  webhookSecret: string | null;
  /** Until when (ISO 8601, the account's clock) the previous secret signs too; null when it no longer does. */
  previousSecretExpiresAt: string | null;
}

/**
 * Options of a control call that moves a payin or payout. `awaitWebhooks: true` resolves the call only
 * once the webhook deliveries it caused have been attempted (the account's `flushWebhooks`), wherever
 * they are made (any process of a shared sandbox): a test that pays a payin can then assert on what its
 * receiver got, without polling. HTTP: `?awaitWebhooks=true`.
 */
export interface ControlCallOptions {
  /**
   * Wait for the account's deliveries due now (this call's among them) to be attempted and answered,
   * and for held out-of-order events to be sent; a retry due later is not waited for (move the clock,
   * then flush).
   * @default false
   */
  awaitWebhooks?: boolean;
}

/** Which page of a control list to read, and (`accountId`) of which account. */
export interface ControlListOptions extends ListOptions {
  /** One account's entries (404 when unknown); all accounts' without it. */
  accountId?: string | undefined;
}

/** The entry type of each control list. */
export interface ControlListEntry {
  accounts: AccountView;
  payins: PayinView;
  payouts: PayoutView;
  webhooks: WebhookDelivery;
  pixKeys: PixKeyEntry;
}

/**
 * What control calls wait for once their turn committed: webhook attempts (made by this process or
 * another one of a shared sandbox) and the polls of `paykit-mock listen`. The engine's worker does it.
 */
export interface WebhookWork {
  /**
   * Makes the deliveries due now (of the account, or of every account) and the held out-of-order
   * events go at once, and resolves once each has been attempted, with the deliveries attempted.
   */
  flush(accountId?: string): Promise<WebhookDelivery[]>;
  /** Resolves once the delivery's next attempt was made, with the delivery after it. */
  attempted(deliveryId: string): Promise<WebhookDelivery>;
  /** One poll of `paykit-mock listen` on an account. */
  listen(accountId: string, params: ListenParams): Promise<ListenResult>;
  /** The account's listener now, on any process, and the events it takes (null: all). */
  listenerOf(accountId: string): Promise<{ events: string[] | null } | null>;
}

/**
 * What a control call answers: at once, or once something after its commit is done (its webhooks
 * attempted, a listener's poll). The engine commits the turn first, then waits.
 */
export class AfterCommit<T> {
  constructor(readonly wait: () => Promise<T>) {}
}

/** A control call's answer, now or after its commit. */
export type ControlAnswer<T> = Promise<T | AfterCommit<T>>;

/** An answer shaped by `shape`, now or once the wait after the commit is done. */
export async function mapAnswer<T, U>(answer: ControlAnswer<T>, shape: (value: T) => U): ControlAnswer<U> {
  const value = await answer;
  return value instanceof AfterCommit ? new AfterCommit(async () => shape(await value.wait())) : shape(value);
}

/** The engine's facts a control call needs besides the store. */
export interface ControlContext {
  /** The webhook worker and the listeners. */
  readonly work: WebhookWork;
  /** The PIX keys the engine was started with (registered again by a reset). */
  readonly startPixKeys: () => PixKeyEntry[];
}
