// Posts one attempt handed to `paykit-mock listen` to the developer's local receiver: the very request
// the sandbox would have sent (headers, signature, body byte for byte), and reads back what the receiver
// answered, which the sandbox records as the attempt.
import { WEBHOOK_TIMEOUT_MS } from "@paykit/contract";
import type { ListenAck, ListenAttempt } from "../domain/listeners.js";
import { describeFailure, drainBounded } from "../internal/receiver.js";

/** How long the local receiver has to answer, in ms: as long as the sandbox gives a receiver. */
export const FORWARD_TIMEOUT_MS = WEBHOOK_TIMEOUT_MS;

/** An attempt forwarded: the sandbox's acknowledgement and how long the receiver took. */
export interface Forwarded {
  ack: ListenAck;
  /** Real ms from the send to the answer (or the failure). */
  latencyMs: number;
}

/** Sends an attempt to `forwardTo`; never throws (a failure is the attempt's answer). */
export async function forwardAttempt(
  attempt: ListenAttempt,
  forwardTo: string,
  doFetch: typeof fetch,
  timeoutMs: number = FORWARD_TIMEOUT_MS,
): Promise<Forwarded> {
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const response = await doFetch(forwardTo, {
      method: "POST",
      headers: attempt.headers,
      body: attempt.body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    // as the sandbox records it: a redirect is not followed, and a 3xx is not a 2xx
    if (response.status === 0) error = "the receiver answered a redirect, which is not followed";
    else statusCode = response.status;
    await drainBounded(response);
  } catch (cause) {
    error = `${describeFailure(cause, timeoutMs)} (at ${forwardTo})`;
  }
  return {
    ack: { attemptId: attempt.attemptId, statusCode, error },
    latencyMs: Math.round(performance.now() - started),
  };
}
