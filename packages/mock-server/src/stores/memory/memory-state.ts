// The memory store's state: what the SQL stores keep in tables, in maps and lists of this process.
import type { Account } from "../../domain/accounts.js";
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { Faults } from "../../domain/faults.js";
import { normalizePixKey, type PixKeyEntry, SEED_PIX_KEYS } from "../../domain/pix-directory.js";
import type { SandboxSettings } from "../../domain/repository.js";
import { AccountRecords } from "./account-records.js";
import { DueAccounts } from "./due-accounts.js";
import { PayinIndex } from "./payin-index.js";

/** A lease on one delivery's attempt: who makes it, until when (real ms), of which cycle count. */
export interface Lease {
  owner: string;
  until: number;
  cycle: number;
}

/** The sandbox's start settings. */
export function startSettings(): SandboxSettings {
  return { clockOffsetMs: 0, defaultAccountId: null, rateLimit: null, faultsArmed: false };
}

/** Where a key lives in the directory: shared (`0`) or an account's own (`1`), then `TYPE:key`. */
export function pixKeyId(entry: { type: string; key: string }): string {
  return `${entry.type}:${normalizePixKey(entry.type as never, entry.key)}`;
}

/** The sandbox's state in this process's memory. */
export class MemoryState {
  readonly accounts = new Map<string, Account>();
  readonly byPublicKey = new Map<string, Account>();
  readonly records = new Map<string, AccountRecords>();
  readonly payins = new PayinIndex();
  readonly payinsByThreeDS = new Map<string, string>();
  /** Each payout's account, by payout id. */
  readonly payoutAccounts = new Map<string, string>();
  readonly deliveries = new Map<string, DeliveryRecord>();
  /** Deliveries with an attempt to come (a retry, a held event, an attempt under way). */
  readonly pending = new Set<DeliveryRecord>();
  readonly leases = new Map<string, Lease>();
  readonly faults = new Faults();
  /** Shared keys and each account's own, by `TYPE:normalized key`. */
  readonly pixKeys = new Map<string, PixKeyEntry>();
  readonly ownPixKeys = new Map<string, Map<string, PixKeyEntry>>();
  readonly lastUsed = new Map<string, number>();
  /** Each account's `paykit-mock listen`: the process its polls reach, until when, and the events it takes. */
  readonly listeners = new Map<
    string,
    { owner: string; listener: string; until: number; events: readonly string[] | null }
  >();
  /** Listeners taken over, per account: told so when they poll again. */
  readonly retiredListeners = new Map<string, string[]>();
  /** The accounts with due work, by when it first falls due (the worker's next wake). */
  readonly dueAccounts = new DueAccounts((accountId) => this.nextDueAt(accountId));
  sandbox: SandboxSettings = startSettings();
  deliverySeq = 0;
  /**
   * Counts the changes that may move when a pending delivery's attempt falls due (a delivery queued,
   * attempted, held, claimed or released; a clock moved): the store's next wake is worked out again only
   * after one (MemoryStore.nextWake), not on every commit.
   */
  deliveryChanges = 0;
  /** The last boleto number ("nosso número") handed out. */
  boletoSeq = 0;

  constructor() {
    this.seedPixKeys();
  }

  seedPixKeys(): void {
    this.pixKeys.clear();
    for (const entry of SEED_PIX_KEYS) this.pixKeys.set(pixKeyId(entry), entry);
  }

  recordsOf(accountId: string): AccountRecords {
    let records = this.records.get(accountId);
    if (records === undefined) {
      records = new AccountRecords(accountId);
      this.records.set(accountId, records);
    }
    return records;
  }

  /** When an account's first due item falls due, in real ms (Infinity: it has none). */
  nextDueAt(accountId: string): number {
    const account = this.accounts.get(accountId);
    const records = this.records.get(accountId);
    if (account === undefined || records === undefined || records.due.size === 0)
      return Number.POSITIVE_INFINITY;
    return records.due.nextAt(this.offsetOf(account));
  }

  /** An account's clock minus real time, in ms. */
  offsetOf(account: Account): number {
    return this.sandbox.clockOffsetMs + account.clockOffsetMs;
  }

  /** Drops an account's records, deliveries, due work, faults and own keys (its reset or removal). */
  forgetRecords(accountId: string): void {
    const records = this.records.get(accountId);
    if (records !== undefined) {
      for (const payin of records.payins) {
        this.payins.delete(payin.id);
        if (payin.threeDS) this.payinsByThreeDS.delete(payin.threeDS.transactionId);
      }
      for (const payout of records.payouts) this.payoutAccounts.delete(payout.id);
      for (const delivery of records.deliveries) {
        this.deliveries.delete(delivery.id);
        this.pending.delete(delivery);
        this.leases.delete(delivery.id);
      }
      this.deliveryChanges++;
      records.due.clear();
      this.records.delete(accountId);
    }
    this.dueAccounts.changed(accountId);
    this.faults.clear(accountId);
    this.ownPixKeys.delete(accountId);
  }

  /** Removes an account with everything it holds. */
  removeAccount(accountId: string): void {
    const account = this.accounts.get(accountId);
    if (account === undefined) return;
    this.forgetRecords(accountId);
    this.accounts.delete(accountId);
    this.byPublicKey.delete(account.publicKey);
    this.lastUsed.delete(accountId);
    this.listeners.delete(accountId);
    this.retiredListeners.delete(accountId);
  }
}
