import { PaykitApiError } from "../errors/api-error.js";
import { apiErrorFromResponse } from "../errors/from-response.js";
import { sentences } from "../errors/message.js";
import type { PaykitError } from "../errors/paykit-error.js";
import { causeText, PaykitConnectionError, PaykitTimeoutError } from "../errors/transport-error.js";
import type { NetworkFailure } from "./network-error.js";
import { parseRetryAfter } from "./retry-policy.js";
import type { AttemptResult } from "./transport.js";

/** The facts of a failed call that every final error names. */
export interface FailedCall {
  /** Method and path, e.g. `POST /payout`. */
  request: string;
  /** The per-attempt time limit, in ms. */
  timeoutMs: number;
  /** How many attempts were sent. */
  attempts: number;
  /** What the failure means for a creation (from `Endpoint.explain`), or undefined. */
  note: string | undefined;
  /** The id of the last attempt sent. */
  requestId: string | undefined;
}

const NETWORK_FAILURES: Record<NetworkFailure["code"], string> = {
  CONNECTION_REFUSED: "the connection was refused (is baseUrl right and the service up?)",
  DNS_FAILURE: "the host name did not resolve (check baseUrl)",
  CONNECTION_RESET: "the connection was cut before the answer arrived",
  NETWORK_ERROR: "the network failed before the answer arrived",
};

/** The error a call reports after its last attempt failed. */
export function finalError(
  call: FailedCall,
  result: Exclude<AttemptResult, { kind: "aborted" }>,
): PaykitError {
  const { request, attempts, note, requestId } = call;
  const after = attempts > 1 ? ` after ${attempts} attempts` : "";
  switch (result.kind) {
    case "timeout":
      return new PaykitTimeoutError(
        request,
        call.timeoutMs,
        sentences(
          `No answer to ${request} within ${call.timeoutMs} ms${attempts > 1 ? ` (after ${attempts} attempts)` : ""}`,
          note ?? "Try again later or raise timeoutMs",
        ),
        requestId,
      );
    case "network":
      return new PaykitConnectionError(
        result.failure.code,
        request,
        sentences(
          `${request} failed${after}: ${NETWORK_FAILURES[result.failure.code]}`,
          `Cause: ${causeText(result.cause)}`,
          note,
        ),
        result.cause,
        requestId,
      );
    case "response": {
      const retryAfterMs = parseRetryAfter(result.headers.get("retry-after"));
      if (result.status < 200 || result.status > 299) {
        return apiErrorFromResponse(result.status, result.headers, result.text, request, retryAfterMs, {
          attempts,
          requestId,
          ...(note === undefined ? {} : { note }),
        });
      }
      return new PaykitApiError(
        {
          status: result.status,
          code: "INVALID_RESPONSE",
          message: "The answer is not a JSON object",
          body: result.text.slice(0, 65_536),
          headers: result.headers,
          request,
          retryAfterMs,
          attempts,
          requestId,
          ...(note === undefined ? {} : { note }),
        },
        "Something other than the service answered: check baseUrl (a proxy?)",
      );
    }
  }
}

/** The error of a call the caller's signal stopped; `requestId` is the last attempt sent, if any was. */
export function abortedError(
  request: string,
  reason: unknown,
  note: string | undefined,
  requestId: string | undefined,
): PaykitError {
  return new PaykitConnectionError(
    "ABORTED",
    request,
    sentences(`${request} was aborted by the caller's signal`, note),
    reason,
    requestId,
  );
}
