// Retention by last use (`--retention`): a sandbox a team shares for months gets accounts from every CI
// run; those nobody used for the retention period go, with everything they hold. Each store decides on
// its own clock (a shared store on the database's), and a SQL store deletes the rows a batch at a time.
import type { SandboxStore } from "../domain/repository.js";

/** The longest pause between two sweeps: an unused account outlives its retention by at most this. */
const MAX_SWEEP_EVERY_MS = 5 * 60_000;

/** How often the sweep runs for a retention: a few times per period, at most every five minutes. */
export function sweepEveryMs(retention: number): number {
  return Math.max(250, Math.min(MAX_SWEEP_EVERY_MS, Math.floor(retention / 4)));
}

/**
 * Starts the retention sweep of an engine: once now, then every {@link sweepEveryMs}; after each sweep
 * the rows it hid are deleted a batch per transaction. Answers the function that stops it. A sweep
 * never overlaps the one before; its errors go to `onError` and the next sweep tries again.
 */
export function startRetention(
  store: SandboxStore,
  retention: number,
  onError: (error: unknown) => void,
): () => void {
  let running = false;
  let stopped = false;
  const sweep = async () => {
    if (running || stopped) return;
    running = true;
    try {
      await store.sweep(retention);
      while (!stopped && (await store.purge())) {}
    } catch (error) {
      onError(error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), sweepEveryMs(retention));
  timer.unref?.();
  void sweep();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
