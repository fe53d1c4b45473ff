// The polls of `paykit-mock listen` that this process answers (domain/listeners.ts has the rules). The
// store says which listener holds an account, and through which process (a lease each poll renews): only
// that process makes the account's attempts, and hands them to its poll. A listener that another one
// took over is told so on its next poll, whichever process it reaches.
import {
  ACK_GRACE_MS,
  eventMatches,
  LISTENER_LEASE_MS,
  type ListenAttempt,
  type ListenOutcome,
  type ListenParams,
  type ListenResult,
  MAX_ATTEMPTS_PER_POLL,
  MAX_LISTEN_WAIT_MS,
} from "../domain/listeners.js";
import type { SandboxStore } from "../domain/repository.js";

/** How often a poll that waits asks the store whether its listener still holds the account (ms). */
const HOLDER_CHECK_MS = 500;

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
  /** Real ms of its last poll's start or end here; a poll under way keeps it attached. */
  seenAt: number;
  polling: number;
  offers: Offer[];
  /** Wakes the poll under way (an attempt arrived, or it was taken over). */
  wake: (() => void) | null;
}

/** The listeners whose polls reach this process. */
export class ListenerHub {
  readonly #byAccount = new Map<string, Listener>();
  #seq = 0;
  #closed = false;

  /**
   * `onAttach` is told when a listener attaches to an account here (a first poll, or a takeover): the
   * account's pending deliveries are then sent to it at once rather than at their next retry.
   */
  constructor(
    private readonly store: SandboxStore,
    /** This process's name in the store's leases. */
    private readonly owner: string,
    private readonly onAttach: (
      accountId: string,
      attached: boolean,
      events: readonly string[] | null,
    ) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a listener polling here takes the account's attempts of `event` now. */
  takes(accountId: string, event: string): boolean {
    const listener = this.#live(accountId);
    return listener !== null && eventMatches(listener.events, event);
  }

  /** The events the account's listener here takes (null: all). */
  eventsOf(accountId: string): readonly string[] | null {
    return this.#live(accountId)?.events ?? null;
  }

  /** Whether a listener polls here for the account now. */
  holds(accountId: string): boolean {
    return this.#live(accountId) !== null;
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
    if (params.detach) {
      await this.store.dropListener(accountId, params.listener);
      if (current?.id === params.listener) this.#detach(accountId, "the listener stopped before answering");
      return { attempts: [], takenOver: false };
    }
    const asked = params.events === undefined ? undefined : params.events.length === 0 ? null : params.events;
    const events = asked !== undefined ? asked : current?.id === params.listener ? current.events : null;
    const held = await this.store.holdListener(
      accountId,
      this.owner,
      params.listener,
      LISTENER_LEASE_MS,
      events,
    );
    if (held.retired) {
      if (current?.id === params.listener) this.#detach(accountId, "another listener took the account over");
      return { attempts: [], takenOver: true };
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
        previous.offers = [];
        previous.wake?.();
      }
    } else if (params.events !== undefined) {
      listener.events = params.events.length === 0 ? null : params.events;
    }
    const self = listener;
    const attached = self.polling === 0 && (lapsed || listener !== current || held.previous !== null);
    self.polling += 1;
    self.seenAt = this.now();
    // attached (or back after its lease lapsed): what waits for it goes at once; else what is due now
    this.onAttach(accountId, attached, self.events);
    let takenOver = false;
    try {
      const waitMs = Math.min(params.waitMs ?? MAX_LISTEN_WAIT_MS, MAX_LISTEN_WAIT_MS);
      const deadline = this.now() + waitMs;
      while (self.offers.length === 0 && !this.#closed && this.#byAccount.get(accountId) === self) {
        const left = deadline - this.now();
        if (left <= 0) break;
        await this.#sleep(self, Math.min(left, HOLDER_CHECK_MS));
        if (self.offers.length > 0) {
          // attempts come in bursts (a flush, an attach): hand out the whole burst in one answer
          await new Promise((resolve) => setImmediate(resolve));
          break;
        }
        // another listener may have taken the account over through another process
        const holder = await this.store.listenerOf(accountId);
        if (holder !== null && holder.listener !== self.id) {
          takenOver = true;
          break;
        }
      }
    } finally {
      self.polling -= 1;
      self.seenAt = this.now();
    }
    if (takenOver || this.#byAccount.get(accountId) !== self) {
      if (this.#byAccount.get(accountId) === self)
        this.#detach(accountId, "another listener took the account over");
      return { attempts: [], takenOver: true };
    }
    // the lease runs from the poll's end: the listener polls again at once
    await this.store.holdListener(accountId, this.owner, self.id, LISTENER_LEASE_MS, self.events);
    const handed = self.offers.slice(0, MAX_ATTEMPTS_PER_POLL);
    for (const offer of handed) {
      if (offer.handed) continue;
      offer.handed = true;
      const ms = offer.timeoutMs;
      this.#expireAfter(offer, accountId, ms + ACK_GRACE_MS, `no answer from the listener within ${ms} ms`);
    }
    return { attempts: handed.map((o) => o.attempt), takenOver: false };
  }

  #sleep(self: Listener, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      function done() {
        clearTimeout(timer);
        if (self.wake === done) self.wake = null;
        resolve();
      }
      self.wake = done;
    });
  }

  /** Detaches an account's listener here (its account was removed): its attempts fail. */
  forget(accountId: string): void {
    this.#detach(accountId, "the account was removed");
  }

  #detach(accountId: string, error: string): void {
    const listener = this.#byAccount.get(accountId);
    if (listener === undefined) return;
    this.#byAccount.delete(accountId);
    for (const offer of listener.offers.splice(0)) offer.settle({ statusCode: null, error });
    listener.wake?.();
  }

  /** Ends every poll and attempt (the engine closes). */
  close(): void {
    this.#closed = true;
    for (const accountId of [...this.#byAccount.keys()])
      this.#detach(accountId, "the sandbox stopped before the listener answered");
  }

  /** The account's listener while it is attached here: polling now, or polled within the lease. */
  #live(accountId: string): Listener | null {
    const listener = this.#byAccount.get(accountId);
    if (listener === undefined) return null;
    if (listener.polling > 0 || this.now() - listener.seenAt < LISTENER_LEASE_MS) return listener;
    return null;
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
