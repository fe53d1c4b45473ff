import { appendFileSync, existsSync, readFileSync } from "node:fs";

/** A payout the shop decided to make: written down BEFORE the API is called. */
export interface PayoutIntent {
  /** The payout's `referenceId`: unique per intended transfer, reused on every retry. */
  referenceId: string;
  /** Amount in cents. */
  amount: number;
  pixKey: string;
  pixKeyType: "CPF" | "CNPJ" | "EMAIL" | "PHONE" | "EVP";
}

type Entry =
  | { type: "intent"; intent: PayoutIntent }
  | { type: "done"; referenceId: string; payoutId: string };

/**
 * An append-only journal of payout intents (one JSON line each), fsync-free for brevity. A real
 * system keeps this in its database, in the same transaction as the business event (e.g. the
 * seller's settlement), which is what makes "intent first, API second" crash-safe.
 */
export class PayoutJournal {
  constructor(readonly path: string) {}

  /** Records an intent; call before sending the payout. */
  record(intent: PayoutIntent): void {
    this.#append({ type: "intent", intent });
  }

  /** Marks an intent as settled with the service's payout id. */
  markDone(referenceId: string, payoutId: string): void {
    this.#append({ type: "done", referenceId, payoutId });
  }

  /** Intents with no `done` entry: those a crash may have interrupted. */
  unfinished(): PayoutIntent[] {
    const open = new Map<string, PayoutIntent>();
    for (const entry of this.#entries()) {
      if (entry.type === "intent") open.set(entry.intent.referenceId, entry.intent);
      else open.delete(entry.referenceId);
    }
    return [...open.values()];
  }

  #entries(): Entry[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Entry);
  }

  #append(entry: Entry): void {
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`);
  }
}
