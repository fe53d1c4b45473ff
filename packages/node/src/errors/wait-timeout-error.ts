import type { PayinStatus } from "@paykit/contract/rules";
import { PaykitError, type PaykitErrorJSON } from "./paykit-error.js";

/**
 * `payins.waitForFinal` gave up: the payin was not final within `timeoutMs`. Nothing failed and
 * nothing was lost: the payin may still become final (a PIX can be paid until it expires), so wait
 * again, or let the webhook tell you.
 */
export class PaymentWaitTimeoutError extends PaykitError {
  override readonly name = "PaymentWaitTimeoutError";
  declare readonly code: "WAIT_TIMEOUT";
  /** The payin waited for (`pi_…`). */
  readonly payinId: string;
  /** The wait's time limit that ran out, in ms. */
  readonly timeoutMs: number;
  /** The last status read from the API, or undefined when no read succeeded. */
  readonly lastStatus: PayinStatus | undefined;

  constructor(
    payinId: string,
    timeoutMs: number,
    lastStatus: PayinStatus | undefined,
    requestId?: string | undefined,
  ) {
    const seen = lastStatus === undefined ? "its status could not be read" : `it is still ${lastStatus}`;
    super(
      `Payin ${payinId} was not final after ${timeoutMs} ms (${seen}). It may still become final: wait again or rely on the webhook.`,
      { code: "WAIT_TIMEOUT", retryable: true, requestId },
    );
    this.payinId = payinId;
    this.timeoutMs = timeoutMs;
    this.lastStatus = lastStatus;
  }

  override toJSON(): PaykitErrorJSON {
    return {
      ...super.toJSON(),
      payinId: this.payinId,
      timeoutMs: this.timeoutMs,
      lastStatus: this.lastStatus,
    };
  }
}
