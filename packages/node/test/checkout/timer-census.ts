// Counts the timers code under test leaves running. `process.getActiveResourcesInfo()` lists only the
// timers that keep the process alive, and the status endpoint unrefs all of its own: this census wraps
// the global timer functions for the span of a test and keeps every timer that code in `from` created.

/** The timers matching code created that are still pending; `restore` puts the globals back. */
export interface TimerCensus {
  /** Pending timers (not fired, not cleared) that matching code created. */
  live(): number;
  /** Where each pending timer was created (for a failure's message). */
  origins(): string[];
  restore(): void;
}

type Timer = ReturnType<typeof setTimeout>;

export function timerCensus(from = /packages[\\/]node[\\/]src[\\/](checkout|resources)[\\/]/): TimerCensus {
  const real = {
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
  };
  const live = new Map<unknown, string>();
  // The code that called setTimeout itself: a timer made deeper down (the HTTP client's, for a read a
  // poll started) belongs to that code, not to its caller.
  const origin = (): string | undefined => {
    const frames = (new Error().stack ?? "").split("\n").slice(1);
    const caller = frames.find((frame) => !frame.includes("timer-census"));
    return caller !== undefined && from.test(caller) ? caller.trim() : undefined;
  };
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const where = origin();
    const timer: Timer = real.setTimeout(
      (...passed: unknown[]) => {
        live.delete(timer);
        callback(...passed);
      },
      ms,
      ...args,
    );
    if (where !== undefined) live.set(timer, where);
    return timer;
  }) as typeof setTimeout;
  globalThis.setInterval = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const where = origin();
    const timer = real.setInterval(callback, ms, ...args);
    if (where !== undefined) live.set(timer, where);
    return timer;
  }) as typeof setInterval;
  globalThis.clearTimeout = ((timer: Timer | undefined) => {
    live.delete(timer);
    real.clearTimeout(timer);
  }) as typeof clearTimeout;
  globalThis.clearInterval = ((timer: Timer | undefined) => {
    live.delete(timer);
    real.clearInterval(timer);
  }) as typeof clearInterval;
  return {
    live: () => live.size,
    origins: () => [...live.values()],
    restore() {
      Object.assign(globalThis, real);
    },
  };
}

/** The process-keeping timers `process.getActiveResourcesInfo()` lists. */
export function refTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
}
