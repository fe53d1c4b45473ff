/** How many webhook deliveries may be in flight at once. */
export interface DeliveryConcurrency {
  /** Per receiver origin (scheme, host and port). @default 10 */
  perOrigin: number;
  /** Over every receiver. @default 100 */
  total: number;
}

/** The default caps: a receiver that never answers holds at most 10 sockets, the mock at most 100. */
export const DEFAULT_DELIVERY_CONCURRENCY: DeliveryConcurrency = { perOrigin: 10, total: 100 };

interface Waiter {
  origin: string;
  grant: () => void;
}

/**
 * Slots for outgoing deliveries: at most `perOrigin` per receiver and `total` overall; the rest wait
 * in arrival order. A waiter whose origin is full does not block waiters for other origins.
 */
export class DeliverySlots {
  readonly #limits: DeliveryConcurrency;
  readonly #byOrigin = new Map<string, number>();
  readonly #queue: Waiter[] = [];
  #total = 0;

  constructor(limits: DeliveryConcurrency = DEFAULT_DELIVERY_CONCURRENCY) {
    this.#limits = limits;
  }

  /** Resolves with a release function once a slot for `url`'s origin is free. */
  acquire(url: string): Promise<() => void> {
    const origin = originOf(url);
    return new Promise((resolve) => {
      const grant = () => {
        this.#take(origin);
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.#give(origin);
        });
      };
      if (this.#fits(origin)) grant();
      else this.#queue.push({ origin, grant });
    });
  }

  /** Deliveries in flight now, and waiting for a slot. */
  get stats(): { inFlight: number; waiting: number } {
    return { inFlight: this.#total, waiting: this.#queue.length };
  }

  #fits(origin: string): boolean {
    return this.#total < this.#limits.total && (this.#byOrigin.get(origin) ?? 0) < this.#limits.perOrigin;
  }

  #take(origin: string): void {
    this.#total += 1;
    this.#byOrigin.set(origin, (this.#byOrigin.get(origin) ?? 0) + 1);
  }

  #give(origin: string): void {
    this.#total -= 1;
    const left = (this.#byOrigin.get(origin) ?? 1) - 1;
    if (left === 0) this.#byOrigin.delete(origin);
    else this.#byOrigin.set(origin, left);
    for (let i = 0; i < this.#queue.length && this.#total < this.#limits.total; ) {
      const waiter = this.#queue[i]!;
      if (this.#fits(waiter.origin)) {
        this.#queue.splice(i, 1);
        waiter.grant();
      } else {
        i += 1;
      }
    }
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
