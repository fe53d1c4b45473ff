// One transaction's view of the sandbox, as the payment rules use it: the store's transaction, the
// engine's settings, the clocks, and the webhook deliveries the turn queued (sent once it commits).
import type { Account } from "./accounts.js";
import { type DeliveryRecord, newDelivery } from "./deliveries.js";
import { ApiError } from "./errors.js";
import type { UlidFactory } from "./ids.js";
import type { PixDirectoryMode } from "./pix-directory.js";
import { type PayinRecord, type PayoutRecord, payinWebhookJson, payoutJson } from "./records.js";
import type { StoreTx } from "./repository.js";

/** The engine's settings the payment rules read. */
export interface SandboxRules {
  /** Whether payouts move on their own, for accounts without their own setting. */
  autoAdvance: boolean;
  /** Real time between two automatic payout steps, in ms. */
  advanceIntervalMs: number;
  /** The directory mode of accounts without their own. */
  pixDirectory: PixDirectoryMode;
  /** Records kept per account and kind (Infinity: no limit). */
  maxRecords: number;
}

/** One transaction of the sandbox: what a request (or a piece of due work) reads and changes. */
export class Turn {
  /** Deliveries queued in this turn: the engine sends them once the turn committed. */
  readonly queued: DeliveryRecord[] = [];

  constructor(
    readonly tx: StoreTx,
    readonly rules: SandboxRules,
    readonly ids: UlidFactory,
  ) {}

  /** Real time, epoch ms. */
  realNow(): number {
    return this.tx.realNow();
  }

  /** The sandbox clock, epoch ms (real time plus its offset). */
  sandboxNow(): number {
    return this.tx.realNow() + this.tx.sandbox.clockOffsetMs;
  }

  /** An account's clock, epoch ms (the sandbox clock plus the account's offset). */
  now(account: Account): number {
    return this.sandboxNow() + account.clockOffsetMs;
  }

  /** The account by id (locked for a change: see StoreTx.account), or 404 NOT_FOUND. */
  async account(accountId: string, lock = true): Promise<Account> {
    const account = await this.tx.account(accountId, { lock });
    if (account === null) throw new ApiError("NOT_FOUND", `account ${accountId} does not exist`);
    return account;
  }

  /** Whether an account's payouts move on their own. */
  autoAdvanceOf(account: Account): boolean {
    return account.autoAdvance ?? this.rules.autoAdvance;
  }

  /** How the PIX key directory answers an account's payouts. */
  pixDirectoryOf(account: Account): PixDirectoryMode {
    return account.pixDirectory ?? this.rules.pixDirectory;
  }

  /**
   * Queues the webhook of a payin's or payout's new status, when it has a `webhookUrl`, in the trace
   * of the request that created it: stored with the change, sent once the turn commits.
   */
  notify(
    account: Account,
    record: PayinRecord | PayoutRecord,
    status: string,
    resource: "payin" | "payout",
  ): void {
    if (!record.webhookUrl) return;
    const now = this.now(account);
    const delivery = newDelivery(
      {
        accountId: account.id,
        resource,
        resourceId: record.id,
        status,
        url: record.webhookUrl,
        body:
          resource === "payin" ? payinWebhookJson(record as PayinRecord) : payoutJson(record as PayoutRecord),
        duplicate: account.webhookDuplicates,
        outOfOrder: account.webhookOutOfOrder,
        trace: record.trace,
      },
      this.ids.next(now),
      now,
      this.realNow(),
    );
    this.tx.insertDelivery(delivery);
    this.queued.push(delivery);
  }
}
