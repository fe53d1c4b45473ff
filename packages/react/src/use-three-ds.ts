import {
  type HandlePendingThreeDSOptions,
  handlePendingThreeDS,
  type ThreeDSChallengeData,
  type ThreeDSPayinResponse,
  type ThreeDSResult,
} from "@paykit/browser";
import { useCallback, useEffect, useRef, useState } from "react";

/** Where a {@link useThreeDS} flow is: not started, the customer in the challenge, decided, or broken. */
export type ThreeDSRunState = "idle" | "running" | "done" | "error";

/** The 3DS confirmation of a card payin as {@link useThreeDS} runs it. */
export interface ThreeDSRun {
  /**
   * Runs `handlePendingThreeDS(payin, data, options)` and resolves with the customer's decision. A second call
   * stops the first one (it rejects with `ABORTED`); so does unmounting the component, which also removes
   * the acquirer's challenge from the page.
   */
  run(
    payin: ThreeDSPayinResponse,
    data: ThreeDSChallengeData,
    options?: HandlePendingThreeDSOptions,
  ): Promise<ThreeDSResult>;
  /** `idle` until `run`, `running` during it, then `done` (see `result`) or `error` (see `error`). */
  state: ThreeDSRunState;
  /** The customer's decision once `done`: AUTHENTICATED, REJECTED or CANCELED; the payment's status is the server's. */
  result: ThreeDSResult | null;
  /** Why the flow broke, once `error`: usually a `PaykitThreeDSError` (check with `isPaykitThreeDSError`). */
  error: Error | null;
}

interface Snapshot {
  state: ThreeDSRunState;
  result: ThreeDSResult | null;
  error: Error | null;
}

const IDLE: Snapshot = { state: "idle", result: null, error: null };

/**
 * The bank's 3DS confirmation of a CREDIT_CARD payin answered PENDING_3DS (`handlePendingThreeDS` of
 * `@paykit/browser`), with its progress as React state; aborted when the component unmounts, so no challenge
 * outlives the page section that opened it.
 * @example
 * function ConfirmCard({ payin, data }: { payin: ThreeDSPayinResponse; data: ThreeDSChallengeData }) {
 *   const { run, state, result } = useThreeDS();
 *   if (state === "done" && result?.status !== "CANCELED") return <p>Confirmando o pagamento…</p>;
 *   return <button disabled={state === "running"} onClick={() => run(payin, data).catch(() => {})}>Confirmar</button>;
 * }
 */
export function useThreeDS(): ThreeDSRun {
  const [snapshot, setSnapshot] = useState<Snapshot>(IDLE);
  const current = useRef<AbortController | null>(null);

  useEffect(
    () => () => {
      current.current?.abort(new DOMException("The component running the 3DS flow unmounted.", "AbortError"));
      current.current = null;
    },
    [],
  );

  const run = useCallback(
    async (
      payin: ThreeDSPayinResponse,
      data: ThreeDSChallengeData,
      options: HandlePendingThreeDSOptions = {},
    ) => {
      current.current?.abort(new DOMException("A new 3DS flow replaced this one.", "AbortError"));
      const controller = new AbortController();
      current.current = controller;
      // The page's own signal stops the flow too.
      const outer = options.signal;
      const forward = () => controller.abort(outer?.reason);
      if (outer?.aborted) forward();
      else outer?.addEventListener("abort", forward);
      const mine = () => current.current === controller;
      setSnapshot({ state: "running", result: null, error: null });
      try {
        const result = await handlePendingThreeDS(payin, data, { ...options, signal: controller.signal });
        if (mine()) setSnapshot({ state: "done", result, error: null });
        return result;
      } catch (error) {
        if (mine()) setSnapshot({ state: "error", result: null, error: error as Error });
        throw error;
      } finally {
        outer?.removeEventListener("abort", forward);
        if (mine()) current.current = null;
      }
    },
    [],
  );

  return { run, ...snapshot };
}
