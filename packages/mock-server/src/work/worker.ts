// The background work of one engine process (docs/decisions/sandbox-store.md): the due work of every
// account as it falls due, and the webhook attempts, each claimed from the store with a short lease the
// process renews while the attempt runs (one process makes each attempt; a process killed or frozen
// mid-attempt stops renewing, and another makes it once the lease ends),
// made outside any transaction, and recorded in a short transaction of its own. A store that knows its
// next moment (memory) wakes the worker then; the SQL stores are polled, and every commit that queued a
// delivery hands it over at once.

import type { WebhookWork } from "../domain/control.js";
import {
  type AttemptOutcome,
  attemptHeaders,
  type DeliveryRecord,
  deliveryView,
  recordAttempt,
  type WebhookDelivery,
} from "../domain/deliveries.js";
import { DUE_PER_TURN, runDue } from "../domain/due.js";
import { eventName, LISTENER_LEASE_MS, type ListenParams, type ListenResult } from "../domain/listeners.js";
import type { ClaimedAttempt, SandboxStore } from "../domain/repository.js";
import type { DeliverySlots } from "../internal/delivery-slots.js";
import { ListenerHub } from "./listeners.js";
import { postAttempt, type WebhookFetch } from "./sender.js";
import type { Turns } from "./turns.js";

/** How often a process looks for due work and attempts in a store it is not woken by (ms). */
const POLL_MS = 200;
/** How long a flush waits, at most, for attempts made elsewhere (ms). */
const FLUSH_WAIT_MS = LISTENER_LEASE_MS + 30_000;
/** How often a flush asks the store whether the attempts it waits for were made (ms). */
const FLUSH_CHECK_MS = 20;
/** Attempts claimed at once. */
const CLAIM_BATCH = 100;
/**
 * How long a claim holds after its last renewal (ms): how soon another process makes the attempts of a
 * process killed or frozen mid-attempt. A live process renews every {@link CLAIM_RENEW_MS}, however long
 * its attempt waits (a slot, a receiver's timeout, a listener's poll), so this only has to outlast a few
 * missed renewals on a busy machine.
 */
export const CLAIM_LEASE_MS = 10_000;
/** How long a process that stops waits for its attempts under way before it frees their claims (ms). */
const STOP_GRACE_MS = 500;
/** How often a process renews the claims of the attempts it is making (ms). */
const CLAIM_RENEW_MS = 2_000;

/** What a worker needs of its engine. */
export interface WorkerOptions {
  store: SandboxStore;
  turns: Turns;
  /** This process's name in the store's leases. */
  owner: string;
  fetcher: () => WebhookFetch;
  slots: DeliverySlots;
  /** How long a receiver has to answer, in ms. */
  timeoutMs: number;
  onError: (error: unknown) => void;
  now?: () => number;
}

/** The due work and webhook attempts of one engine. */
export class Worker implements WebhookWork {
  readonly hub: ListenerHub;
  readonly #options: WorkerOptions;
  readonly #store: SandboxStore;
  /** Attempts this process is making, by delivery id. */
  readonly #inFlight = new Map<string, { accountId: string; done: Promise<void> }>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #ticking: Promise<void> | null = null;
  #again = false;
  #closed = false;
  #renewer: ReturnType<typeof setInterval> | undefined;
  #renewing = false;

  constructor(options: WorkerOptions) {
    this.#options = options;
    this.#store = options.store;
    this.hub = new ListenerHub(
      options.store,
      options.owner,
      (accountId, attached, events) => void this.#attach(accountId, attached, events),
      options.now,
    );
    options.turns.onCommit = (queued) => this.kick(queued);
  }

  /** Starts the background loop, and the renewal of this process's claims. */
  start(): void {
    this.#arm();
    this.#renewer = setInterval(() => void this.#renew(), CLAIM_RENEW_MS);
    this.#renewer.unref?.();
  }

  /** Deliveries a turn queued: their first attempt now (or after their hold). */
  kick(queued: readonly DeliveryRecord[]): void {
    if (this.#closed) return;
    if (queued.length === 0) {
      this.#arm();
      return;
    }
    const now = this.#now();
    const due = queued.filter((d) => d.holdUntil <= now);
    // an account whose listener polls here: its events go in order per resource, claimed as the account's
    const listened = new Set(due.filter((d) => this.hub.holds(d.accountId)).map((d) => d.accountId));
    for (const accountId of listened) {
      // a later event of a resource brings its older pending ones forward, once: they go first
      const resources = due.filter((d) => d.accountId === accountId).map((d) => d.resourceId);
      void this.#store
        .bringForward(accountId, this.hub.eventsOf(accountId), resources)
        .then(() => this.#claimAndSend({ accountId }))
        .catch(this.#options.onError);
    }
    const ids = due.filter((d) => !listened.has(d.accountId)).map((d) => d.id);
    if (ids.length > 0) void this.#claimAndSend({ ids });
    const held = queued.filter((d) => d.holdUntil > now);
    if (held.length > 0) this.#armAt(Math.max(...held.map((d) => d.holdUntil)) + 1);
    else this.#arm();
  }

  /** The store's next moment may have moved (a commit, the clock): wakes the loop then. */
  rearm(): void {
    this.#arm();
  }

  async flush(accountId?: string): Promise<WebhookDelivery[]> {
    await this.#store.releaseHolds(accountId);
    const attempted = new Set<string>();
    const deadline = this.#now() + FLUSH_WAIT_MS;
    for (;;) {
      const sent = await this.#claimAndSend(accountId === undefined ? {} : { accountId });
      for (const id of sent) attempted.add(id);
      await this.#settled(accountId);
      if (sent.length > 0) continue;
      if ((await this.#store.openAttempts(accountId === undefined ? {} : { accountId })) === 0) break;
      if (this.#now() > deadline || this.#closed) break;
      await sleep(FLUSH_CHECK_MS);
    }
    return this.#views([...attempted]);
  }

  async attempted(deliveryId: string): Promise<WebhookDelivery> {
    const deadline = this.#now() + FLUSH_WAIT_MS;
    for (;;) {
      await this.#claimAndSend({ ids: [deliveryId] });
      await this.#inFlight.get(deliveryId)?.done;
      if ((await this.#store.openAttempts({ ids: [deliveryId] })) === 0) break;
      if (this.#now() > deadline || this.#closed) break;
      await sleep(FLUSH_CHECK_MS);
    }
    const [view] = await this.#views([deliveryId]);
    if (view === undefined) throw new Error(`webhook delivery ${deliveryId} is gone`);
    return view;
  }

  listen(accountId: string, params: ListenParams): Promise<ListenResult> {
    return this.hub.poll(accountId, params);
  }

  listenerOf(accountId: string): Promise<{ events: string[] | null } | null> {
    return this.#store.listenerOf(accountId);
  }

  /** Stops the loop; attempts under way finish. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#renewer);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.hub.close();
  }

  /**
   * Stops the loop, gives the attempts under way `graceMs` to end, and frees the claims of those that did
   * not: a process that stops on purpose leaves its attempts to the others (or its next start) at once,
   * not when their leases end. An attempt still running may then be made twice, under one webhook-id.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.close();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#settled(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    try {
      await this.#store.releaseClaims(this.#options.owner);
    } catch (error) {
      this.#options.onError(error);
    }
  }

  /** Resolves once this process's attempts (of the account, or all) settled. */
  async #settled(accountId?: string): Promise<void> {
    for (;;) {
      const running = [...this.#inFlight.values()]
        .filter((a) => accountId === undefined || a.accountId === accountId)
        .map((a) => a.done);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /**
   * A listener polls here: the account's attempts due now go to it; when it just attached, so do the
   * pending ones it takes, whatever their retry's time.
   */
  async #attach(accountId: string, attached: boolean, events: readonly string[] | null): Promise<void> {
    try {
      if (attached) await this.#store.bringForward(accountId, events);
      await this.#claimAndSend({ accountId });
    } catch (error) {
      this.#options.onError(error);
    }
  }

  async #views(ids: readonly string[]): Promise<WebhookDelivery[]> {
    if (ids.length === 0) return [];
    return this.#options.turns.run(
      async (turn) => {
        const out: WebhookDelivery[] = [];
        for (const id of ids) {
          const delivery = await turn.tx.delivery(id);
          if (delivery !== null) out.push(deliveryView(delivery));
        }
        return out;
      },
      { write: false },
    );
  }

  /** Claims what is due (of the filter) and sends it; answers the ids claimed. */
  async #claimAndSend(filter: { accountId?: string; ids?: readonly string[] }): Promise<string[]> {
    if (this.#closed) return [];
    let claims: ClaimedAttempt[];
    try {
      claims = await this.#store.claimAttempts(this.#options.owner, {
        ...filter,
        limit: CLAIM_BATCH,
        leaseMs: CLAIM_LEASE_MS,
      });
    } catch (error) {
      this.#options.onError(error);
      return [];
    }
    // an account's out-of-order batch goes newest first: each attempt starts after the one before
    const byAccount = new Map<string, ClaimedAttempt[]>();
    for (const claim of claims) {
      const list = byAccount.get(claim.delivery.accountId) ?? [];
      list.push(claim);
      byAccount.set(claim.delivery.accountId, list);
    }
    for (const list of byAccount.values()) {
      for (const claim of list) {
        const entry = { accountId: claim.delivery.accountId, done: Promise.resolve() };
        entry.done = this.#attempt(claim).finally(() => {
          if (this.#inFlight.get(claim.delivery.id) === entry) this.#inFlight.delete(claim.delivery.id);
        });
        this.#inFlight.set(claim.delivery.id, entry);
      }
    }
    return claims.map((c) => c.delivery.id);
  }

  /** Extends the leases of the attempts this process is making; a renewal still running is not doubled. */
  async #renew(): Promise<void> {
    if (this.#renewing || this.#inFlight.size === 0) return;
    this.#renewing = true;
    try {
      await this.#store.renewClaims(this.#options.owner, [...this.#inFlight.keys()], CLAIM_LEASE_MS);
    } catch (error) {
      this.#options.onError(error);
    } finally {
      this.#renewing = false;
    }
  }

  async #attempt(claim: ClaimedAttempt): Promise<void> {
    const delivery = claim.delivery;
    const claimedAt = this.#now();
    // the account's clock when an outcome came: a retry counts from then, not from the attempt's start
    const accountNow = () => claim.accountNow + (this.#now() - claimedAt);
    try {
      const first = await this.#send(claim);
      recordAttempt(delivery, first, claim.accountNow, accountNow());
      if (delivery.state === "delivered" && delivery.duplicate) {
        const second = await this.#send(claim);
        recordAttempt(delivery, second, claim.accountNow, accountNow());
        // the duplicate's answer does not undo the delivery
        if (delivery.state !== "delivered") {
          delivery.state = "delivered";
          delivery.nextAttemptAt = null;
        }
      }
      await this.#store.finishAttempt(this.#options.owner, claim, delivery);
    } catch (error) {
      this.#options.onError(error);
    } finally {
      this.#arm();
    }
  }

  async #send(claim: ClaimedAttempt): Promise<AttemptOutcome> {
    const d = claim.delivery;
    const headers = attemptHeaders(d, claim.secrets, Math.floor(Date.now() / 1000));
    const event = eventName(d.resource, d.status);
    if (this.hub.takes(d.accountId, event)) {
      // a `paykit-mock listen` takes the account's deliveries: its receiver's answer is this attempt's
      const { id: deliveryId, webhookId, resource, resourceId, status, url } = d;
      return this.hub.offer(
        d.accountId,
        { deliveryId, webhookId, resource, resourceId, status, url, event, headers, body: d.payload },
        this.#options.timeoutMs,
      );
    }
    return postAttempt(
      this.#options.fetcher(),
      this.#options.slots,
      d.url,
      headers,
      d.payload,
      this.#options.timeoutMs,
    );
  }

  // The loop: due work of every account, then the attempts due; again at the store's next moment.
  #arm(): void {
    if (this.#closed) return;
    const wake = this.#store.nextWake();
    const at = this.#store.kind === "memory" ? (wake ?? Number.POSITIVE_INFINITY) : this.#now() + POLL_MS;
    this.#armAt(at);
  }

  #armAt(at: number): void {
    if (this.#closed || at >= this.#timerAt) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    if (at === Number.POSITIVE_INFINITY) return;
    // setTimeout takes at most a signed 32-bit delay
    const delay = Math.min(Math.max(0, at - this.#now()), 2_147_483_647);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      void this.#tick();
    }, delay);
    this.#timer.unref?.();
  }

  async #tick(): Promise<void> {
    if (this.#ticking !== null) {
      this.#again = true;
      return this.#ticking;
    }
    this.#ticking = (async () => {
      do {
        this.#again = false;
        try {
          await this.#runDue();
          await this.#claimAndSend({});
        } catch (error) {
          this.#options.onError(error);
        }
      } while (this.#again && !this.#closed);
    })();
    try {
      await this.#ticking;
    } finally {
      this.#ticking = null;
      this.#arm();
    }
  }

  async #runDue(): Promise<void> {
    for (const accountId of await this.#store.dueAccounts(50)) {
      if (this.#closed) return;
      let ran = DUE_PER_TURN;
      while (ran >= DUE_PER_TURN && !this.#closed) {
        ran = await this.#options.turns.run(async (turn) => {
          const account = await turn.tx.account(accountId, { lock: true });
          return account === null ? 0 : runDue(turn, account);
        });
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
