import type { PayinStatus, PaymentMethod } from "@paykit/contract";

/**
 * What a shopper's page may learn about a payin: its id, status, method and when it last changed.
 * Nothing else (no customer, no amount) unless the merchant opts into more fields.
 */
export interface PaymentStatus {
  /** The payin's id (`pi_…`). */
  id: string;
  /** The payin's status; APPROVED, REFUSED and EXPIRED are final. */
  status: PayinStatus;
  /** How the shopper pays. */
  paymentMethod: PaymentMethod | (string & {});
  /** When the payin last changed (ISO 8601, from the payin record or the webhook body). */
  updatedAt: string;
}

/** Stops a subscription; resolves once no more updates reach its listener. */
export type Unsubscribe = () => Promise<void>;

/**
 * Where the instances of a merchant's backend share payin statuses: the default keeps them in this
 * process; `redisStatusStore` and `postgresStatusStore` share them across every instance.
 *
 * A store does three things: it fans an update out to every instance (`publish` → every `subscribe`
 * listener, on every instance, this one included), it remembers the newest status of each id for a
 * while (`latest`), and it hands out the right to poll the service for an id to one instance per
 * interval (`claimPoll`), so a fleet with 1,000 shoppers watching one payin makes one request per
 * interval, and none while webhooks keep the status fresh.
 *
 * Endpoints of several accounts may share one store: each passes its payin ids as
 * `<publicKey>:<payinId>` and ignores statuses under any other account's prefix, so a store never
 * answers an endpoint for a payin its keys cannot read.
 */
export interface PaymentStatusStore {
  /**
   * Remembers `status` as the newest for its id (unless the remembered one is final, or newer by
   * `updatedAt`) and delivers it to every subscriber on every instance. When `fresh` is true (the
   * status came from a verified webhook) no instance polls that id for the next poll interval.
   */
  publish(status: PaymentStatus, options?: { fresh?: boolean; pollIntervalMs?: number }): Promise<void>;
  /** Calls `listener` with every status any instance publishes from now on, until unsubscribed. */
  subscribe(listener: (status: PaymentStatus) => void): Promise<Unsubscribe>;
  /** The newest status remembered for `id`, or `null` when none is (never seen, or forgotten after its TTL). */
  latest(id: string): Promise<PaymentStatus | null>;
  /**
   * True for exactly one caller (across every instance) per `intervalMs` window for `id`, and for none
   * while a fresh `publish` of that id holds the window: the caller that gets `true` polls the service.
   */
  claimPoll(id: string, intervalMs: number): Promise<boolean>;
  /** Stops listening and frees what the store opened itself (never the client the merchant passed in). */
  close(): Promise<void>;
}
