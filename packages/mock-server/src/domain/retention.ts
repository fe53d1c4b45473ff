// Retention by last use (`--retention`): a sandbox a team shares for months gets accounts from every CI
// run; those nobody used for the retention period go, with everything they hold. Memory mode sweeps on
// the real clock; a durable store sweeps on its own clock and deletes in batches (StatePersistence.sweep).
import type { StatePersistence } from "./persistence.js";
import { unrefTimer } from "./scheduler.js";
import type { MockState } from "./state.js";

/** The longest pause between two sweeps: an unused account outlives its retention by at most this. */
const MAX_SWEEP_EVERY_MS = 5 * 60_000;

/** How often the sweep runs for a retention: a few times per period, at most every five minutes. */
export function sweepEveryMs(retention: number): number {
  return Math.max(250, Math.min(MAX_SWEEP_EVERY_MS, Math.floor(retention / 4)));
}

/**
 * Starts the retention sweep of an engine: once now, then every {@link sweepEveryMs}. Answers the
 * function that stops it. A sweep never overlaps the one before; its errors go to `onError` and the
 * next sweep tries again.
 */
export function startRetention(
  state: MockState,
  persistence: StatePersistence | undefined,
  retention: number,
  onError: (error: unknown) => void,
): () => void {
  let running = false;
  let stopped = false;
  const sweep = async () => {
    if (running || stopped || state.closed) return;
    running = true;
    try {
      if (persistence?.sweep) await persistence.sweep(retention);
      else if (persistence === undefined)
        for (const id of state.unusedAccounts(retention)) state.removeAccount(id);
    } catch (error) {
      onError(error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), sweepEveryMs(retention));
  unrefTimer(timer);
  void sweep();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
