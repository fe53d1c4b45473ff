import { WEBHOOK_HEADERS, WEBHOOK_RETRY_DELAYS_MS, WEBHOOK_TIMEOUT_MS } from "@paykit/contract";
import { Webhook } from "standardwebhooks";
import { DeliverySlots } from "../internal/delivery-slots.js";
import type { AccountTime } from "./account-time.js";
import { ApiError } from "./errors.js";
import type { UlidFactory } from "./ids.js";
import { eventName, type Listeners } from "./listeners.js";
import { type ListPage, type PagePlace, pageOf } from "./lists.js";
import { type ScheduledTask, unrefTimer } from "./scheduler.js";
import { childTraceparent, type TraceContext } from "./trace-context.js";
import { webhookPayload } from "./webhook-payload.js";

/** How much of a receiver's answer is read; the rest is discarded (a receiver may answer anything). */
export const MAX_RECEIVER_BODY_BYTES = 64 * 1024;

/** One attempt to deliver a webhook: when (mock clock), the receiver's status, or what went wrong. */
export interface WebhookAttempt {
  /** ISO 8601 time of the attempt on the mock clock. */
  at: string;
  /** The receiver's HTTP status; null when no answer came. */
  statusCode: number | null;
  /** Why the attempt failed without an answer (timeout, connection refused…); null otherwise. */
  error: string | null;
}

/** An entry of the delivery log (docs/decisions/webhooks.md). */
export interface WebhookDelivery {
  /** Delivery id (`wh_…`), for `redeliverWebhook`. */
  id: string;
  /** The `webhook-id` header: the same on every retry of this event. */
  webhookId: string;
  accountId: string;
  resource: "payin" | "payout";
  resourceId: string;
  /** The resource status this event reports. */
  status: string;
  url: string;
  /** `pending` until a 2xx arrives (`delivered`) or the 8 attempts are spent (`failed`). */
  state: "pending" | "delivered" | "failed";
  attempts: WebhookAttempt[];
}

/**
 * Which deliveries a page of the log holds and in which order (`GET /_mock/webhooks`): those of one
 * payin or payout, of one event status, in one state; oldest first unless `order` is `newest`. A
 * cursor goes on with the filters and order of the page it came from.
 */
export interface DeliveryFilter {
  /** The payin's or payout's deliveries alone. */
  resourceId?: string | undefined;
  /** The deliveries of events reporting this status (`APPROVED`, `COMPLETED`). */
  status?: string | undefined;
  /** The deliveries in this state. */
  state?: WebhookDelivery["state"] | undefined;
  /** @default "oldest" */
  order?: "newest" | "oldest" | undefined;
}

/** A webhook delivery as a durable store saves it: the log entry, the event, and when its next retry is due. */
export interface SavedDelivery extends WebhookDelivery {
  payload: string;
  duplicate: boolean;
  trace: TraceContext | null;
  /** Attempts of the current cycle of retries. */
  cycleAttempts: number;
  /** When the next retry is due on the account's clock; null when none is waiting. */
  retryAt: number | null;
  /** When the delivery was queued, on its account's clock. */
  createdAt: number;
}

/** The receiving side of deliveries: `fetch` or a stand-in (tests inject one). */
export type WebhookFetch = (url: string, init: RequestInit) => Promise<Response>;

interface DeliveryState {
  entry: WebhookDelivery;
  payload: string;
  /** The account's signing secrets at the time of an attempt (none: unsigned). */
  secrets: () => readonly string[];
  duplicate: boolean;
  trace: TraceContext | null;
  /** Attempts of the current cycle; a redelivery starts a new cycle of 8. */
  cycleAttempts: number;
  retry: ScheduledTask | null;
  inFlight: Promise<void> | null;
  /** Queued in out-of-order mode: sent in the order that mode chose, not its resource's. */
  heldOutOfOrder: boolean;
  /** When the delivery was queued, on its account's clock. */
  createdAt: number;
  /** Out of the log while its attempt was in flight: when that attempt's retry falls due. */
  detachedRetryAt?: number;
  /** The store gave this process the attempt under way (a claim): its outcome is to be written. */
  claimed?: boolean;
  /**
   * The store's delivery moved past this copy (another copy, or process, made the attempt): this copy
   * waits to be read again, and the resource's later events wait behind it.
   */
  stale?: boolean;
}

/** What a durable store asks of the outbox: to hear of every change, and to send only what is saved. */
export interface OutboxHooks {
  /**
   * A delivery was queued, attempted or redelivered. `claimedAttempt` when this is the outcome of an
   * attempt this process claimed (see `claim`); false for any other change, such as another copy of
   * the same delivery (the account read again meanwhile) waiting for its retry.
   */
  changed(deliveryId: string, claimedAttempt?: boolean): void;
  /**
   * Resolves once the delivery (and the status change behind it) is committed: an event is sent only
   * then. Rejects when the save failed: the event is not sent, and the engine goes back to what the
   * store holds (which sends every saved delivery still pending, under its own `webhook-id`).
   */
  saved(deliveryId: string): Promise<void>;
  /**
   * Claims one attempt of a delivery for this process, before it is sent (a store several processes
   * serve: one process sends each attempt). `retryAt`, on the account's clock, when another process
   * holds it (its claim runs out then); null when the store's copy moved on (another process made the
   * attempt: this copy is read again when next used). Absent: every attempt is this process's.
   */
  claim?(
    deliveryId: string,
    cycleAttempts: number,
  ): Promise<{ claimed: true } | { claimed: false; retryAt: number | null }>;
}

/** What a new event carries: its resource, status, destination and body. */
export interface WebhookEvent {
  accountId: string;
  resource: "payin" | "payout";
  resourceId: string;
  status: string;
  url: string;
  body: unknown;
  /** The account's signing secrets, read at each attempt (a rotation applies to retries too). */
  secrets: () => readonly string[];
  duplicate: boolean;
  outOfOrder: boolean;
  /** The trace of the request that created the resource: each attempt sends a `traceparent` in it. */
  trace?: TraceContext | null;
}

const MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;
// Out-of-order mode holds events this long (real time), then sends the batch newest first.
const OUT_OF_ORDER_HOLD_MS = 50;

/**
 * The webhook outbox: every status change becomes a delivery that is retried on the mock clock until
 * the receiver answers 2xx, so a receiver that is down never loses an event (docs/decisions/webhooks.md).
 */
export class Outbox {
  readonly #deliveries: DeliveryState[] = [];
  readonly #byId = new Map<string, DeliveryState>();
  /** Deliveries that left the log with an attempt in flight, until the store wrote its outcome. */
  readonly #detached = new Map<string, DeliveryState>();
  // Each account's deliveries in id order: a page of the log is found by binary search, not a scan.
  readonly #byAccount = new Map<string, DeliveryState[]>();
  /** Deliveries by the payin or payout they report: what the retention limit drops with a record. */
  readonly #byResource = new Map<string, DeliveryState[]>();
  readonly #signers = new Map<string, Webhook>();
  #held: DeliveryState[] = [];
  /** Deliveries started and not finished, per account. */
  readonly #sending = new Map<string, number>();
  #holdTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** Set by a durable store; null in memory mode. */
  hooks: OutboxHooks | null = null;
  /** The `paykit-mock listen` listeners: an account's attempts go to its listener while one is attached. */
  listeners: Listeners | null = null;

  constructor(
    /** Each account's clock and schedule: its deliveries' times and retries run on it. */
    private readonly timeOf: (accountId: string) => AccountTime,
    private readonly ids: UlidFactory,
    private readonly fetcher: () => WebhookFetch,
    /** How long an attempt waits for the receiver (and a store's claim on it lasts a little longer). */
    readonly timeoutMs: number = WEBHOOK_TIMEOUT_MS,
    private readonly slots: DeliverySlots = new DeliverySlots(),
  ) {}

  /** Queues an event and starts its first attempt (at once, or after the hold in out-of-order mode). */
  enqueue(event: WebhookEvent): WebhookDelivery {
    const createdAt = this.timeOf(event.accountId).now();
    const ulid = this.ids.next(createdAt);
    const state: DeliveryState = {
      entry: {
        id: `wh_${ulid}`,
        webhookId: `msg_${ulid}`,
        accountId: event.accountId,
        resource: event.resource,
        resourceId: event.resourceId,
        status: event.status,
        url: event.url,
        state: "pending",
        attempts: [],
      },
      payload: webhookPayload(event.body),
      secrets: event.secrets,
      duplicate: event.duplicate,
      trace: event.trace ?? null,
      cycleAttempts: 0,
      retry: null,
      inFlight: null,
      heldOutOfOrder: event.outOfOrder,
      createdAt,
    };
    this.#deliveries.push(state);
    this.#byId.set(state.entry.id, state);
    this.#index(state);
    this.#indexResource(state);
    this.hooks?.changed(state.entry.id);
    if (event.outOfOrder) this.#hold(state);
    else this.#start(state);
    return state.entry;
  }

  /** The delivery log, oldest first, optionally for one account. */
  list(accountId?: string): WebhookDelivery[] {
    const out: WebhookDelivery[] = [];
    for (const d of this.#deliveries)
      if (accountId === undefined || d.entry.accountId === accountId) out.push(copy(d.entry));
    return out;
  }

  /** One page of the delivery log, oldest first (id order), of one account or of all. */
  page(
    accountId: string | undefined,
    place: PagePlace,
    filter: DeliveryFilter = {},
  ): ListPage<WebhookDelivery> {
    let lists: (readonly DeliveryState[])[];
    if (filter.resourceId !== undefined) {
      // one resource's deliveries: its own short list, in id order (an account clock set back may
      // have queued a later event under an earlier id)
      const own = (this.#byResource.get(filter.resourceId) ?? []).filter(
        (d) => accountId === undefined || d.entry.accountId === accountId,
      );
      lists = [own.sort((a, b) => (a.entry.id < b.entry.id ? -1 : 1))];
    } else
      lists =
        accountId === undefined ? [...this.#byAccount.values()] : [this.#byAccount.get(accountId) ?? []];
    const { status, state } = filter;
    if (status !== undefined || state !== undefined)
      lists = lists.map((list) =>
        list.filter(
          (d) =>
            (status === undefined || d.entry.status === status) &&
            (state === undefined || d.entry.state === state),
        ),
      );
    const page = pageOf("webhooks", lists, (d) => d.entry.id, filter.order ?? "oldest", place);
    return { data: page.data.map((d) => copy(d.entry)), nextCursor: page.nextCursor };
  }

  // The deliveries of one account (its own list: a flush of one account never walks the others'), or all.
  #of(accountId: string | undefined): readonly DeliveryState[] {
    return accountId === undefined ? this.#deliveries : (this.#byAccount.get(accountId) ?? []);
  }

  // Adds a delivery to its account's id-ordered list: an append unless that account's clock was set back.
  #index(d: DeliveryState): void {
    let list = this.#byAccount.get(d.entry.accountId);
    if (list === undefined) {
      list = [];
      this.#byAccount.set(d.entry.accountId, list);
    }
    let at = list.length;
    while (at > 0 && list[at - 1]!.entry.id > d.entry.id) at--;
    list.splice(at, 0, d);
  }

  /**
   * Runs every retry that is due on the mock clock (and releases held out-of-order events) now, and
   * resolves once every attempt has settled (docs/decisions/mock-server.md). A retry whose time has
   * not come is left for later: move the clock first (`POST /_mock/clock`), then flush. With `accountId`,
   * only that account's deliveries, and only their attempts are awaited (another account's hanging
   * receiver does not hold up a test run on a shared sandbox).
   */
  async flush(accountId?: string): Promise<WebhookDelivery[]> {
    const mine = (d: DeliveryState) => accountId === undefined || d.entry.accountId === accountId;
    await this.idle(accountId);
    const started = new Set<DeliveryState>(this.#held.filter(mine));
    this.#releaseHeld(accountId);
    for (const d of this.#of(accountId)) {
      if (!mine(d) || d.entry.state !== "pending" || d.inFlight !== null || d.retry === null) continue;
      if (d.retry.at > this.timeOf(d.entry.accountId).now()) continue;
      d.retry.cancelled = true;
      d.retry = null;
      this.#start(d);
      started.add(d);
    }
    await this.idle(accountId);
    return [...started].map((d) => copy(d.entry));
  }

  /**
   * Sends an account's pending deliveries now, oldest first, whenever their retry was due (a listener
   * attached: what waited for the laptop goes to it at once). Attempts in flight are left to finish.
   */
  sendPendingNow(accountId: string): void {
    this.#releaseHeld(accountId);
    for (const d of this.#of(accountId)) {
      if (d.entry.state !== "pending" || d.inFlight !== null || d.retry === null) continue;
      // an event the listener does not take keeps its retry at its URL
      if (!this.#listened(d)) continue;
      d.retry.cancelled = true;
      d.retry = null;
      this.#start(d);
    }
  }

  /** The account a delivery belongs to, or `null` when there is no such delivery. */
  accountOf(id: string): string | null {
    return (this.#byId.get(id) ?? this.#detached.get(id))?.entry.accountId ?? null;
  }

  /**
   * Lets go of a delivery that left the log while its attempt was in flight, once the store wrote
   * that attempt's outcome (see `#drop`).
   */
  letGo(id: string): void {
    this.#detached.delete(id);
  }

  /** Whether the log holds a delivery (one that left it with an attempt in flight does not count). */
  inLog(id: string): boolean {
    return this.#byId.has(id);
  }

  /** Whether a delivery's attempt in flight belongs to a copy that left the log (see {@link letGo}). */
  isDetached(id: string): boolean {
    return this.#detached.has(id);
  }

  /** Sends a delivery again now, with a fresh cycle of retries; resolves after the attempt. */
  async redeliver(id: string): Promise<WebhookDelivery> {
    const d = this.#byId.get(id);
    if (!d) throw new ApiError("NOT_FOUND", `webhook delivery ${id} does not exist`);
    if (d.inFlight) await d.inFlight;
    if (d.retry) d.retry.cancelled = true;
    d.retry = null;
    d.cycleAttempts = 0;
    d.entry.state = "pending";
    this.hooks?.changed(d.entry.id);
    this.#start(d);
    await d.inFlight;
    return copy(d.entry);
  }

  /** Resolves once no attempt (of the account, or of any) is in flight. */
  async idle(accountId?: string): Promise<void> {
    for (;;) {
      const pending = this.#of(accountId).flatMap((d) =>
        d.inFlight && (accountId === undefined || d.entry.accountId === accountId) ? [d.inFlight] : [],
      );
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  /** A delivery as a durable store saves it; undefined when it is gone (its account was reset). */
  saved(id: string): SavedDelivery | undefined {
    // an attempt of a copy that left the log, until its outcome is written: newer than the copy read again
    const d = this.#detached.get(id) ?? this.#byId.get(id);
    if (d === undefined) return undefined;
    return {
      ...copy(d.entry),
      payload: d.payload,
      duplicate: d.duplicate,
      trace: d.trace,
      cycleAttempts: d.cycleAttempts,
      retryAt: d.retry === null || d.retry.cancelled ? (d.detachedRetryAt ?? null) : d.retry.at,
      createdAt: d.createdAt,
    };
  }

  /**
   * Takes back deliveries read from a durable store: a pending one whose retry is due later waits for
   * it; one that was in flight, or held, when the process stopped is sent again now (same
   * `webhook-id`, so a receiver that already had it sees a retry, not a new event).
   */
  restore(saved: readonly SavedDelivery[], secretsOf: (accountId: string) => () => readonly string[]): void {
    for (const s of saved) {
      const { payload, duplicate, trace, cycleAttempts, retryAt, createdAt, ...entry } = s;
      const d: DeliveryState = {
        entry: { ...entry, attempts: entry.attempts.map((a) => ({ ...a })) },
        payload,
        secrets: secretsOf(entry.accountId),
        duplicate,
        trace,
        cycleAttempts,
        retry: null,
        inFlight: null,
        heldOutOfOrder: false,
        createdAt,
      };
      this.#deliveries.push(d);
      this.#byId.set(d.entry.id, d);
      this.#index(d);
      this.#indexResource(d);
      if (d.entry.state !== "pending") continue;
      if (retryAt === null) this.#start(d);
      else this.#scheduleRetry(d, retryAt);
    }
  }

  /** Forgets every delivery (reset). */
  clear(): void {
    for (const d of this.#deliveries) if (d.retry) d.retry.cancelled = true;
    this.#deliveries.length = 0;
    this.#byId.clear();
    this.#byAccount.clear();
    this.#byResource.clear();
    this.#held = [];
    if (this.#holdTimer !== undefined) clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
  }

  /** Forgets one account's deliveries (its reset): no retry of them runs, the log no longer lists them. */
  forget(accountId: string): void {
    this.#drop((d) => d.entry.accountId === accountId);
  }

  /** Forgets several accounts' deliveries in one pass over the log (accounts a store took out of memory). */
  forgetAccounts(accountIds: ReadonlySet<string>): void {
    this.#drop((d) => accountIds.has(d.entry.accountId));
  }

  /** How many deliveries of an account the log holds. */
  countOf(accountId: string): number {
    return this.#byAccount.get(accountId)?.length ?? 0;
  }

  /**
   * Whether an account has a delivery on its way (being sent, or about to be) or held for
   * out-of-order mode: such an account stays in memory until it is done.
   */
  busy(accountId: string): boolean {
    return (this.#sending.get(accountId) ?? 0) > 0 || this.#held.some((d) => d.entry.accountId === accountId);
  }

  /**
   * Forgets the deliveries of records dropped by the retention limit (`maxRecords`), and tells a
   * durable store, which deletes them too. The dropped records are the oldest, so their deliveries
   * are near the front of the log.
   */
  forgetResources(resourceIds: Iterable<string>): void {
    for (const resourceId of resourceIds) {
      const states = this.#byResource.get(resourceId);
      if (states === undefined) continue;
      this.#byResource.delete(resourceId);
      for (const d of states) {
        // near the front of both lists: a native search and one move each, not a pass over the log
        removeFrom(this.#deliveries, d);
        const own = this.#byAccount.get(d.entry.accountId);
        if (own !== undefined) removeFrom(own, d);
        if (own?.length === 0) this.#byAccount.delete(d.entry.accountId);
        if (d.retry) d.retry.cancelled = true;
        this.#byId.delete(d.entry.id);
        this.hooks?.changed(d.entry.id);
      }
      if (this.#held.length > 0) this.#held = this.#held.filter((d) => d.entry.resourceId !== resourceId);
    }
  }

  #indexResource(d: DeliveryState): void {
    const states = this.#byResource.get(d.entry.resourceId);
    if (states === undefined) this.#byResource.set(d.entry.resourceId, [d]);
    else states.push(d);
  }

  /**
   * Removes the deliveries `gone` picks, compacting the log in place: spreading a kept list into
   * `splice` passes one argument per delivery, which throws RangeError past ~120k of them.
   */
  #drop(gone: (d: DeliveryState) => boolean): void {
    const list = this.#deliveries;
    const touched = new Set<string>();
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const d = list[i]!;
      if (!gone(d)) {
        list[kept++] = d;
        continue;
      }
      if (d.retry) d.retry.cancelled = true;
      // A store several processes serve drops an account another process wrote, to read it again; an
      // attempt in flight (its claim held by this process) still has its outcome to write: the store
      // reads it from here, then lets it go.
      if (d.claimed === true) this.#detached.set(d.entry.id, d);
      this.#byId.delete(d.entry.id);
      this.#byResource.delete(d.entry.resourceId);
      touched.add(d.entry.accountId);
    }
    list.length = kept;
    for (const accountId of touched) {
      const own = this.#byAccount.get(accountId)?.filter((d) => !gone(d)) ?? [];
      if (own.length === 0) this.#byAccount.delete(accountId);
      else this.#byAccount.set(accountId, own);
    }
    this.#held = this.#held.filter((d) => !gone(d));
  }

  /**
   * Stops scheduling (engine closed); attempts in flight finish without retries. The deliveries stay
   * readable: a durable store's last save reads them, and a delivery it no longer found would be
   * deleted from the store (its pending ones are sent again by the next process).
   */
  close(): void {
    this.#closed = true;
    for (const d of this.#deliveries) if (d.retry) d.retry.cancelled = true;
    this.#held = [];
    if (this.#holdTimer !== undefined) clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
  }

  #hold(d: DeliveryState): void {
    this.#held.push(d);
    if (this.#holdTimer === undefined) {
      this.#holdTimer = setTimeout(() => this.#releaseHeld(), OUT_OF_ORDER_HOLD_MS);
      unrefTimer(this.#holdTimer);
    }
  }

  /** Sends the held out-of-order events (of one account, or all), newest first. */
  #releaseHeld(accountId?: string): void {
    const released = this.#held.filter((d) => accountId === undefined || d.entry.accountId === accountId);
    this.#held = this.#held.filter((d) => !released.includes(d));
    if (this.#held.length === 0 && this.#holdTimer !== undefined) {
      clearTimeout(this.#holdTimer);
      this.#holdTimer = undefined;
    }
    for (const d of released.reverse()) this.#start(d);
  }

  #start(d: DeliveryState): void {
    if (this.#closed) return;
    d.stale = false;
    const run = async (): Promise<void> => {
      // With a durable store an event leaves only once it is committed: neither a crash nor a failed
      // save sends a status change that the store does not hold
      // (docs/decisions/shared-sandbox-webhooks-after-commit.md). After a failed save the state is read
      // back, and the delivery with it if it was saved: that copy sends it, this one never does.
      if (this.hooks !== null) {
        const committed = await this.hooks.saved(d.entry.id).then(
          () => true,
          () => false,
        );
        if (!committed || this.#closed || this.#byId.get(d.entry.id) !== d) return;
      }
      if (!d.heldOutOfOrder && this.#listened(d)) {
        if (!(await this.#behindOlder(d))) return;
      }
      const delivered = await this.#attempt(d);
      if (delivered && d.duplicate) await this.#attempt(d);
    };
    const accountId = d.entry.accountId;
    this.#sending.set(accountId, (this.#sending.get(accountId) ?? 0) + 1);
    d.inFlight = run().finally(() => {
      d.inFlight = null;
      const left = (this.#sending.get(accountId) ?? 1) - 1;
      if (left > 0) this.#sending.set(accountId, left);
      else this.#sending.delete(accountId);
    });
  }

  /**
   * Keeps a resource's events in order on their way to a listener (docs/decisions/mock-listen.md): the older
   * deliveries of the same resource that are still pending go first, now, and
   * this one waits for them. Answers false when one of them did not get through: this one then waits
   * behind it, unattempted, until that one's retry.
   */
  async #behindOlder(d: DeliveryState): Promise<boolean> {
    // the older ones on their way (in flight) or waiting for a retry; a held out-of-order event keeps
    // the order its test mode chose
    // older by queueing order, not by id: an id follows the account's clock, which a test may set back;
    // and only the events the listener takes (the others go to their URL, on their own schedule)
    const events = this.#byResource.get(d.entry.resourceId) ?? [];
    const older = events
      .slice(0, Math.max(0, events.indexOf(d)))
      .filter(
        (e) =>
          e.entry.state === "pending" &&
          !e.heldOutOfOrder &&
          (e.inFlight !== null || e.retry !== null || e.stale === true) &&
          this.#byId.get(e.entry.id) === e &&
          this.#listened(e),
      );
    if (older.length === 0) return true;
    for (const e of older) {
      // a stale copy's attempt is not made again here: the copy read again in its place makes it
      if (e.inFlight !== null || e.stale === true) continue;
      if (e.retry) e.retry.cancelled = true;
      e.retry = null;
      this.#start(e);
    }
    // until none of them is in flight: one that ended may have been started again meanwhile (a
    // flush, a listener attaching, its retry falling due), and this one waits for that attempt too
    for (;;) {
      const running = older.filter((e) => e.inFlight !== null && this.#byId.get(e.entry.id) === e);
      if (running.length === 0) break;
      await Promise.all(running.map((e) => e.inFlight));
    }
    // still waiting for a retry (the attempt did not get through), or for this copy to be read again
    const stuck = older.filter(
      (e) =>
        e.entry.state === "pending" &&
        (e.retry !== null || e.stale === true) &&
        this.#byId.get(e.entry.id) === e,
    );
    if (stuck.length === 0) return !this.#closed && this.#byId.get(d.entry.id) === d;
    if (!this.#closed && this.#byId.get(d.entry.id) === d) {
      const soon = this.timeOf(d.entry.accountId).now() + 1_000;
      this.#scheduleRetry(d, Math.max(...stuck.map((e) => e.retry?.at ?? soon)));
      this.hooks?.changed(d.entry.id);
    }
    return false;
  }

  /** Whether the account's listener takes this delivery's event now. */
  #listened(d: DeliveryState): boolean {
    return this.listeners?.takes(d.entry.accountId, eventName(d.entry.resource, d.entry.status)) ?? false;
  }

  async #attempt(d: DeliveryState): Promise<boolean> {
    const at = new Date(this.timeOf(d.entry.accountId).now()).toISOString();
    const wallSeconds = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "paykit-mock-webhooks/0.1",
      [WEBHOOK_HEADERS.id]: d.entry.webhookId,
      [WEBHOOK_HEADERS.timestamp]: String(wallSeconds),
    };
    if (d.trace) headers.traceparent = childTraceparent(d.trace);
    const secrets = d.secrets();
    if (secrets.length > 0) {
      // During a rotation's grace both secrets sign: Standard Webhooks separates signatures by a space.
      headers[WEBHOOK_HEADERS.signature] = secrets
        .map((secret) =>
          this.#signer(secret).sign(d.entry.webhookId, new Date(wallSeconds * 1000), d.payload),
        )
        .join(" ");
    }
    let statusCode: number | null = null;
    let error: string | null = null;
    // At most 10 deliveries per receiver and 100 overall are in flight; the rest wait for a slot, so a
    // receiver that never answers holds a bounded number of sockets. The timeout starts with the send.
    const release = await this.slots.acquire(d.entry.url);
    try {
      if (this.hooks?.claim !== undefined) {
        const claim = await this.hooks.claim(d.entry.id, d.cycleAttempts).catch(() => null);
        d.claimed = claim?.claimed === true;
        if (claim === null || !claim.claimed) {
          // another process sends this attempt; if it is gone when its claim runs out, this one does
          const retryAt = claim === null ? this.timeOf(d.entry.accountId).now() + 1_000 : claim.retryAt;
          if (retryAt === null) d.stale = true;
          else if (!this.#closed && this.#byId.get(d.entry.id) === d) this.#scheduleRetry(d, retryAt);
          return false;
        }
        // the copy left the log while its claim was on its way (see `#drop`): the attempt is still
        // this one's to make, and its outcome the store's to read from here
        if (this.#byId.get(d.entry.id) !== d) this.#detached.set(d.entry.id, d);
      }
      const event = eventName(d.entry.resource, d.entry.status);
      if (this.listeners?.takes(d.entry.accountId, event)) {
        // a `paykit-mock listen` takes the account's deliveries: its receiver's answer is this attempt's
        const outcome = await this.listeners.offer(
          d.entry.accountId,
          { ...listenedEntry(d.entry), event, headers, body: d.payload },
          this.timeoutMs,
        );
        statusCode = outcome.statusCode;
        error = outcome.error;
      } else {
        const response = await this.fetcher()(d.entry.url, {
          method: "POST",
          headers,
          body: d.payload,
          redirect: "manual",
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        statusCode = response.status;
        await drainBounded(response);
        if (statusCode === 0) error = "the receiver answered a redirect, which is not followed";
      }
    } catch (cause) {
      error = describeFailure(cause, this.timeoutMs);
    } finally {
      release();
    }
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    d.entry.attempts.push({ at, statusCode: statusCode === 0 ? null : statusCode, error });
    d.cycleAttempts += 1;
    this.hooks?.changed(d.entry.id, d.claimed === true);
    d.claimed = false;
    if (ok) {
      d.entry.state = "delivered";
    } else if (d.entry.state !== "delivered") {
      if (d.cycleAttempts >= MAX_ATTEMPTS) {
        d.entry.state = "failed";
      } else if (!this.#closed && this.#byId.get(d.entry.id) === d) {
        const delay = WEBHOOK_RETRY_DELAYS_MS[d.cycleAttempts - 1] ?? 0;
        this.#scheduleRetry(d, this.timeOf(d.entry.accountId).now() + delay);
      } else if (this.#detached.get(d.entry.id) === d) {
        d.detachedRetryAt = Date.now() + (WEBHOOK_RETRY_DELAYS_MS[d.cycleAttempts - 1] ?? 0);
      }
    }
    return ok;
  }

  #scheduleRetry(d: DeliveryState, at: number): void {
    d.retry = this.timeOf(d.entry.accountId).scheduler.schedule(at, () => {
      d.retry = null;
      if (d.inFlight === null) this.#start(d);
    });
  }

  #signer(secret: string): Webhook {
    let signer = this.#signers.get(secret);
    if (!signer) {
      signer = new Webhook(secret);
      this.#signers.set(secret, signer);
    }
    return signer;
  }
}

/** Reads at most {@link MAX_RECEIVER_BODY_BYTES} of an answer, then cancels the rest of the stream. */
export async function drainBounded(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= MAX_RECEIVER_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // A receiver that cuts its answer short still answered with its status.
  } finally {
    reader.releaseLock();
  }
}

/** Why a request to a receiver got no answer, in a line: a timeout, or the cause's code (`ECONNREFUSED`). */
export function describeFailure(cause: unknown, timeoutMs: number): string {
  if (cause instanceof Error) {
    if (cause.name === "TimeoutError" || cause.name === "AbortError")
      return `no answer within ${timeoutMs} ms`;
    const code = (cause.cause as { code?: unknown } | undefined)?.code;
    return typeof code === "string" ? `${cause.message} (${code})` : cause.message;
  }
  return String(cause);
}

/** What a listener is told of the delivery an attempt belongs to. */
function listenedEntry(entry: WebhookDelivery) {
  const { id: deliveryId, webhookId, resource, resourceId, status, url } = entry;
  return { deliveryId, webhookId, resource, resourceId, status, url };
}

function copy(entry: WebhookDelivery): WebhookDelivery {
  return { ...entry, attempts: entry.attempts.map((a) => ({ ...a })) };
}

/** Removes one item from a list, searching from the front. */
function removeFrom<T>(list: T[], item: T): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
}
