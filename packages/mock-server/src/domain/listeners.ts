// The listeners of `paykit-mock listen` (docs/testing.md ("Your laptop and a team sandbox")): a
// developer's process that takes an account's webhook deliveries and posts them to their laptop. It
// polls (`POST /_mock/accounts/{id}/listen`); while one is attached, each attempt of the account's
// deliveries is handed to it instead of being sent to the delivery's URL, and its answer (the local
// receiver's status, or what went wrong) is recorded as that attempt. One listener per account at a
// time: a new one takes over and the older one is told, on any process of a shared sandbox. See
// docs/decisions/mock-listen.md; work/listeners.ts holds the polls.

/** A delivery's attempt handed to a listener: the very request the sandbox would send. */
export interface ListenAttempt {
  /** This attempt's id, acknowledged with the local answer. */
  attemptId: string;
  /** The delivery (`wh_…`) in the sandbox's delivery log. */
  deliveryId: string;
  /** The `webhook-id` header: the same on every attempt of the event. */
  webhookId: string;
  /** `payin.approved`, `payout.completed`, … */
  event: string;
  resource: "payin" | "payout";
  resourceId: string;
  /** The resource status the event reports. */
  status: string;
  /** Where the sandbox would have sent it (the resource's `webhookUrl`). */
  url: string;
  /** The headers to send, signature and `webhook-id` included. */
  headers: Record<string, string>;
  /** The JSON body, byte for byte as signed. */
  body: string;
}

/** A listener's answer for one attempt: the local receiver's status, or why none came. */
export interface ListenAck {
  attemptId: string;
  /** The local receiver's HTTP status; null when it gave none. */
  statusCode: number | null;
  /** What went wrong when no status came (connection refused, timeout…); null otherwise. */
  error: string | null;
}

/** One poll of a listener. */
export interface ListenParams {
  /** The listener's own id, the same for as long as it runs (a restarted listener takes a new one). */
  listener: string;
  /** The answers to the attempts it was handed. */
  acks?: ListenAck[] | undefined;
  /** Only these events (`payin.approved`, `payout.*`); the others go to their URL as without a listener. */
  events?: string[] | undefined;
  /** How long the poll may wait for an attempt, in ms. @default 25000 */
  waitMs?: number | undefined;
  /**
   * The listener stops (after its acks are taken): the account's deliveries go to their URL again at
   * once, and attempts it was handed and did not answer fail now rather than at their timeout.
   */
  detach?: boolean | undefined;
}

/** What a poll answers. */
export interface ListenResult {
  /** The attempts to send, oldest first: new ones, and any handed out before and not answered yet. */
  attempts: ListenAttempt[];
  /** Another listener took the account's deliveries over: this one gets none any more. */
  takenOver: boolean;
}

/** What became of an attempt handed to a listener. */
export interface ListenOutcome {
  statusCode: number | null;
  error: string | null;
}

/** The longest a poll waits for an attempt, in ms (a poll asking longer is cut to it). */
export const MAX_LISTEN_WAIT_MS = 25_000;
/** A listener that has not polled for this long (ms) is gone: deliveries go to their URL again. */
export const LISTENER_LEASE_MS = 30_000;
/**
 * How much longer than the receiver's timeout a listener has to acknowledge an attempt it was handed, in
 * ms: the listener gives the receiver the timeout itself, and its answer then needs a poll to get here.
 */
export const ACK_GRACE_MS = 5_000;
/** Most attempts one poll hands out. */
export const MAX_ATTEMPTS_PER_POLL = 100;
/** Ids of listeners that were taken over, kept per account so that they are told and not taken back. */
export const RETIRED_KEPT = 16;

/** An event a listener may ask for: a resource and a status (`payin.approved`), or all of one (`payout.*`). */
export const LISTEN_EVENT = /^(payin|payout)\.([a-z_]{1,40}|\*)$/;

/** A webhook event's name: its resource and status, `payin.approved`. */
export function eventName(resource: "payin" | "payout", status: string): string {
  return `${resource}.${status.toLowerCase()}`;
}

/** Whether `event` is one of `patterns` (`payin.approved`, or `payin.*` for every payin event). */
export function eventMatches(patterns: readonly string[] | null, event: string): boolean {
  if (patterns === null) return true;
  return patterns.some((p) => p === event || (p.endsWith(".*") && event.startsWith(p.slice(0, -1))));
}
