// One transaction of this process at a time in the database's queue for an account's row lock
// (docs/decisions/sandbox-store.md, "One session per account in the lock's queue"). A session that
// waits there gets the row as soon as the one before commits, even when its process is stopped
// (SIGSTOP, a debugger): it then holds the row, answered and idle, until the server ends the session
// after its idle-in-transaction limit. With every request of a stopped process waiting there, the
// account's other processes would wait one limit per request; waiting here instead, they wait one.

/** Lets one transaction of this process at a time lock each account's row. */
export class AccountGate {
  /** Per account, the moment the last transaction to come through leaves. */
  readonly #last = new Map<string, Promise<void>>();

  /** Waits for `accountId`'s turn; answers what ends it. */
  async enter(accountId: string): Promise<() => void> {
    const before = this.#last.get(accountId);
    let leave!: () => void;
    const left = new Promise<void>((resolve) => {
      leave = resolve;
    });
    this.#last.set(accountId, left);
    if (before !== undefined) await before;
    return () => {
      leave();
      // the last one out leaves nothing behind: the map holds the accounts in use, not every account
      if (this.#last.get(accountId) === left) this.#last.delete(accountId);
    };
  }

  /** Whether a transaction of this process holds or waits for `accountId`'s turn. */
  busy(accountId: string): boolean {
    return this.#last.has(accountId);
  }
}
