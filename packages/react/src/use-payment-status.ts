import {
  FINAL_STATUSES,
  type PaykitCheckoutError,
  type PaymentStatusUpdate,
  type PaymentStatusWatch,
  watchPaymentStatus,
} from "@paykit/browser/checkout";
import { useCallback, useEffect, useRef, useState } from "react";

/** A payin's status as {@link usePaymentStatus} follows it. */
export interface PaymentStatusState {
  /** The last status the endpoint reported (`PENDING`, `PENDING_3DS`, `APPROVED`, …); `null` before the first. */
  status: string | null;
  /** The last answer of the endpoint, with `updatedAt` and the fields the merchant opted into; `null` before the first. */
  update: PaymentStatusUpdate | null;
  /**
   * Why the status cannot be followed: `NOT_FOUND` or `STATUS_REJECTED` (the watch stopped), or
   * `STATUS_UNAVAILABLE` (it goes on trying; cleared by the next status). `null` while all is well.
   */
  error: PaykitCheckoutError | null;
  /** Whether `status` is final (APPROVED, REFUSED or EXPIRED): the watch has stopped. */
  final: boolean;
  /** Asks for the status now when the stream is down and polling waits (the shopper came back from the bank). */
  refresh(): void;
}

interface Followed {
  /** Which watch these values belong to: `statusUrl` and `id`, or null for none. */
  key: string | null;
  update: PaymentStatusUpdate | null;
  error: PaykitCheckoutError | null;
}

const NONE: Followed = { key: null, update: null, error: null };

/**
 * Follows a payin's status on your `createPaymentStatus` endpoint (`watchPaymentStatus` of
 * `@paykit/browser/checkout`: server-sent events, then polling with backoff), for pages that draw their own
 * screen. `id` null or undefined: idle. Safe under server-side rendering (nothing starts before mount), one
 * watch under StrictMode, and stopped at a final status, when `id` or `statusUrl` changes, and on unmount.
 * @example
 * function OrderStatus({ payinId }: { payinId: string }) {
 *   const { status, final, error } = usePaymentStatus("/payment-status", payinId);
 *   if (error?.code === "NOT_FOUND") return <p>Pedido não encontrado.</p>;
 *   return <p>{final ? `Pagamento: ${status}` : "Aguardando o pagamento…"}</p>;
 * }
 */
export function usePaymentStatus(statusUrl: string, id: string | null | undefined): PaymentStatusState {
  const key = id ? JSON.stringify([statusUrl, id]) : null;
  const [followed, setFollowed] = useState<Followed>(NONE);
  const watch = useRef<PaymentStatusWatch | undefined>(undefined);

  useEffect(() => {
    if (!id || key === null) return;
    let running: PaymentStatusWatch | undefined;
    let cancelled = false;
    // Started on the next microtask: StrictMode's mount, unmount and mount again cancel the first one before
    // it opened a stream, so there is one watch, never two.
    queueMicrotask(() => {
      if (cancelled) return;
      running = watchPaymentStatus(statusUrl, id, {
        onStatus: (update) => setFollowed({ key, update, error: null }),
        onError: (error) =>
          setFollowed((previous) => ({ key, update: previous.key === key ? previous.update : null, error })),
      });
      watch.current = running;
    });
    return () => {
      cancelled = true;
      running?.stop();
      if (watch.current === running) watch.current = undefined;
    };
  }, [statusUrl, id, key]);

  const refresh = useCallback(() => watch.current?.refresh(), []);
  // Values of a previous payin (or endpoint) are not this one's: until its own first answer, nothing is known.
  const { update, error } = followed.key === key ? followed : NONE;
  const status = update?.status ?? null;
  return { status, update, error, final: status !== null && FINAL_STATUSES.includes(status), refresh };
}
