// The listeners of `paykit-mock listen` (docs/testing.md ("Your laptop and a team sandbox")): a
// developer's process that takes an account's webhook deliveries and posts them to their laptop. It
// polls (`POST /_mock/accounts/{id}/listen`); while one is attached, each attempt of the account's
// deliveries is handed to it instead of being sent to the delivery's URL, and its answer (the local
// receiver's status, or what went wrong) is recorded as that attempt. One listener per account at a
// time: a new one takes over and the older one is told. See docs/decisions/mock-listen.md.

/** A delivery's attempt handed to a listener: the very request the sandbox would send. */
export interface ListenAttempt {
  /** This attempt's id, acknowledged with the local answer. */
  attemptId: string;
  /** The delivery (`wh_…`) in the sandbox's delivery log. */
  deliveryId: string;
  /** The `webhook-id` header: the same on every attempt of the event. */
  webhookId: string;
  /** `payin.approved`, `payout.completed`, … */
  event: string;
  resource: "payin" | "payout";
  resourceId: string;
  /** The resource status the event reports. */
  status: string;
  /** Where the sandbox would have sent it (the resource's `webhookUrl`). */
  url: string;
  /** The headers to send, signature and `webhook-id` included. */
  headers: Record<string, string>;
  /** The JSON body, byte for byte as signed. */
  body: string;
}

/** A listener's answer for one attempt: the local receiver's status, or why none came. */
export interface ListenAck {
  attemptId: string;
  /** The local receiver's HTTP status; null when it gave none. */
  statusCode: number | null;
  /** What went wrong when no status came (connection refused, timeout…); null otherwise. */
  error: string | null;
}

/** One poll of a listener. */
export interface ListenParams {
  /** The listener's own id, the same for as long as it runs (a restarted listener takes a new one). */
  listener: string;
  /** The answers to the attempts it was handed. */
  acks?: ListenAck[] | undefined;
  /** Only these events (`payin.approved`, `payout.*`); the others go to their URL as without a listener. */
  events?: string[] | undefined;
  /** How long the poll may wait for an attempt, in ms. @default 25000 */
  waitMs?: number | undefined;
  /**
   * The listener stops (after its acks are taken): the account's deliveries go to their URL again at
   * once, and attempts it was handed and did not answer fail now rather than at their timeout.
   */
  detach?: boolean | undefined;
}

/** What a poll answers. */
export interface ListenResult {
  /** The attempts to send, oldest first: new ones, and any handed out before and not answered yet. */
  attempts: ListenAttempt[];
  /** Another listener took the account's deliveries over: this one gets none any more. */
  takenOver: boolean;
}

/** What became of an attempt handed to a listener. */
export interface ListenOutcome {
  statusCode: number | null;
  error: string | null;
}

/** The longest a poll waits for an attempt, in ms (a poll asking longer is cut to it). */
export const MAX_LISTEN_WAIT_MS = 25_000;
/** A listener that has not polled for this long (ms) is gone: deliveries go to their URL again. */
export const LISTENER_LEASE_MS = 30_000;
/**
 * How much longer than the receiver's timeout a listener has to acknowledge an attempt it was handed, in
 * ms: the listener gives the receiver the timeout itself, and its answer then needs a poll to get here.
 */
const ACK_GRACE_MS = 5_000;
/** Most attempts one poll hands out. */
const MAX_ATTEMPTS_PER_POLL = 100;
/** Ids of listeners that were taken over, kept per account so that they are told and not taken back. */
const RETIRED_KEPT = 16;

/** An event a listener may ask for: a resource and a status (`payin.approved`), or all of one (`payout.*`). */
export const LISTEN_EVENT = /^(payin|payout)\.([a-z_]{1,40}|\*)$/;

/** A webhook event's name: its resource and status, `payin.approved`. */
export function eventName(resource: "payin" | "payout", status: string): string {
  return `${resource}.${status.toLowerCase()}`;
}

/** Whether `event` is one of `patterns` (`payin.approved`, or `payin.*` for every payin event). */
export function eventMatches(patterns: readonly string[] | null, event: string): boolean {
  if (patterns === null) return true;
  return patterns.some((p) => p === event || (p.endsWith(".*") && event.startsWith(p.slice(0, -1))));
}

interface Offer {
  attempt: ListenAttempt;
  /** Whether a poll handed it out already (its answer's time runs from then). */
  handed: boolean;
  /** How long the listener has to answer once it was handed out, in ms. */
  timeoutMs: number;
  settle(outcome: ListenOutcome): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

interface Listener {
  id: string;
  events: readonly string[] | null;
  /** Real ms of its last poll's start or end; a poll under way keeps it attached. */
  seenAt: number;
  polling: number;
  offers: Offer[];
  /** Wakes the poll under way (an attempt arrived, or it was taken over). */
  wake: (() => void) | null;
}

/** Told when an account's listener polls and when it leaves: a store several processes serve records it. */
export interface ListenObserver {
  /** A poll of the account's listener began (it attached, or it is still there). */
  polled(accountId: string): void;
  /** The account has no listener here any more. */
  left(accountId: string): void;
}

/** The listeners attached to the accounts of one engine. */
export class Listeners {
  /** Told of polls and departures (a shared store). @default null */
  observer: ListenObserver | null = null;
  readonly #byAccount = new Map<string, Listener>();
  readonly #retired = new Map<string, string[]>();
  #seq = 0;
  #closed = false;

  /**
   * `onAttach` is told when a listener attaches to an account (a first poll, or a takeover): the
   * account's pending deliveries are then sent to it at once rather than at their next retry.
   */
  constructor(
    private readonly onAttach: (accountId: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a listener takes the account's attempts of `event` now. */
  takes(accountId: string, event: string): boolean {
    const listener = this.#live(accountId);
    return listener !== null && eventMatches(listener.events, event);
  }

  /** The account's listener, if one is attached now: the events it takes (null: every one). */
  attached(accountId: string): { events: readonly string[] | null } | null {
    const listener = this.#live(accountId);
    return listener === null ? null : { events: listener.events };
  }

  /**
   * Hands an attempt to the account's listener; resolves with the local answer, or with an error once
   * `timeoutMs` passed after it was handed out (or the listener went away before taking it).
   */
  offer(
    accountId: string,
    attempt: Omit<ListenAttempt, "attemptId">,
    timeoutMs: number,
  ): Promise<ListenOutcome> {
    const listener = this.#live(accountId);
    if (listener === null)
      return Promise.resolve({ statusCode: null, error: "the listener went away before taking it" });
    return new Promise<ListenOutcome>((resolve) => {
      const offer: Offer = {
        attempt: { attemptId: `la_${++this.#seq}_${attempt.webhookId}`, ...attempt },
        handed: false,
        timeoutMs,
        timer: undefined,
        settle: (outcome) => {
          if (offer.timer !== undefined) clearTimeout(offer.timer);
          resolve(outcome);
        },
      };
      // Not taken by a poll within the lease: the listener is gone (its process died mid-poll).
      this.#expireAfter(offer, accountId, LISTENER_LEASE_MS, "the listener went away before taking it");
      listener.offers.push(offer);
      listener.wake?.();
    });
  }

  /** One poll: takes the acks, attaches or takes over, and answers the attempts to send (waiting for one). */
  async poll(accountId: string, params: ListenParams): Promise<ListenResult> {
    if (this.#closed) return { attempts: [], takenOver: false };
    // a listener's answers count even when it was just taken over: they are what its receiver said
    const current = this.#byAccount.get(accountId);
    for (const ack of params.acks ?? []) {
      const at = current?.offers.findIndex((o) => o.attempt.attemptId === ack.attemptId) ?? -1;
      if (at < 0) continue; // answered already, or timed out: the attempt was recorded
      const [offer] = current?.offers.splice(at, 1) ?? [];
      offer?.settle({ statusCode: ack.statusCode, error: ack.error });
    }
    if (this.#retired.get(accountId)?.includes(params.listener)) return { attempts: [], takenOver: true };
    if (params.detach) {
      if (current?.id === params.listener) this.#detach(accountId, "the listener stopped before answering");
      return { attempts: [], takenOver: false };
    }
    let listener = this.#byAccount.get(accountId);
    // the same listener back after its lease lapsed (a laptop asleep): it attaches again
    const lapsed = listener?.id === params.listener && this.#live(accountId) === null;
    if (listener === undefined || listener.id !== params.listener) {
      const previous = listener;
      listener = {
        id: params.listener,
        events: params.events === undefined || params.events.length === 0 ? null : params.events,
        seenAt: this.now(),
        polling: 0,
        // attempts the previous listener was handed and did not answer are this one's to answer
        offers: previous?.offers ?? [],
        wake: null,
      };
      this.#byAccount.set(accountId, listener);
      if (previous !== undefined) {
        this.#retire(accountId, previous.id);
        previous.offers = [];
        previous.wake?.();
      }
      this.onAttach(accountId);
    } else if (params.events !== undefined) {
      listener.events = params.events.length === 0 ? null : params.events;
    }
    const self = listener;
    self.polling += 1;
    self.seenAt = this.now();
    this.observer?.polled(accountId);
    if (lapsed) this.onAttach(accountId);
    try {
      const waitMs = Math.min(params.waitMs ?? MAX_LISTEN_WAIT_MS, MAX_LISTEN_WAIT_MS);
      if (self.offers.length === 0 && waitMs > 0 && !this.#closed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, waitMs);
          timer.unref?.();
          function done() {
            clearTimeout(timer);
            if (self.wake === done) self.wake = null;
            resolve();
          }
          self.wake = done;
        });
        // attempts come in bursts (a flush, an attach): hand out the whole burst in one answer
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      self.polling -= 1;
      self.seenAt = this.now();
    }
    if (this.#byAccount.get(accountId) !== self)
      return { attempts: [], takenOver: this.#retired.get(accountId)?.includes(self.id) ?? false };
    const handed = self.offers.slice(0, MAX_ATTEMPTS_PER_POLL);
    for (const offer of handed) {
      if (offer.handed) continue;
      offer.handed = true;
      const ms = offer.timeoutMs;
      this.#expireAfter(offer, accountId, ms + ACK_GRACE_MS, `no answer from the listener within ${ms} ms`);
    }
    return { attempts: handed.map((o) => o.attempt), takenOver: false };
  }

  /** Detaches an account's listener (its account was removed): its attempts fail, it is told nothing. */
  forget(accountId: string): void {
    this.#detach(accountId, "the account was removed");
    this.#retired.delete(accountId);
  }

  #detach(accountId: string, error: string): void {
    const listener = this.#byAccount.get(accountId);
    if (listener === undefined) return;
    this.#byAccount.delete(accountId);
    this.observer?.left(accountId);
    for (const offer of listener.offers.splice(0)) offer.settle({ statusCode: null, error });
    listener.wake?.();
  }

  /** Ends every poll and attempt (the engine closes). */
  close(): void {
    this.#closed = true;
    for (const accountId of [...this.#byAccount.keys()])
      this.#detach(accountId, "the sandbox stopped before the listener answered");
    this.#retired.clear();
  }

  /** Whether a listener is attached to the account (its deliveries go to it, so it stays in memory). */
  holds(accountId: string): boolean {
    return this.#live(accountId) !== null;
  }

  /** The account's listener while it is attached: polling now, or polled within the lease. */
  #live(accountId: string): Listener | null {
    const listener = this.#byAccount.get(accountId);
    if (listener === undefined) return null;
    if (listener.polling > 0 || this.now() - listener.seenAt < LISTENER_LEASE_MS) return listener;
    return null;
  }

  #retire(accountId: string, listenerId: string): void {
    const retired = this.#retired.get(accountId) ?? [];
    retired.push(listenerId);
    if (retired.length > RETIRED_KEPT) retired.shift();
    this.#retired.set(accountId, retired);
  }

  /** Fails an offer still unanswered after `ms` (real time), and takes it off its account's list. */
  #expireAfter(offer: Offer, accountId: string, ms: number, error: string): void {
    if (offer.timer !== undefined) clearTimeout(offer.timer);
    offer.timer = setTimeout(() => {
      const offers = this.#byAccount.get(accountId)?.offers;
      const at = offers?.indexOf(offer) ?? -1;
      if (at >= 0) offers?.splice(at, 1);
      offer.settle({ statusCode: null, error });
    }, ms);
    offer.timer.unref?.();
  }
}
