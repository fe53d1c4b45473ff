import type { PayinRecord, PayoutRecord } from "./records.js";

/**
 * What changed in the state since the last save: the records, accounts and deliveries a durable store
 * must write, and what it must drop. Records are kept by reference and read when the save starts, so
 * several changes to one payin within a request are written once, as they ended.
 */
export class ChangeSet {
  readonly payins = new Set<PayinRecord>();
  readonly payouts = new Set<PayoutRecord>();
  /** Account ids whose settings, balance totals or clock changed. */
  readonly accounts = new Set<string>();
  /** Delivery ids whose state or attempts changed. */
  readonly deliveries = new Set<string>();
  /** Accounts reset to their creation: their records and deliveries are dropped before the rest is written. */
  readonly resetAccounts = new Set<string>();
  /** Accounts used by a request since their last stamp: the store stamps their last use on its own clock. */
  readonly usedAccounts = new Set<string>();
  /** Accounts removed (retention): gone for every reader at once, their rows deleted in batches later. */
  readonly removedAccounts = new Set<string>();
  /** The whole sandbox was reset: everything saved is dropped before the rest is written. */
  everything = false;
  /** The sandbox itself changed (its clock, the PIX keys registered). */
  sandbox = false;

  get empty(): boolean {
    return (
      !this.everything &&
      !this.sandbox &&
      this.payins.size === 0 &&
      this.payouts.size === 0 &&
      this.accounts.size === 0 &&
      this.deliveries.size === 0 &&
      this.resetAccounts.size === 0 &&
      this.usedAccounts.size === 0 &&
      this.removedAccounts.size === 0
    );
  }

  /** Adds another set's changes to this one (a save that failed is retried with the next). */
  merge(other: ChangeSet): void {
    for (const p of other.payins) this.payins.add(p);
    for (const p of other.payouts) this.payouts.add(p);
    for (const id of other.accounts) this.accounts.add(id);
    for (const id of other.deliveries) this.deliveries.add(id);
    for (const id of other.resetAccounts) this.resetAccounts.add(id);
    for (const id of other.usedAccounts) this.usedAccounts.add(id);
    for (const id of other.removedAccounts) this.removedAccounts.add(id);
    this.everything ||= other.everything;
    this.sandbox ||= other.sandbox;
  }

  /**
   * Splits the changes by account (`deliveryAccount` names a delivery's account); `everything` and
   * `sandbox` are not an account's and stay with none.
   */
  byAccount(deliveryAccount: (deliveryId: string) => string | null): Map<string, ChangeSet> {
    const parts = new Map<string, ChangeSet>();
    const of = (id: string) => {
      const part = parts.get(id) ?? new ChangeSet();
      parts.set(id, part);
      return part;
    };
    for (const p of this.payins) of(p.accountId).payins.add(p);
    for (const p of this.payouts) of(p.accountId).payouts.add(p);
    for (const id of this.accounts) of(id).accounts.add(id);
    for (const id of this.resetAccounts) of(id).resetAccounts.add(id);
    for (const id of this.usedAccounts) of(id).usedAccounts.add(id);
    for (const id of this.removedAccounts) of(id).removedAccounts.add(id);
    for (const id of this.deliveries) {
      const accountId = deliveryAccount(id);
      if (accountId !== null) of(accountId).deliveries.add(id);
    }
    return parts;
  }
}

/**
 * Collects the state's changes for a durable store (absent in memory mode, where nothing is saved).
 * The domain marks what it changes; the store takes the set when it saves.
 */
export class ChangeTracker {
  #current = new ChangeSet();
  readonly #onChange: () => void;

  /** `onChange` is told of every mark, so the store can schedule a save. */
  constructor(onChange: () => void) {
    this.#onChange = onChange;
  }

  /** A payin was created, moved, or dropped (retention); its account's totals come with it. */
  payin(payin: PayinRecord): void {
    this.#current.payins.add(payin);
    this.#current.accounts.add(payin.accountId);
    this.#onChange();
  }

  /** A payout was created, moved, or dropped (retention); its account's totals come with it. */
  payout(payout: PayoutRecord): void {
    this.#current.payouts.add(payout);
    this.#current.accounts.add(payout.accountId);
    this.#onChange();
  }

  /** An account was created, or its settings, totals or clock changed. */
  account(accountId: string): void {
    this.#current.accounts.add(accountId);
    this.#onChange();
  }

  /** A webhook delivery was queued, attempted or redelivered. */
  delivery(deliveryId: string): void {
    this.#current.deliveries.add(deliveryId);
    this.#onChange();
  }

  /** An account went back to its creation. */
  accountReset(accountId: string): void {
    this.#current.resetAccounts.add(accountId);
    this.#current.accounts.add(accountId);
    this.#onChange();
  }

  /** An account was used by a request (at most about once a minute each: see `MockState.touch`). */
  used(accountId: string): void {
    this.#current.usedAccounts.add(accountId);
    this.#onChange();
  }

  /** An account was removed with everything it held (retention). */
  accountRemoved(accountId: string): void {
    this.#current.removedAccounts.add(accountId);
    this.#onChange();
  }

  /** The whole sandbox went back to its start; what was marked before is dropped with it. */
  everything(): void {
    this.#current = new ChangeSet();
    this.#current.everything = true;
    this.#onChange();
  }

  /** The sandbox itself changed (its clock, the PIX keys registered). */
  sandbox(): void {
    this.#current.sandbox = true;
    this.#onChange();
  }

  /**
   * Whether the changes not taken yet touch an account (a whole-sandbox reset touches every one);
   * `deliveryAccount` names a delivery's account.
   */
  touches(accountId: string, deliveryAccount: (deliveryId: string) => string | null): boolean {
    return touches(this.#current, accountId, deliveryAccount);
  }

  /** Answers the changes so far and starts a new set. */
  take(): ChangeSet {
    const taken = this.#current;
    this.#current = new ChangeSet();
    return taken;
  }

  /** Whether any change was marked since the last take. */
  hasChanges(): boolean {
    return !this.#current.empty;
  }

  /** Whether the changes not taken yet hold a delivery's. */
  holdsDelivery(deliveryId: string): boolean {
    return this.#current.deliveries.has(deliveryId);
  }

  /**
   * Adds changes made elsewhere (another request's, of an account it did not hold) to these; `quiet`:
   * without telling the store (changes put back for a later save it schedules itself).
   */
  add(changes: ChangeSet, options: { quiet?: boolean } = {}): void {
    if (changes.empty) return;
    this.#current.merge(changes);
    if (!options.quiet) this.#onChange();
  }

  /** Takes the changes not taken yet of these accounts (the flags stay), merged into one set. */
  takeOf(accountIds: ReadonlySet<string>, deliveryAccount: (deliveryId: string) => string | null): ChangeSet {
    const current = this.#current;
    this.#current = new ChangeSet();
    this.#current.everything = current.everything;
    this.#current.sandbox = current.sandbox;
    const taken = new ChangeSet();
    for (const [id, part] of current.byAccount(deliveryAccount)) {
      if (accountIds.has(id)) taken.merge(part);
      else this.#current.merge(part);
    }
    return taken;
  }

  /**
   * Drops the changes not taken yet of these accounts (a copy another process's write made stale:
   * what was changed in it is not saved); answers the deliveries dropped with them.
   */
  drop(accountIds: ReadonlySet<string>, deliveryAccount: (deliveryId: string) => string | null): string[] {
    const current = this.#current;
    this.#current = new ChangeSet();
    this.#current.everything = current.everything;
    this.#current.sandbox = current.sandbox;
    const dropped: string[] = [];
    for (const [id, part] of current.byAccount(deliveryAccount)) {
      if (accountIds.has(id)) dropped.push(...part.deliveries);
      else this.#current.merge(part);
    }
    return dropped;
  }

  /** Puts back changes whose save failed, under those made since. */
  putBack(changes: ChangeSet): void {
    if (this.#current.everything) return;
    changes.merge(this.#current);
    this.#current = changes;
  }
}

/** Whether a change set touches an account (see {@link ChangeTracker.touches}). */
export function touches(
  changes: ChangeSet,
  accountId: string,
  deliveryAccount: (deliveryId: string) => string | null,
): boolean {
  if (changes.everything || changes.accounts.has(accountId) || changes.usedAccounts.has(accountId))
    return true;
  if (changes.resetAccounts.has(accountId) || changes.removedAccounts.has(accountId)) return true;
  for (const id of changes.deliveries) if (deliveryAccount(id) === accountId) return true;
  return false;
}
