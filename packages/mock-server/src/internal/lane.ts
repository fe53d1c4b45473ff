/**
 * A first-in first-out queue of one kind of scheduled work (the domain's PIX expiries), for items whose
 * moments come in order: it keeps the item, its moment and its sequence number in three flat arrays,
 * so a million pending items cost no task object and no boxed number each
 * (docs/decisions/time-and-the-mock-clock.md). A scheduler runs its head in moment order with
 * its other work.
 */
export class Lane<T> {
  /** The work run for each item once the mock clock reaches its moment. */
  readonly run: (item: T) => void;
  #items: T[] = [];
  // Epoch ms: a number array stores doubles unboxed.
  #ats: number[] = [];
  #seqs: number[] = [];
  #head = 0;

  constructor(run: (item: T) => void) {
    this.run = run;
  }

  /** Whether an item at `at` keeps the queue in order (a mock clock set back breaks it). */
  accepts(at: number): boolean {
    const last = this.#ats.length - 1;
    return last < this.#head || this.#ats[last]! <= at;
  }

  /** Appends an item; only when {@link accepts} said yes. */
  push(at: number, seq: number, item: T): void {
    this.#items.push(item);
    this.#ats.push(at);
    this.#seqs.push(seq);
  }

  /** The moment of the first item; +Infinity when empty. */
  get headAt(): number {
    return this.#head < this.#ats.length ? this.#ats[this.#head]! : Number.POSITIVE_INFINITY;
  }

  /** The sequence number of the first item (only when not empty). */
  get headSeq(): number {
    return this.#seqs[this.#head]!;
  }

  /** Removes and answers the first item (only when not empty). */
  shift(): T {
    const item = this.#items[this.#head]!;
    this.#head += 1;
    if (this.#head === this.#items.length) {
      this.clear();
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      // Drop the run part once it is at least half the queue: each item is moved at most once on average.
      this.#items = this.#items.slice(this.#head);
      this.#ats = this.#ats.slice(this.#head);
      this.#seqs = this.#seqs.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Drops every item. */
  clear(): void {
    this.#items = [];
    this.#ats = [];
    this.#seqs = [];
    this.#head = 0;
  }
}
