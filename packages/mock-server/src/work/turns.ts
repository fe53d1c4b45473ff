// Runs turns: one transaction of the store each, with the payment rules' view of it (domain/turn.ts).
// A refusal that keeps its writes (ApiError.keep) commits them, then refuses; any other error rolls
// the turn back. The deliveries a committed turn queued are handed to the worker.
import type { DeliveryRecord } from "../domain/deliveries.js";
import { ApiError } from "../domain/errors.js";
import type { UlidFactory } from "../domain/ids.js";
import type { SandboxStore, TxScope } from "../domain/repository.js";
import { type SandboxRules, Turn } from "../domain/turn.js";

/** Runs the turns of one engine on its store. */
export class Turns {
  /** Told of each committed turn, with the deliveries it queued (the worker sends them). */
  onCommit: (queued: readonly DeliveryRecord[]) => void = () => {};

  constructor(
    readonly store: SandboxStore,
    readonly rules: SandboxRules,
    readonly ids: UlidFactory,
  ) {}

  /** Runs `work` as one committed turn; its value, or its refusal once what it kept is committed. */
  async run<T>(work: (turn: Turn) => Promise<T>, scope?: TxScope): Promise<T> {
    let kept: ApiError | undefined;
    let queued: readonly DeliveryRecord[] = [];
    const value = await this.store.transaction(async (tx) => {
      const turn = new Turn(tx, this.rules, this.ids);
      try {
        const result = await work(turn);
        queued = turn.queued;
        return result;
      } catch (error) {
        if (!(error instanceof ApiError) || !error.keep) throw error;
        kept = error;
        queued = turn.queued;
        return undefined as T;
      }
    }, scope);
    // every commit may move the store's next moment (a clock set forward, work scheduled)
    this.onCommit(queued);
    if (kept !== undefined) throw kept;
    return value;
  }
}
