import type { MockState } from "./state.js";

/**
 * What makes an engine's state durable (the `--data-dir` and `--store` modes): a store that puts its
 * saved state into a new engine's, then saves every change. Memory mode has none.
 */
export interface StatePersistence {
  /** Called once with the engine's new state: fills it from the store and starts saving its changes. */
  attach(state: MockState): void;
  /**
   * Resolves once every change made so far is saved; the engine answers a request only then, so a
   * `201` is never lost by a crash. Rejects when the store failed to save them.
   */
  saved(): Promise<void>;
}
