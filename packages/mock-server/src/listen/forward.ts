// Posts one attempt handed to `paykit-mock listen` to the developer's local receiver: the very request
// the sandbox would have sent (headers, signature, body byte for byte), and reads back what the receiver
// answered, which the sandbox records as the attempt.
import type { ListenAck, ListenAttempt } from "../domain/listeners.js";

/** How long the local receiver has to answer, in ms: the sandbox gives a receiver as long. */
export const FORWARD_TIMEOUT_MS = 10_000;
/** How much of the local answer is read; the rest is dropped (the answer's status is what counts). */
const MAX_ANSWER_BYTES = 64 * 1024;

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
    await drain(response);
  } catch (cause) {
    error = `${describe(cause, timeoutMs)} (at ${forwardTo})`;
  }
  return {
    ack: { attemptId: attempt.attemptId, statusCode, error },
    latencyMs: Math.round(performance.now() - started),
  };
}

async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // an answer cut short still came with its status
  }
}

function describe(cause: unknown, timeoutMs: number): string {
  if (cause instanceof Error) {
    if (cause.name === "TimeoutError" || cause.name === "AbortError")
      return `no answer within ${timeoutMs} ms`;
    const code = (cause.cause as { code?: unknown } | undefined)?.code;
    return typeof code === "string" ? `${cause.message} (${code})` : cause.message;
  }
  return String(cause);
}
