// One read of an account's named records for all the requests that ask in the same turn. The requests
// of a shared store's group run one after the other while its transaction holds the account's lock, and
// each new payout names a referenceId that memory does not hold: read one by one, 64 of them made 64
// round trips inside that one transaction, and kept it idle past the server's limit on a busy machine.
import type { RecordNames, SavedRecords } from "./sql/state-store.js";

type NameLists = { [K in keyof RecordNames]-?: Set<string> };

interface Pending {
  names: NameLists;
  done: Promise<SavedRecords>;
}

/** Coalesces `load(accountId, names)` calls made in one event-loop turn into one per account. */
export class RecordReads {
  readonly #load: (accountId: string, names: RecordNames) => Promise<SavedRecords>;
  readonly #pending = new Map<string, Pending>();

  constructor(load: (accountId: string, names: RecordNames) => Promise<SavedRecords>) {
    this.#load = load;
  }

  /**
   * Reads an account's named records with whatever else is asked of that account in this turn; the
   * answer may hold more records than were asked for (the others' names).
   */
  read(accountId: string, names: RecordNames): Promise<SavedRecords> {
    let pending = this.#pending.get(accountId);
    if (pending === undefined) {
      const lists: NameLists = {
        payinIds: new Set(),
        payoutIds: new Set(),
        deliveryIds: new Set(),
        payoutReferenceIds: new Set(),
        threeDSTransactionIds: new Set(),
      };
      const done = new Promise<SavedRecords>((resolve, reject) => {
        setImmediate(() => {
          this.#pending.delete(accountId);
          const asked: RecordNames = {};
          for (const key of Object.keys(lists) as (keyof NameLists)[])
            if (lists[key].size > 0) asked[key] = [...lists[key]];
          this.#load(accountId, asked).then(resolve, reject);
        });
      });
      pending = { names: lists, done };
      this.#pending.set(accountId, pending);
    }
    for (const key of Object.keys(pending.names) as (keyof NameLists)[])
      for (const value of names[key] ?? []) pending.names[key].add(value);
    return pending.done;
  }
}
