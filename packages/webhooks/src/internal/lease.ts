// What the de-duplication guard and the order guard share: a lease renewed while a handler runs, and
// the check of their millisecond options.

/**
 * Calls `renew` every third of `leaseMs` until the returned function is called, so a long handler keeps
 * its lease. A failed renewal is not fatal: the lease simply runs out and a later retry may run the handler.
 */
export function keepLease(renew: () => unknown, leaseMs: number): () => void {
  const timer = setInterval(
    () => {
      Promise.resolve()
        .then(renew)
        .catch(() => undefined);
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}

/** `value` if it is a positive integer of milliseconds, `fallback` if it is absent; a RangeError naming `owner` and `name` otherwise. */
export function positiveMs(value: number | undefined, fallback: number, owner: string, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${owner}: ${name} must be a positive integer of milliseconds`);
  }
  return value;
}
