import { PaykitThreeDSError } from "./errors.js";

/**
 * Starts `work` unless `signal` has already aborted, then settles like it, or rejects with ABORTED (the
 * signal's reason as `cause`) as soon as `signal` aborts, or with `late` after `limitMs`. The work itself goes
 * on. Neither the listener nor the timer outlives the returned promise. One helper for the load's signal and
 * the challenge's two bounds: fewer bytes in the IIFE (docs/decisions/three-ds-iife-bytes.md).
 */
export function untilAborted<T>(
  work: () => Promise<T>,
  signal: AbortSignal | undefined,
  limitMs?: number,
  late?: PaykitThreeDSError,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: () => void;
  return new Promise<T>((resolve, reject) => {
    onAbort = () =>
      reject(new PaykitThreeDSError("ABORTED", "3DS flow aborted by its signal.", { cause: signal!.reason }));
    if (signal?.aborted) return onAbort();
    // setTimeout fires at once from 2^31 ms: a longer limit (Infinity) is none. No limit given: no timer.
    if ((limitMs as number) < 2 ** 31) timer = setTimeout(reject, limitMs, late);
    // An AbortSignal aborts once: no `{ once: true }` needed, and `finally` removes the listener.
    signal?.addEventListener("abort", onAbort);
    work().then(resolve, reject);
  }).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
}
