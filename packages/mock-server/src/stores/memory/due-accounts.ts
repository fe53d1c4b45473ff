// Which accounts of the memory store have due work, and when each one's first item falls due (real
// ms), for the worker (MemoryStore.nextWake and dueAccounts, asked after every commit). Each account's
// moment sits in a heap and is worked out again only for the accounts a transaction changed, so a
// commit costs the same with ten accounts holding due work or a hundred thousand (a suite that opens
// an account per test, each with a PIX payin waiting to expire).
import { MinHeap } from "../../internal/heap.js";

interface Entry {
  at: number;
  seq: number;
  accountId: string;
}

/** The accounts with due work, by the moment their first item falls due. */
export class DueAccounts {
  /** Each account's current entry: an entry in the heap that is not this one is stale. */
  readonly #current = new Map<string, Entry>();
  readonly #heap = new MinHeap<Entry>();
  /** Accounts whose due work or clock changed since their entry was made. */
  readonly #changed = new Set<string>();
  #seq = 0;

  constructor(
    /** One account's earliest moment, in real ms (Infinity: it has no due work). */
    readonly nextAt: (accountId: string) => number,
  ) {}

  /** An account's due work, or its clock, changed: its moment is worked out again when next asked. */
  changed(accountId: string): void {
    this.#changed.add(accountId);
  }

  /** Every account's clock moved (the sandbox's clock): every moment is worked out again. */
  allChanged(): void {
    for (const accountId of this.#current.keys()) this.#changed.add(accountId);
  }

  /** Whether an account has due work. */
  has(accountId: string): boolean {
    this.#refresh();
    return this.#current.has(accountId);
  }

  /** The earliest moment of all, in real ms (Infinity: nothing is ever due). */
  next(): number {
    this.#refresh();
    return this.#top()?.at ?? Number.POSITIVE_INFINITY;
  }

  /** The accounts whose first item is due by `now` (real ms), earliest first, at most `limit`. */
  due(now: number, limit: number): string[] {
    this.#refresh();
    const taken: Entry[] = [];
    for (let top = this.#top(); top !== undefined && top.at <= now && taken.length < limit; top = this.#top())
      taken.push(this.#heap.pop()!);
    // still due until their turn takes the work (and marks them changed)
    for (const entry of taken) this.#heap.push(entry);
    return taken.map((entry) => entry.accountId);
  }

  #refresh(): void {
    for (const accountId of this.#changed) {
      const at = this.nextAt(accountId);
      const current = this.#current.get(accountId);
      if (at === Number.POSITIVE_INFINITY) this.#current.delete(accountId);
      else if (current?.at !== at) {
        const entry = { at, seq: this.#seq++, accountId };
        this.#current.set(accountId, entry);
        this.#heap.push(entry);
      }
    }
    this.#changed.clear();
    // stale entries leave as they reach the top; a heap mostly stale is built again from the current
    if (this.#heap.size > 2 * this.#current.size + 1024) {
      this.#heap.clear();
      for (const entry of this.#current.values()) this.#heap.push(entry);
    }
  }

  /** The earliest current entry, the stale ones above it dropped. */
  #top(): Entry | undefined {
    for (;;) {
      const top = this.#heap.peek();
      if (top === undefined || this.#current.get(top.accountId) === top) return top;
      this.#heap.pop();
    }
  }
}
