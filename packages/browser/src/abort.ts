import { PaykitThreeDSError } from "./errors.js";

/** The ABORTED error for a signal, keeping the caller's reason as `cause`. */
export function abortError(signal: AbortSignal): PaykitThreeDSError {
  return new PaykitThreeDSError("ABORTED", "3DS flow aborted by its AbortSignal.", {
    cause: signal.reason,
  });
}

/** Settles like `work`, or rejects with ABORTED as soon as `signal` aborts (the work itself goes on). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    // Handlers go on `work` first, so its later failure is never an unhandled rejection.
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    if (signal.aborted) onAbort();
  });
}
