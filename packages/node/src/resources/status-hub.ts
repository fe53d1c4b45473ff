import type { PayinStatus } from "@paykit/contract/rules";

/** What a verified webhook (or another instance, through a status store) says about a payin. */
export interface PayinStatusHint {
  /** The payin's id (`pi_…`). */
  id: string;
  /** The status it reported. */
  status: PayinStatus;
  /** When the payin changed (ISO 8601). */
  updatedAt: string;
}

type Listener = (hint: PayinStatusHint) => void;

/**
 * The client's in-process news of payin statuses: `webhooks.parse` (and `@paykit/node/checkout`)
 * publish, the `waitForFinal` poll loops listen. A hint only wakes a loop: the loop then reads the
 * payin from the API and acts on that record (trust, but verify: docs/webhooks.md).
 */
export class PayinStatusHub {
  readonly #listeners = new Map<string, Set<Listener>>();

  /** Calls `listener` with every hint about `id` until the returned function is called. */
  listen(id: string, listener: Listener): () => void {
    let set = this.#listeners.get(id);
    if (!set) {
      set = new Set();
      this.#listeners.set(id, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(id) === set) this.#listeners.delete(id);
    };
  }

  /** Hands `hint` to every listener of its id (none: nothing happens). */
  publish(hint: PayinStatusHint): void {
    const set = this.#listeners.get(hint.id);
    if (!set) return;
    for (const listener of [...set]) listener(hint);
  }

  /** How many payin ids have listeners (for tests: nothing may stay behind). */
  get size(): number {
    return this.#listeners.size;
  }
}

// A registered symbol, not a module-level WeakMap: the main entry and `@paykit/node/checkout` reach the
// same hub even when a process loads them from two copies of the code (ESM beside CJS).
const HUB = Symbol.for("@paykit/node.payinStatusHub");

/** The hub of a client's `payins` resource, made on first use and kept out of `util.inspect`/JSON. */
export function statusHubOf(payins: object): PayinStatusHub {
  const holder = payins as { [HUB]?: PayinStatusHub };
  let hub = holder[HUB];
  if (!hub) {
    hub = new PayinStatusHub();
    Object.defineProperty(payins, HUB, { value: hub, enumerable: false });
  }
  return hub;
}
