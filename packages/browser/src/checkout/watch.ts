import { PaykitCheckoutError } from "./errors.js";
import type { PaymentStatusUpdate } from "./types.js";

/** The statuses after which a payin never changes: the watch ends on them. */
export const FINAL_STATUSES: readonly string[] = ["APPROVED", "REFUSED", "EXPIRED"];

/** Polling starts at this interval after the event stream fails, and doubles up to {@link POLL_MAX_MS}. */
export const POLL_MIN_MS = 2_000;
/** The longest interval between two polls. */
export const POLL_MAX_MS = 10_000;

/** How {@link watchPaymentStatus} follows a payin. */
export interface WatchPaymentStatusOptions {
  /** Called with each new status (never twice with the same status and `updatedAt`), the final one last. */
  onStatus: (status: PaymentStatusUpdate) => void;
  /** Called when the endpoint refuses the id (the watch stops) or fails three times in a row (it goes on). */
  onError?: (error: PaykitCheckoutError) => void;
}

/** A running watch of one payin's status. */
export interface PaymentStatusWatch {
  /** Asks for the status now when polling (the tab came back into view, the shopper came back from the bank). */
  refresh(): void;
  /** Stops for good: closes the stream, clears the timer, aborts a request in flight. */
  stop(): void;
}

/** `statusUrl` with `id=` appended as the payment-status protocol says. */
export function statusUrlFor(statusUrl: string, id: string): string {
  return `${statusUrl}${statusUrl.includes("?") ? "&" : "?"}id=${encodeURIComponent(id)}`;
}

/**
 * Follows a payin's status on the merchant's `createPaymentStatus` endpoint: by server-sent events, and by
 * polling (every 2 s, doubling up to 10 s) once the stream fails or is cut. It stops by itself at a final
 * status (APPROVED, REFUSED, EXPIRED) and when the endpoint does not know the payin, and on `stop()`.
 * @example
 * const watch = watchPaymentStatus("/payment-status", payin.id, {
 *   onStatus: ({ status }) => console.log(status),
 * });
 * // later: watch.stop();
 */
export function watchPaymentStatus(
  statusUrl: string,
  id: string,
  options: WatchPaymentStatusOptions,
): PaymentStatusWatch {
  const { onStatus, onError } = options;
  const url = statusUrlFor(statusUrl, id);
  let stopped = false;
  let stream: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let request: AbortController | undefined;
  let delay = POLL_MIN_MS;
  let failures = 0;
  let last = "";

  const stop = () => {
    stopped = true;
    stream?.close();
    stream = undefined;
    clearTimeout(timer);
    request?.abort();
  };
  const deliver = (value: unknown) => {
    const status = value as PaymentStatusUpdate;
    // Another payin's status (a proxy's cache, a bug of the endpoint) is never this one's: never its APPROVED.
    if (stopped || typeof status?.status !== "string" || status.id !== id) return;
    const key = `${status.status}.${status.updatedAt}`;
    if (key === last) return;
    last = key;
    // A final status ends the watch before the listener runs: nothing is left even if it throws.
    if (FINAL_STATUSES.includes(status.status)) stop();
    onStatus(status);
  };
  const later = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(poll, ms);
  };

  async function poll() {
    if (stopped || request) return;
    clearTimeout(timer);
    const controller = new AbortController();
    request = controller;
    let wait = delay;
    let value: unknown;
    delay = Math.min(delay * 2, POLL_MAX_MS);
    try {
      const response = await fetch(url, {
        headers: { accept: "application/json" },
        cache: "no-store",
        signal: controller.signal,
      });
      if (response.ok) {
        value = await response.json();
        failures = 0;
      } else if (response.status < 500 && response.status !== 429) {
        stop();
        onError?.(
          new PaykitCheckoutError(
            response.status === 404 ? "NOT_FOUND" : "STATUS_REJECTED",
            `The status endpoint answered ${response.status} for payin ${id}.`,
          ),
        );
      } else {
        // 503 (too many open streams) and 429 say when to come back.
        const retryAfter = Number(response.headers.get("retry-after")) * 1000;
        if (retryAfter > wait) wait = Math.min(retryAfter, 60_000);
        throw new Error(`status endpoint answered ${response.status}`);
      }
    } catch (cause) {
      if (!stopped && ++failures === 3) {
        onError?.(
          new PaykitCheckoutError("STATUS_UNAVAILABLE", "The status endpoint keeps failing.", { cause }),
        );
      }
    } finally {
      if (request === controller) request = undefined;
    }
    later(wait);
    if (value !== undefined) deliver(value);
  }

  if (typeof EventSource === "function") {
    stream = new EventSource(url);
    stream.onmessage = (event) => {
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        // Not JSON: a proxy's page or a truncated event. The next event or the polling corrects it.
        return;
      }
      deliver(value);
    };
    stream.onerror = () => {
      // EventSource would reconnect on its own, forever and silently; polling with backoff is bounded and
      // sees the 404 of an unknown payin. The first poll goes at once: the cut may hide a change.
      stream?.close();
      stream = undefined;
      if (!stopped) void poll();
    };
  } else {
    void poll();
  }

  return {
    refresh() {
      if (!stream) {
        delay = POLL_MIN_MS;
        void poll();
      }
    },
    stop,
  };
}
