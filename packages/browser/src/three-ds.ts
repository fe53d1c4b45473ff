import { abortError, untilAborted } from "./abort.js";
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
  /** Called at each step (`script-loading`, `script-loaded`, `challenge-opened`, `challenge-completed`), for the page's progress UI; a throw here never breaks the flow. */
  onEvent?: (event: ThreeDSEvent) => void;
}

const OUTCOMES: readonly unknown[] = ["AUTHENTICATED", "REJECTED", "CANCELED"] satisfies ThreeDSStatus[];

const sdk = () => (globalThis as { AcquirerThreeDS?: Partial<AcquirerThreeDS> }).AcquirerThreeDS;

/**
 * Completes the post-order 3DS challenge of a CREDIT_CARD payin answered PENDING_3DS: loads the acquirer's
 * script from `threeDSecureSdkUrl` (once per URL), opens the challenge, and resolves with the customer's
 * decision for every outcome the customer chose (`AUTHENTICATED`, `REJECTED`, `CANCELED`). It rejects with a
 * {@link PaykitThreeDSError} only when the flow broke. The payment's final status is the server's: the
 * merchant backend learns it by webhook or by GET /payin/{id}.
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
  const { container, onEvent, signal } = options;
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

  // A page that already ran this script (its own tag, or an earlier payin) needs no second load.
  if (!(sdk() && typeof document !== "undefined" && findScript(scriptHref(url)))) {
    emit("script-loading");
    await loadScript(url, options);
  }
  emit("script-loaded");
  const acquirer = sdk();
  if (typeof acquirer?.init !== "function") {
    throw new PaykitThreeDSError(
      "SDK_MISSING",
      `3DS script ${url} defines no AcquirerThreeDS.init: not the acquirer's 3DS SDK.`,
    );
  }

  if (signal?.aborted) throw abortError(signal);
  const { card, customer, amount, installments } = data;
  const challenge = async () => {
    const started = await acquirer.init!({ session });
    if (typeof started?.challenge !== "function") {
      throw new PaykitThreeDSError(
        "SDK_MISSING",
        "The AcquirerThreeDS session has no challenge(): not the acquirer's 3DS SDK.",
      );
    }
    emit("challenge-opened");
    return started.challenge({
      transactionId,
      card,
      customer,
      amount,
      installments,
      ...(container && { container }),
    });
  };
  let outcome: unknown;
  try {
    outcome = (await untilAborted(challenge(), signal))?.outcome;
  } catch (cause) {
    if (isPaykitThreeDSError(cause)) throw cause;
    throw new PaykitThreeDSError(
      "CHALLENGE_FAILED",
      "The 3DS challenge failed before the customer decided.",
      {
        cause,
      },
    );
  }
  if (!OUTCOMES.includes(outcome)) {
    throw new PaykitThreeDSError("CHALLENGE_FAILED", "The 3DS challenge answered an unknown outcome.");
  }
  const status = outcome as ThreeDSStatus;
  emit("challenge-completed", status);
  return { status, payinId, transactionId };
}
