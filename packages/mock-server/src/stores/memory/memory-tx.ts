// A transaction of the memory store: reads answer the live records, writes land at once (the rules
// write only once nothing can refuse the request), locks are the accounts' locks.
import type { Account } from "../../domain/accounts.js";
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { ApiError } from "../../domain/errors.js";
import type { Fault, FaultAction, FaultParams } from "../../domain/faults.js";
import { type ListPage, type PagePlace, pageOf } from "../../domain/lists.js";
import type { PixKeyEntry, RegisterPixKeyParams } from "../../domain/pix-directory.js";
import type { PayinRecord, PayoutRecord } from "../../domain/records.js";
import type {
  DeliveryQuery,
  DueItem,
  DueKind,
  PayoutListing,
  PayoutQuery,
  SandboxSettings,
  StoreTx,
} from "../../domain/repository.js";
import type { AccountRecords } from "./account-records.js";
import type { AccountLocks } from "./locks.js";
import { type MemoryState, pixKeyId, startSettings } from "./memory-state.js";

/** One transaction of the memory store. */
export class MemoryTx implements StoreTx {
  readonly sandbox: SandboxSettings;
  readonly #state: MemoryState;
  readonly #locks: AccountLocks;
  readonly #now: () => number;
  readonly #locked = new Set<string>();

  constructor(state: MemoryState, locks: AccountLocks, now: () => number) {
    this.#state = state;
    this.#locks = locks;
    this.#now = now;
    this.sandbox = { ...state.sandbox };
  }

  realNow(): number {
    return this.#now();
  }

  /** Ends the transaction: its locks go. */
  end(): void {
    for (const accountId of this.#locked) this.#locks.release(accountId);
    this.#locked.clear();
  }

  async #lock(accountId: string): Promise<void> {
    if (this.#locked.has(accountId)) return;
    await this.#locks.acquire(accountId);
    this.#locked.add(accountId);
  }

  async account(id: string, options?: { lock?: boolean }): Promise<Account | null> {
    if (options?.lock && this.#state.accounts.has(id)) await this.#lock(id);
    return this.#state.accounts.get(id) ?? null;
  }

  async caller(publicKey: string): Promise<{ account: Account; due: boolean } | null> {
    const account = this.#state.byPublicKey.get(publicKey);
    if (account === undefined) return null;
    const records = this.#state.records.get(account.id);
    const realNow = this.#now();
    const due =
      records !== undefined &&
      records.due.size > 0 &&
      records.due.nextAt(this.#state.offsetOf(account)) <= realNow;
    return { account, due };
  }

  async accountByPublicKey(publicKey: string, options?: { lock?: boolean }): Promise<Account | null> {
    const found = this.#state.byPublicKey.get(publicKey);
    if (found === undefined) return null;
    if (options?.lock) await this.#lock(found.id);
    return this.#state.byPublicKey.get(publicKey) ?? null;
  }

  insertAccount(account: Account): void {
    if (this.#state.byPublicKey.has(account.publicKey)) {
      throw new ApiError("INVALID_DATA", "publicKey is already used by another account", {
        details: [{ path: "publicKey", message: "is already used by another account" }],
      });
    }
    this.#state.accounts.set(account.id, account);
    this.#state.byPublicKey.set(account.publicKey, account);
    this.#state.lastUsed.set(account.id, this.realNow());
  }

  updateAccount(_account: Account): void {
    // the live object is the stored one
  }

  resetAccount(account: Account): void {
    const state = this.#state;
    state.forgetRecords(account.id);
    state.accounts.set(account.id, account);
    state.byPublicKey.set(account.publicKey, account);
  }

  touchAccount(accountId: string): void {
    if (this.#state.accounts.has(accountId)) this.#state.lastUsed.set(accountId, this.realNow());
  }

  async accountPage(place: PagePlace, onlyId?: string): Promise<ListPage<Account>> {
    const accounts =
      onlyId === undefined
        ? [...this.#state.accounts.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
        : [this.#state.accounts.get(onlyId)].filter((a): a is Account => a !== undefined);
    return pageOf("accounts", [accounts], (account) => account.id, "oldest", place);
  }

  async payin(id: string): Promise<PayinRecord | null> {
    return this.#state.payins.get(id) ?? null;
  }

  async payinByThreeDS(transactionId: string): Promise<PayinRecord | null> {
    const id = this.#state.payinsByThreeDS.get(transactionId);
    return id === undefined ? null : (this.#state.payins.get(id) ?? null);
  }

  insertPayin(payin: PayinRecord): void {
    const state = this.#state;
    state.payins.add(payin);
    if (payin.threeDS) state.payinsByThreeDS.set(payin.threeDS.transactionId, payin.id);
    state.recordsOf(payin.accountId).addPayin(payin);
  }

  updatePayin(_payin: PayinRecord): void {
    // the live object is the stored one
  }

  async payinPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayinRecord>> {
    return pageOf(
      "payins",
      this.#lists(accountId, (r) => r.payins),
      idOf,
      "newest",
      place,
    );
  }

  async nextBoletoNumber(): Promise<number> {
    this.#state.boletoSeq += 1;
    return this.#state.boletoSeq;
  }

  async payout(id: string): Promise<PayoutRecord | null> {
    const accountId = this.#state.payoutAccounts.get(id);
    return accountId === undefined ? null : (this.#state.records.get(accountId)?.payoutsById.get(id) ?? null);
  }

  async payoutByReference(accountId: string, referenceId: string): Promise<PayoutRecord | null> {
    return this.#state.records.get(accountId)?.payoutsByReference.get(referenceId) ?? null;
  }

  insertPayout(payout: PayoutRecord): void {
    this.#state.recordsOf(payout.accountId).addPayout(payout);
    this.#state.payoutAccounts.set(payout.id, payout.accountId);
  }

  updatePayout(payout: PayoutRecord): void {
    this.#state.records.get(payout.accountId)?.payoutChanged(payout);
  }

  async payoutList(accountId: string, query: PayoutQuery): Promise<PayoutListing> {
    return this.#state.records.get(accountId)?.payoutList(query) ?? { records: [], total: 0 };
  }

  async payoutPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayoutRecord>> {
    return pageOf(
      "payouts",
      this.#lists(accountId, (r) => r.payouts),
      idOf,
      "newest",
      place,
    );
  }

  async trimRecords(account: Account, max: number): Promise<{ payins: number; payouts: PayoutRecord[] }> {
    const state = this.#state;
    const records = state.records.get(account.id);
    if (records === undefined) return { payins: 0, payouts: [] };
    const dropped = records.trim(max);
    for (const payin of dropped.payins) {
      state.payins.delete(payin.id);
      if (payin.threeDS) state.payinsByThreeDS.delete(payin.threeDS.transactionId);
    }
    for (const payout of dropped.payouts) state.payoutAccounts.delete(payout.id);
    // their deliveries went from the account's log with them (AccountRecords.trim): from the indexes too
    const kept = new Set(records.deliveries);
    for (const delivery of dropped.deliveries) {
      if (kept.has(delivery)) continue;
      state.deliveries.delete(delivery.id);
      state.pending.delete(delivery);
      state.leases.delete(delivery.id);
    }
    state.deliveryChanges++;
    return { payins: dropped.payins.length, payouts: dropped.payouts };
  }

  schedule(item: DueItem): void {
    this.#state.recordsOf(item.accountId).due.add(item);
    this.#state.dueAccounts.changed(item.accountId);
  }

  unschedule(kind: DueKind, resourceId: string): void {
    // a payin's expiry and release check their payin when they run; a payout's step is forgotten
    if (kind !== "payout.advance") return;
    const accountId = this.#state.payoutAccounts.get(resourceId);
    if (accountId !== undefined) this.#state.records.get(accountId)?.due.cancel(kind, resourceId);
  }

  async takeDue(accountId: string, accountNow: number, realNow: number, limit: number): Promise<DueItem[]> {
    // marked even when nothing is left: an entry the worker was given is then worked out again, never
    // given back to it for ever
    this.#state.dueAccounts.changed(accountId);
    const records = this.#state.records.get(accountId);
    if (records === undefined || records.due.size === 0) return [];
    return records.due.take(accountNow, realNow, limit);
  }

  async hasDue(accountId: string, accountNow: number, realNow: number): Promise<boolean> {
    const account = this.#state.accounts.get(accountId);
    const records = this.#state.records.get(accountId);
    if (account === undefined || records === undefined || records.due.size === 0) return false;
    // nextAt answers real time from the account clock's offset against real time
    return records.due.nextAt(accountNow - realNow) <= realNow;
  }

  clockMoved(account: Account): void {
    // the due queue keeps account times; the store reads the offset when it looks (its deliveries' too)
    this.#state.deliveryChanges++;
    this.#state.dueAccounts.changed(account.id);
  }

  insertDelivery(delivery: DeliveryRecord): void {
    const state = this.#state;
    delivery.seq = ++state.deliverySeq;
    state.deliveries.set(delivery.id, delivery);
    state.pending.add(delivery);
    state.recordsOf(delivery.accountId).addDelivery(delivery);
    state.deliveryChanges++;
  }

  async delivery(id: string): Promise<DeliveryRecord | null> {
    return this.#state.deliveries.get(id) ?? null;
  }

  updateDelivery(delivery: DeliveryRecord): void {
    const state = this.#state;
    if (!state.deliveries.has(delivery.id)) return;
    state.leases.delete(delivery.id);
    if (delivery.state === "pending") state.pending.add(delivery);
    else state.pending.delete(delivery);
    state.deliveryChanges++;
  }

  async deliveryPage(filter: DeliveryQuery, place: PagePlace): Promise<ListPage<DeliveryRecord>> {
    let lists = this.#lists(filter.accountId, (r) => r.deliveries);
    if (filter.resourceId !== undefined || filter.status !== undefined || filter.state !== undefined)
      lists = lists.map((list) =>
        list.filter(
          (d) =>
            (filter.resourceId === undefined || d.resourceId === filter.resourceId) &&
            (filter.status === undefined || d.status === filter.status) &&
            (filter.state === undefined || d.state === filter.state),
        ),
      );
    return pageOf("webhooks", lists, idOf, filter.order, place);
  }

  async takeFault(method: string, path: string, accountId: string | null): Promise<FaultAction | null> {
    return this.#state.faults.take(method, path, accountId);
  }

  async addFault(params: FaultParams): Promise<Fault> {
    return this.#state.faults.add(params);
  }

  async faults(accountId?: string): Promise<Fault[]> {
    return this.#state.faults.list(accountId);
  }

  clearFaults(accountId?: string): void {
    this.#state.faults.clear(accountId);
  }

  async pixKey(type: string, normalizedKey: string, accountId: string): Promise<PixKeyEntry | null> {
    const id = `${type}:${normalizedKey}`;
    return this.#state.ownPixKeys.get(accountId)?.get(id) ?? this.#state.pixKeys.get(id) ?? null;
  }

  registerPixKey(entry: PixKeyEntry & RegisterPixKeyParams): void {
    const state = this.#state;
    const { accountId } = entry;
    if (accountId === undefined) {
      state.pixKeys.set(pixKeyId(entry), entry);
      return;
    }
    let own = state.ownPixKeys.get(accountId);
    if (own === undefined) {
      own = new Map();
      state.ownPixKeys.set(accountId, own);
    }
    own.set(pixKeyId(entry), entry);
  }

  async pixKeyPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PixKeyEntry>> {
    const keyed = (part: string, entries: Iterable<PixKeyEntry>) =>
      [...entries]
        .map((entry) => ({ entry, key: `${part}:${entry.type}:${entry.key}` }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const shared = keyed("0", this.#state.pixKeys.values());
    const own =
      accountId === undefined ? [] : keyed("1", this.#state.ownPixKeys.get(accountId)?.values() ?? []);
    const page = pageOf("pixKeys", [[...shared, ...own]], (item) => item.key, "oldest", place);
    return { data: page.data.map((item) => item.entry), nextCursor: page.nextCursor };
  }

  updateSandbox(settings: SandboxSettings): void {
    // the sandbox's clock moved: so did the real moment of every account's due work
    if (settings.clockOffsetMs !== this.#state.sandbox.clockOffsetMs) this.#state.dueAccounts.allChanged();
    Object.assign(this.sandbox, settings);
    this.#state.sandbox = { ...settings };
    // the sandbox's clock may have moved: every delivery's real due time with it
    this.#state.deliveryChanges++;
  }

  resetSandbox(defaultAccount: Account): void {
    const state = this.#state;
    for (const accountId of [...state.accounts.keys()]) state.removeAccount(accountId);
    state.faults.clear();
    state.seedPixKeys();
    state.ownPixKeys.clear();
    state.sandbox = { ...startSettings(), defaultAccountId: defaultAccount.id };
    Object.assign(this.sandbox, state.sandbox);
    this.insertAccount(defaultAccount);
  }

  #lists<T>(
    accountId: string | undefined,
    pick: (records: AccountRecords) => readonly T[],
  ): (readonly T[])[] {
    if (accountId !== undefined) {
      const records = this.#state.records.get(accountId);
      return records === undefined ? [] : [pick(records)];
    }
    return [...this.#state.records.values()].map(pick);
  }
}

const idOf = (record: { id: string }): string => record.id;
