/** The accounts' locks of the memory store: a transaction that changes an account holds its lock until it ends. */
export class AccountLocks {
  readonly #waiting = new Map<string, Array<() => void>>();

  /** Takes an account's lock, waiting for the transaction that holds it. */
  async acquire(accountId: string): Promise<void> {
    const queue = this.#waiting.get(accountId);
    if (queue === undefined) {
      this.#waiting.set(accountId, []);
      return;
    }
    await new Promise<void>((resolve) => queue.push(resolve));
  }

  /** Lets the next waiting transaction have the lock. */
  release(accountId: string): void {
    const queue = this.#waiting.get(accountId);
    const next = queue?.shift();
    if (next !== undefined) next();
    else this.#waiting.delete(accountId);
  }
}
