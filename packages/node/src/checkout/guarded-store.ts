import type { PaymentStatus, PaymentStatusStore, Unsubscribe } from "./store.js";

/** How the endpoint's view of its store is set up. */
export interface GuardedStoreInit {
  /**
   * The account's part of the store, put before every payin id the endpoint stores, reads or claims
   * (`pk_…:`): endpoints of other accounts sharing the store never see this one's statuses, nor it theirs.
   */
  scope: string;
  /** The longest a store call may take before the endpoint goes on without it, in ms. */
  timeoutMs: number;
  /** Hears every failure (the merchant's `onError`; never throws). */
  report: (error: unknown) => void;
  /** Hears every status any instance publishes, once subscribed. */
  listener: (status: PaymentStatus) => void;
}

/** Calls `call`; a synchronous throw (a store written without `async`) becomes a rejection. */
function attempt<T>(call: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * `pending`, or a rejection once it takes longer than `ms`. A late answer is dropped and a late
 * rejection handled, so a store that hangs leaves nothing behind but this unref'd timer, until `ms`.
 */
export function within<T>(pending: Promise<T>, ms: number, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`createPaymentStatus: the status store did not answer ${name} within ${ms} ms`)),
      ms,
    );
    (timer as { unref?: () => void }).unref?.();
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * The endpoint's view of its store: its account's statuses only (docs/decisions/status-store-per-account.md),
 * each call bounded by `timeoutMs`, and each failure reported and replaced by what keeps the shopper served. No status known (`latest`: the service is read), this
 * instance's turn to poll (`claimPoll`: it polls for itself rather than nobody does), a status shared
 * with this instance only (`publish`), no updates from the others yet (`listen`: the next stream tries
 * again, and the polls cover the gap).
 */
export class GuardedStore {
  readonly #store: PaymentStatusStore;
  readonly #init: GuardedStoreInit;
  #subscription: Promise<Unsubscribe> | undefined;
  /** The pending subscription already kept a stream waiting its full timeout: the next ones do not wait. */
  #overdue = false;
  #closed = false;

  readonly #listener: (status: PaymentStatus) => void;

  constructor(store: PaymentStatusStore, init: GuardedStoreInit) {
    this.#store = store;
    this.#init = init;
    // Another account's statuses travel on the same channel: they are not this endpoint's to show.
    this.#listener = (status) => {
      const own = this.#unscoped(status);
      if (own) init.listener(own);
    };
  }

  /** The newest status of this account's payin `id` in the store; null when none (or not this account's). */
  latest(id: string): Promise<PaymentStatus | null> {
    return this.#bounded("latest", () => this.#store.latest(this.#init.scope + id)).then(
      (status) => (status ? this.#unscoped(status) : null),
      (error: unknown) => {
        this.#init.report(error);
        return null;
      },
    );
  }

  claimPoll(id: string, intervalMs: number): Promise<boolean> {
    return this.#bounded("claimPoll", () => this.#store.claimPoll(this.#init.scope + id, intervalMs)).catch(
      (error: unknown) => {
        this.#init.report(error);
        return true;
      },
    );
  }

  publish(status: PaymentStatus, options: { fresh?: boolean; pollIntervalMs?: number }): Promise<void> {
    const scoped = { ...status, id: this.#init.scope + status.id };
    return this.#bounded("publish", () => this.#store.publish(scoped, options)).catch(this.#init.report);
  }

  /** Subscribes the listener once; resolves when it is, or when the attempt failed or took too long. */
  listen(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#subscription === undefined) {
      // Not bounded itself: however late it comes, a subscription must be known, to be ended.
      const subscribing: Promise<Unsubscribe> = attempt(() => this.#store.subscribe(this.#listener)).then(
        (unsubscribe) => {
          this.#overdue = false;
          return unsubscribe;
        },
        (error: unknown) => {
          this.#overdue = false;
          if (this.#subscription === subscribing) this.#subscription = undefined; // the next stream tries again
          throw error;
        },
      );
      this.#subscription = subscribing;
    } else if (this.#overdue) {
      return Promise.resolve();
    }
    const subscription = this.#subscription;
    return within(subscription, this.#init.timeoutMs, "subscribe").then(
      () => undefined,
      (error: unknown) => {
        // Timed out (a rejection has reset the subscription by now): the next streams need not wait.
        if (this.#subscription === subscription) this.#overdue = true;
        this.#init.report(error);
      },
    );
  }

  /** Ends the subscription, however late it comes; waits for that `timeoutMs` at most. */
  async close(): Promise<void> {
    this.#closed = true;
    const subscription = this.#subscription;
    this.#subscription = undefined;
    if (subscription === undefined) return;
    const ending = subscription.then(
      (unsubscribe) => unsubscribe(),
      () => undefined,
    );
    await within(ending, this.#init.timeoutMs, "unsubscribe").catch(this.#init.report);
  }

  /** `status` with its payin id as the page knows it, or null when it is another account's. */
  #unscoped(status: PaymentStatus): PaymentStatus | null {
    const { scope } = this.#init;
    if (typeof status?.id !== "string" || !status.id.startsWith(scope)) return null;
    return { ...status, id: status.id.slice(scope.length) };
  }

  #bounded<T>(name: string, call: () => Promise<T>): Promise<T> {
    return within(attempt(call), this.#init.timeoutMs, name);
  }
}
