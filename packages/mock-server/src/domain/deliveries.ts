// The webhook deliveries of status changes (docs/decisions/webhooks.md): each change of a record with a
// `webhookUrl` becomes a delivery, stored with the change in one transaction, so that only committed
// changes are ever sent (docs/decisions/shared-sandbox-webhooks-after-commit.md). A
// delivery is attempted until the receiver answers 2xx, at increasing intervals on the account's
// clock, then marked failed. These are the rules; the process that makes the attempts is work/.
import { WEBHOOK_HEADERS, WEBHOOK_RETRY_DELAYS_MS } from "@paykit/contract";
import { Webhook } from "standardwebhooks";
import { childTraceparent, type TraceContext } from "./trace-context.js";
import { webhookPayload } from "./webhook-payload.js";

/** One attempt to deliver a webhook: when (mock clock), the receiver's status, or what went wrong. */
export interface WebhookAttempt {
  /** ISO 8601 time of the attempt on the mock clock. */
  at: string;
  /** The receiver's HTTP status; null when no answer came. */
  statusCode: number | null;
  /** Why the attempt failed without an answer (timeout, connection refused…); null otherwise. */
  error: string | null;
}

/** An entry of the delivery log (docs/decisions/webhooks.md). */
export interface WebhookDelivery {
  /** Delivery id (`wh_…`), for `redeliverWebhook`. */
  id: string;
  /** The `webhook-id` header: the same on every retry of this event. */
  webhookId: string;
  accountId: string;
  resource: "payin" | "payout";
  resourceId: string;
  /** The resource status this event reports. */
  status: string;
  url: string;
  /** `pending` until a 2xx arrives (`delivered`) or the 8 attempts are spent (`failed`). */
  state: "pending" | "delivered" | "failed";
  attempts: WebhookAttempt[];
}

/** A delivery as a store keeps it: the log entry, the event, and when its next attempt is due. */
export interface DeliveryRecord extends WebhookDelivery {
  /** The JSON body, byte for byte as signed. */
  payload: string;
  /** Test mode: each 2xx attempt is followed by the same delivery again (same `webhook-id`). */
  duplicate: boolean;
  /** Test mode: held briefly with the account's other new events, then sent newest first. */
  outOfOrder: boolean;
  /** The trace of the request that created the resource: each attempt sends a `traceparent` in it. */
  trace: TraceContext | null;
  /** Attempts of the current cycle; a redelivery starts a new cycle of 8. */
  cycleAttempts: number;
  /** When the next attempt is due, on the account's clock (epoch ms); null when none waits. */
  nextAttemptAt: number | null;
  /** An out-of-order event is not sent before this real time (epoch ms); 0 for any other. */
  holdUntil: number;
  /** When it was queued, on the account's clock. */
  createdAt: number;
  /** Queueing order in the store (a clock set back does not reorder a resource's events). */
  seq: number;
}

/** Which deliveries a page of the log holds (`GET /_mock/webhooks?resourceId=&status=&state=&order=`). */
export interface DeliveryFilter {
  /** The payin's or payout's deliveries alone. */
  resourceId?: string | undefined;
  /** The deliveries of events reporting this status (`APPROVED`, `COMPLETED`). */
  status?: string | undefined;
  /** The deliveries in this state. */
  state?: WebhookDelivery["state"] | undefined;
  /** @default "oldest" */
  order?: "newest" | "oldest" | undefined;
}

/** What a status change sends: its resource, status, destination and body. */
export interface WebhookEvent {
  accountId: string;
  resource: "payin" | "payout";
  resourceId: string;
  status: string;
  url: string;
  body: unknown;
  duplicate: boolean;
  outOfOrder: boolean;
  trace: TraceContext | null;
}

/** Attempts per cycle: the first and one per retry delay. */
export const MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;
/** How long out-of-order mode holds an account's new events (real ms) before it sends them, newest first. */
export const OUT_OF_ORDER_HOLD_MS = 50;

/** A delivery for a new event, due at once (or after the hold in out-of-order mode). */
export function newDelivery(
  event: WebhookEvent,
  ulid: string,
  accountNow: number,
  realNow: number,
): DeliveryRecord {
  return {
    id: `wh_${ulid}`,
    webhookId: `msg_${ulid}`,
    accountId: event.accountId,
    resource: event.resource,
    resourceId: event.resourceId,
    status: event.status,
    url: event.url,
    state: "pending",
    attempts: [],
    // written as a non-JavaScript sender writes it: a receiver that re-serializes fails here too
    // (docs/decisions/webhook-body-bytes.md)
    payload: webhookPayload(event.body),
    duplicate: event.duplicate,
    outOfOrder: event.outOfOrder,
    trace: event.trace,
    cycleAttempts: 0,
    nextAttemptAt: accountNow,
    holdUntil: event.outOfOrder ? realNow + OUT_OF_ORDER_HOLD_MS : 0,
    createdAt: accountNow,
    seq: 0,
  };
}

/** What became of one attempt: the receiver's status, or why none came. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
}

/**
 * Records an attempt made at `startedAt` (the account's clock) whose outcome came at `accountNow`, and
 * decides what comes next: delivered on a 2xx, else a retry the cycle's next delay after the outcome,
 * or failed once the cycle's 8 attempts are spent.
 */
export function recordAttempt(
  delivery: DeliveryRecord,
  outcome: AttemptOutcome,
  startedAt: number,
  accountNow: number = startedAt,
): void {
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  delivery.attempts.push({
    at: new Date(startedAt).toISOString(),
    statusCode: outcome.statusCode === 0 ? null : outcome.statusCode,
    error: outcome.error,
  });
  delivery.cycleAttempts += 1;
  delivery.holdUntil = 0;
  if (ok) {
    delivery.state = "delivered";
    delivery.nextAttemptAt = null;
  } else if (delivery.cycleAttempts >= MAX_ATTEMPTS) {
    delivery.state = "failed";
    delivery.nextAttemptAt = null;
  } else {
    delivery.nextAttemptAt = accountNow + (WEBHOOK_RETRY_DELAYS_MS[delivery.cycleAttempts - 1] ?? 0);
  }
}

/** A delivery sent again now, with a fresh cycle of attempts (`POST /_mock/webhooks/{id}/redeliver`). */
export function restartDelivery(delivery: DeliveryRecord, accountNow: number): void {
  delivery.cycleAttempts = 0;
  delivery.state = "pending";
  delivery.nextAttemptAt = accountNow;
  delivery.holdUntil = 0;
}

/** The log entry of a delivery, as control calls show it (a copy). */
export function deliveryView(delivery: DeliveryRecord): WebhookDelivery {
  const { id, webhookId, accountId, resource, resourceId, status, url, state, attempts } = delivery;
  return {
    id,
    webhookId,
    accountId,
    resource,
    resourceId,
    status,
    url,
    state,
    attempts: attempts.map((a) => ({ ...a })),
  };
}

const signers = new Map<string, Webhook>();

function signerOf(secret: string): Webhook {
  let signer = signers.get(secret);
  if (signer === undefined) {
    if (signers.size > 1000) signers.clear();
    signer = new Webhook(secret);
    signers.set(secret, signer);
  }
  return signer;
}

/**
 * The headers of an attempt (docs/decisions/webhooks.md): `webhook-id`, `webhook-timestamp` (real unix
 * seconds), and, when the account signs, `webhook-signature` with every secret in use (during a
 * rotation's grace both, separated by a space, as Standard Webhooks allows).
 */
export function attemptHeaders(
  delivery: DeliveryRecord,
  secrets: readonly string[],
  wallSeconds: number,
): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "paykit-mock-webhooks/0.1",
    [WEBHOOK_HEADERS.id]: delivery.webhookId,
    [WEBHOOK_HEADERS.timestamp]: String(wallSeconds),
  };
  if (delivery.trace) headers.traceparent = childTraceparent(delivery.trace);
  if (secrets.length > 0) {
    const at = new Date(wallSeconds * 1000);
    headers[WEBHOOK_HEADERS.signature] = secrets
      .map((secret) => signerOf(secret).sign(delivery.webhookId, at, delivery.payload))
      .join(" ");
  }
  return headers;
}
