// Sends one attempt of a webhook delivery to its receiver (docs/decisions/webhooks.md): POST, no
// redirect followed, a timeout, at most a few attempts in flight per receiver.

import type { AttemptOutcome } from "../domain/deliveries.js";
import type { DeliverySlots } from "../internal/delivery-slots.js";
import { describeFailure, drainBounded } from "../internal/receiver.js";

/** The receiving side of deliveries: `fetch` or a stand-in (tests inject one). */
export type WebhookFetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Posts an attempt and answers the receiver's status, or why none came. At most 10 deliveries per
 * receiver and 100 overall are in flight; the rest wait for a slot, so a receiver that never answers
 * holds a bounded number of sockets. The timeout starts with the send.
 */
export async function postAttempt(
  fetcher: WebhookFetch,
  slots: DeliverySlots,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  const release = await slots.acquire(url);
  try {
    const response = await fetcher(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await drainBounded(response);
    const statusCode = response.status;
    return {
      statusCode,
      error: statusCode === 0 ? "the receiver answered a redirect, which is not followed" : null,
    };
  } catch (cause) {
    return { statusCode: null, error: describeFailure(cause, timeoutMs) };
  } finally {
    release();
  }
}
