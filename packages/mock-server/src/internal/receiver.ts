// Reading what a webhook receiver answered: its status and at most a bounded part of its body.

/** How much of a receiver's answer is read; the rest is discarded (a receiver may answer anything). */
export const MAX_RECEIVER_BODY_BYTES = 64 * 1024;

/** Reads at most {@link MAX_RECEIVER_BODY_BYTES} of an answer, then cancels the rest of the stream. */
export async function drainBounded(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= MAX_RECEIVER_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // A receiver that cuts its answer short still answered with its status.
  } finally {
    reader.releaseLock();
  }
}

/** Why a request to a receiver got no answer, in a line: a timeout, or the cause's code (`ECONNREFUSED`). */
export function describeFailure(cause: unknown, timeoutMs: number): string {
  if (cause instanceof Error) {
    if (cause.name === "TimeoutError" || cause.name === "AbortError")
      return `no answer within ${timeoutMs} ms`;
    const code = (cause.cause as { code?: unknown } | undefined)?.code;
    return typeof code === "string" ? `${cause.message} (${code})` : cause.message;
  }
  return String(cause);
}
