import { untilAborted } from "./abort.js";
import { isPaykitThreeDSError, PaykitThreeDSError } from "./errors.js";
import { findScript, type LoadScriptOptions, loadScript, scriptHref } from "./load-script.js";
import { notPendingReason } from "./pending.js";
import { refuseSecretKey } from "./secret-key.js";
import type {
  AcquirerThreeDS,
  ThreeDSChallengeData,
  ThreeDSEvent,
  ThreeDSPayinResponse,
  ThreeDSResult,
  ThreeDSStatus,
} from "./types.js";

/** How the 3DS challenge of a payin runs in the checkout page. */
export interface HandlePendingThreeDSOptions extends LoadScriptOptions {
  /** Where the challenge renders; without it the acquirer's script opens its own modal. */
  container?: HTMLElement;
  /**
   * How long the customer has for the challenge, in milliseconds, from its start to the decision. Past it the
   * flow rejects with `CHALLENGE_TIMEOUT` and the acquirer's challenge is removed. `Infinity`: no limit.
   * @default 600000 (10 minutes: shorter than the 15 minutes after which a PENDING_3DS payin expires)
   */
  challengeTimeoutMs?: number;
  /** Called at each step (`script-loading`, `script-loaded`, `challenge-opened`, `challenge-completed`), for the page's progress UI; a throw here never breaks the flow. */
  onEvent?: (event: ThreeDSEvent) => void;
}

const OUTCOMES: readonly unknown[] = ["AUTHENTICATED", "REJECTED", "CANCELED"] satisfies ThreeDSStatus[];

const sdk = () => (globalThis as { AcquirerThreeDS?: Partial<AcquirerThreeDS> }).AcquirerThreeDS;

/**
 * Completes the post-order 3DS challenge of a CREDIT_CARD payin answered PENDING_3DS: loads the acquirer's
 * script from `threeDSecureSdkUrl` (once per URL), opens the challenge, and resolves with the customer's
 * decision for every outcome the customer chose (`AUTHENTICATED`, `REJECTED`, `CANCELED`). It rejects with a
 * {@link PaykitThreeDSError} when the flow broke, when the acquirer has no open challenge for the payin
 * (`CHALLENGE_UNAVAILABLE`, `CHALLENGE_EXPIRED`), or after `challengeTimeoutMs`: it stays pending at most
 * `timeoutMs` + `challengeTimeoutMs`, and a challenge it gives up on (timeout, your `signal`) is removed
 * from the page. The payment's final status is
 * the server's: the merchant backend learns it by webhook or by GET /payin/{id}.
 * @example
 * const payin = await createPayinOnYourServer(order); // your backend calls POST /payin
 * if (payin.status === "PENDING_3DS") {
 *   const { status } = await handlePendingThreeDS(payin, { card, customer, amount: 10000, installments: 1 });
 *   if (status === "CANCELED") showRetryButton();
 *   else await waitForYourServerToConfirm(payin.id); // webhook or polling, never the browser's word
 * }
 */
export async function handlePendingThreeDS(
  payin: ThreeDSPayinResponse,
  data: ThreeDSChallengeData,
  options: HandlePendingThreeDSOptions = {},
): Promise<ThreeDSResult> {
  refuseSecretKey(options);
  const reason = notPendingReason(payin);
  if (reason) throw new PaykitThreeDSError("NOT_PENDING", reason);
  const {
    id: payinId,
    threeDSecureTransactionId: transactionId,
    threeDSecureSession: session,
  } = payin as Required<ThreeDSPayinResponse>;
  const url = payin.threeDSecureSdkUrl as string;
  const { container, onEvent, signal, challengeTimeoutMs: limitMs = 600_000 } = options;
  const emit = (type: ThreeDSEvent["type"], status?: ThreeDSStatus) => {
    try {
      onEvent?.({ type, payinId, transactionId, ...(status && { status }) });
    } catch (error) {
      // The page's UI callback must not turn the customer's decision into a failure: report it apart.
      setTimeout(() => {
        throw error;
      });
    }
  };

  // A page that already ran this script (its own tag, or an earlier payin) needs no second load. Outside a
  // browser the SDK is missing, so loadScript answers SCRIPT_LOAD_FAILED ("needs a browser page").
  if (!(sdk() && findScript(scriptHref(url)))) {
    emit("script-loading");
    await loadScript(url, options);
  }
  emit("script-loaded");
  const acquirer = sdk();
  if (typeof acquirer?.init !== "function") {
    throw new PaykitThreeDSError("SDK_MISSING", `3DS script ${url} defines no AcquirerThreeDS.init.`);
  }
  // Aborted when the flow gives up on the challenge, so that the acquirer's script removes it from the page.
  const stop = new AbortController();
  let status: ThreeDSStatus;
  try {
    ({ outcome: status } = await untilAborted(
      // Not started when the page's signal already aborted: no challenge opens.
      async () => {
        const started = await acquirer.init!({ session });
        emit("challenge-opened");
        // A session without challenge() throws here: CHALLENGE_FAILED, an answer outside the contract.
        return started.challenge({
          ...data,
          transactionId,
          signal: stop.signal,
          ...(container && { container }),
        });
      },
      signal,
      limitMs,
      new PaykitThreeDSError(
        "CHALLENGE_TIMEOUT",
        `3DS challenge not ended within challengeTimeoutMs (${limitMs} ms).`,
      ),
    ));
    // Thrown to the catch below, which reports it as CHALLENGE_FAILED with the odd outcome as `cause`.
    if (!OUTCOMES.includes(status)) throw status;
  } catch (cause) {
    stop.abort(cause);
    if (isPaykitThreeDSError(cause)) throw cause;
    // The acquirer's own code for a challenge it no longer has (docs/decisions/acquirer-contract-signal.md); its
    // text is not echoed: an acquirer's message may carry card data.
    const code = (cause as { code?: unknown } | null)?.code;
    const closed = code === "CHALLENGE_UNAVAILABLE" || code === "CHALLENGE_EXPIRED";
    throw new PaykitThreeDSError(
      closed ? code : "CHALLENGE_FAILED",
      closed
        ? `No open 3DS challenge (${code}): read the payin's status from your backend.`
        : "The 3DS challenge failed.",
      { cause },
    );
  }
  emit("challenge-completed", status);
  return { status, payinId, transactionId };
}
