import { deliver } from "./status-codec.js";
import type { PaymentStatus, Unsubscribe } from "./store.js";

type Listener = (status: PaymentStatus) => void;

/**
 * The `subscribe` side of a shared status store (Redis, PostgreSQL) on this instance: its listeners, and the
 * one connection that carries every instance's updates to all of them. The first `add` opens the connection;
 * an opening that fails is forgotten, so the next `add` tries again.
 */
export class Subscriptions<Connection> {
  readonly #listeners = new Map<symbol, Listener>();
  readonly #open: () => Promise<Connection>;
  readonly #onError: (error: unknown) => void;
  #connection: Promise<Connection> | undefined;

  /** `open` connects and starts listening; `onError` gets a listener's throw. */
  constructor(open: () => Promise<Connection>, onError: (error: unknown) => void) {
    this.#open = open;
    this.#onError = onError;
  }

  /** Adds `listener` once the connection is open (rejects when it cannot open); answers its removal. */
  async add(listener: Listener): Promise<Unsubscribe> {
    this.#connection ??= this.#open().catch((error: unknown) => {
      this.#connection = undefined; // the next subscribe tries again
      throw error;
    });
    await this.#connection;
    // Each subscription is its own entry, so one listener subscribed twice is called twice.
    const token = Symbol("subscription");
    this.#listeners.set(token, listener);
    return async () => {
      this.#listeners.delete(token);
    };
  }

  /** Hands `status` to every listener; one that throws stops neither the others nor the store. */
  deliver(status: PaymentStatus): void {
    deliver(this.#listeners.values(), status, this.#onError);
  }

  /**
   * Forgets every listener and the connection, for the store's `close()`: answers the connection once its
   * opening settled, or `undefined` when none was opened or the opening failed (nothing to close then).
   */
  async end(): Promise<Connection | undefined> {
    this.#listeners.clear();
    const opening = this.#connection;
    this.#connection = undefined;
    return opening?.catch(() => undefined);
  }
}
