// The memory store (the default `paykit-mock` mode, `createEngine()` and the msw handlers): the same
// repository as the SQL stores (domain/repository.ts), kept in this process's memory, gone when it
// stops. A transaction holds the locks of the accounts it changes until it ends; writes go straight
// into memory (the payment rules check everything before their first write, and a refusal that keeps
// its writes says so), so a request costs no copy of what it reads.
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { eventMatches, eventName, RETIRED_KEPT } from "../../domain/listeners.js";
import type { ClaimedAttempt, SandboxStore, StoreTx, TxScope } from "../../domain/repository.js";
import { claimable } from "./claims.js";
import { AccountLocks } from "./locks.js";
import { MemoryState } from "./memory-state.js";
import { MemoryTx } from "./memory-tx.js";

export { MemoryState, pixKeyId } from "./memory-state.js";

/** The memory store: the repository over a {@link MemoryState}. */
export class MemoryStore implements SandboxStore {
  readonly kind = "memory" as const;
  readonly description = "memory";
  readonly shared = false;
  readonly refused = false;
  readonly state = new MemoryState();
  readonly locks = new AccountLocks();
  readonly #now: () => number;
  /** The earliest wake of the pending deliveries, as of `MemoryState.deliveryChanges`. */
  #deliveryWake = { changes: -1, at: Number.POSITIVE_INFINITY };

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  realNow(): number {
    return this.#now();
  }

  async transaction<T>(work: (tx: StoreTx) => Promise<T>, _scope?: TxScope): Promise<T> {
    const tx = new MemoryTx(this.state, this.locks, this.#now);
    try {
      return await work(tx);
    } finally {
      tx.end();
    }
  }

  async claimAttempts(
    owner: string,
    options: { accountId?: string; ids?: readonly string[]; limit: number; leaseMs: number },
  ): Promise<ClaimedAttempt[]> {
    const state = this.state;
    const now = this.#now();
    const candidates: Iterable<DeliveryRecord> =
      options.ids !== undefined
        ? options.ids.flatMap((id) => state.deliveries.get(id) ?? [])
        : options.accountId !== undefined
          ? (state.records.get(options.accountId)?.deliveries.filter((d) => state.pending.has(d)) ?? [])
          : [...state.pending];
    const claimed: ClaimedAttempt[] = [];
    for (const delivery of claimable(state, [...candidates], owner, now)) {
      if (claimed.length >= options.limit) break;
      const account = state.accounts.get(delivery.accountId)!;
      const accountNow = now + state.offsetOf(account);
      state.leases.set(delivery.id, { owner, until: now + options.leaseMs, cycle: delivery.cycleAttempts });
      state.deliveryChanges++;
      claimed.push({
        delivery: structuredClone(delivery),
        cycleAttempts: delivery.cycleAttempts,
        secrets: account.signingSecrets(accountNow),
        accountNow,
      });
    }
    return claimed;
  }

  async renewClaims(owner: string, ids: readonly string[], leaseMs: number): Promise<void> {
    const until = this.#now() + leaseMs;
    for (const id of ids) {
      const lease = this.state.leases.get(id);
      if (lease?.owner === owner) lease.until = until;
    }
    this.state.deliveryChanges++;
  }

  async releaseClaims(owner: string): Promise<void> {
    for (const [id, lease] of this.state.leases) if (lease.owner === owner) this.state.leases.delete(id);
    this.state.deliveryChanges++;
  }

  async finishAttempt(owner: string, claim: ClaimedAttempt, outcome: DeliveryRecord): Promise<boolean> {
    const state = this.state;
    const stored = state.deliveries.get(outcome.id);
    const lease = state.leases.get(outcome.id);
    if (stored === undefined || lease?.owner !== owner || stored.cycleAttempts !== claim.cycleAttempts)
      return false;
    state.leases.delete(outcome.id);
    state.deliveryChanges++;
    Object.assign(stored, { ...outcome, attempts: outcome.attempts.map((a) => ({ ...a })) });
    if (stored.state === "pending") state.pending.add(stored);
    else state.pending.delete(stored);
    return true;
  }

  async releaseHolds(accountId?: string): Promise<void> {
    for (const delivery of this.state.pending)
      if (accountId === undefined || delivery.accountId === accountId) delivery.holdUntil = 0;
    this.state.deliveryChanges++;
  }

  async openAttempts(filter: { accountId?: string; ids?: readonly string[] }): Promise<number> {
    const state = this.state;
    const now = this.#now();
    const ids = filter.ids === undefined ? null : new Set(filter.ids);
    const mine = [...state.pending].filter(
      (d) =>
        (filter.accountId === undefined || d.accountId === filter.accountId) &&
        (ids === null || ids.has(d.id)),
    );
    let leased = 0;
    for (const delivery of mine) if ((state.leases.get(delivery.id)?.until ?? 0) > now) leased += 1;
    return leased + claimable(state, mine, null, now).length;
  }

  async dueAccounts(limit: number): Promise<string[]> {
    return this.state.dueAccounts.due(this.#now(), limit);
  }

  nextWake(): number | undefined {
    const next = Math.min(this.state.dueAccounts.next(), this.#pendingWake());
    return next === Number.POSITIVE_INFINITY ? undefined : next;
  }

  /**
   * When the first pending delivery falls due (its lease ends, its hold, its next attempt), worked out
   * again only after a change that may move it: every commit asks (the worker arms its timer), and a
   * receiver that is down keeps thousands of deliveries pending.
   */
  #pendingWake(): number {
    const state = this.state;
    if (this.#deliveryWake.changes === state.deliveryChanges) return this.#deliveryWake.at;
    let next = Number.POSITIVE_INFINITY;
    for (const delivery of state.pending) {
      const lease = state.leases.get(delivery.id);
      if (lease !== undefined) {
        next = Math.min(next, lease.until);
        continue;
      }
      const account = state.accounts.get(delivery.accountId);
      if (account === undefined || delivery.nextAttemptAt === null) continue;
      next = Math.min(next, Math.max(delivery.holdUntil, delivery.nextAttemptAt - state.offsetOf(account)));
    }
    this.#deliveryWake = { changes: state.deliveryChanges, at: next };
    return next;
  }

  async holdListener(
    accountId: string,
    owner: string,
    listener: string,
    leaseMs: number,
    events: readonly string[] | null,
  ): Promise<{ retired: true } | { retired: false; previous: string | null }> {
    const state = this.state;
    if (state.retiredListeners.get(accountId)?.includes(listener)) return { retired: true };
    const held = state.listeners.get(accountId);
    const previous = held !== undefined && held.listener !== listener ? held.listener : null;
    if (previous !== null) {
      const retired = state.retiredListeners.get(accountId) ?? [];
      retired.push(previous);
      if (retired.length > RETIRED_KEPT) retired.shift();
      state.retiredListeners.set(accountId, retired);
    }
    state.listeners.set(accountId, { owner, listener, until: this.#now() + leaseMs, events });
    return { retired: false, previous };
  }

  async bringForward(
    accountId: string,
    events: readonly string[] | null,
    resourceIds?: readonly string[],
  ): Promise<void> {
    const resources = resourceIds === undefined ? null : new Set(resourceIds);
    const state = this.state;
    const account = state.accounts.get(accountId);
    if (account === undefined) return;
    const now = this.#now() + state.offsetOf(account);
    for (const delivery of state.pending) {
      if (delivery.accountId !== accountId || delivery.state !== "pending") continue;
      if (!eventMatches(events, eventName(delivery.resource, delivery.status))) continue;
      if (resources !== null && !resources.has(delivery.resourceId)) continue;
      if (delivery.nextAttemptAt === null || delivery.nextAttemptAt > now) delivery.nextAttemptAt = now;
    }
    state.deliveryChanges++;
  }

  async listenerOf(
    accountId: string,
  ): Promise<{ owner: string; listener: string; events: string[] | null } | null> {
    const held = this.state.listeners.get(accountId);
    if (held === undefined || held.until <= this.#now()) return null;
    return {
      owner: held.owner,
      listener: held.listener,
      events: held.events === null ? null : [...held.events],
    };
  }

  async dropListener(accountId: string, listener: string): Promise<void> {
    if (this.state.listeners.get(accountId)?.listener === listener) this.state.listeners.delete(accountId);
  }

  async sweep(retentionMs: number): Promise<string[]> {
    const now = this.#now();
    const removed: string[] = [];
    for (const [accountId, usedAt] of this.state.lastUsed) {
      if (accountId === this.state.sandbox.defaultAccountId || now - usedAt < retentionMs) continue;
      await this.locks.acquire(accountId);
      try {
        this.state.removeAccount(accountId);
      } finally {
        this.locks.release(accountId);
      }
      removed.push(accountId);
    }
    return removed;
  }

  async purge(): Promise<boolean> {
    return false;
  }

  async close(): Promise<void> {}
}
