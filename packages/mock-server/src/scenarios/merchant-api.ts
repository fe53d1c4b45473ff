// The four merchant API requests a trigger scenario makes, as a merchant's server makes them: Basic
// auth with the account's keys, bodies and answers read with the contract's schemas.
import {
  ErrorBody,
  Payin,
  PayinCreated,
  type PayinCreateParams,
  Payout,
  type PayoutCreateParams,
  PayoutList,
  validate,
} from "@paykit/contract";
import type * as z from "zod/mini";
import { basicAuthorization } from "../control/http-client.js";
import type { TriggerKeys } from "./target.js";

/** A merchant API request the mock refused: its status and the error body's code and message. */
export class MerchantApiError extends Error {
  override readonly name = "MerchantApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The merchant API of one account of a mock. */
export interface MerchantApi {
  createPayin(params: PayinCreateParams): Promise<PayinCreated>;
  createPayout(params: PayoutCreateParams): Promise<Payout>;
  payin(id: string): Promise<Payin>;
  /** The account's payout with this `referenceId` (`GET /payout?referenceId=`), if any. */
  payoutByReference(referenceId: string): Promise<Payout | undefined>;
}

/** The merchant API of the account whose keys are given, at the mock's base URL. */
export function merchantApi(url: string, keys: TriggerKeys, doFetch: typeof fetch): MerchantApi {
  const authorization = basicAuthorization(keys);
  async function send<S extends z.ZodMiniType>(
    schema: S,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<z.output<S>> {
    const response = await doFetch(`${url}${path}`, {
      method,
      headers: {
        authorization,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const error = validate(ErrorBody, json);
      throw error.success
        ? new MerchantApiError(response.status, error.data.code, error.data.message)
        : new MerchantApiError(
            response.status,
            "UNKNOWN",
            `answered ${response.status} without an error body`,
          );
    }
    const read = validate(schema, json);
    if (!read.success) throw new MerchantApiError(response.status, "UNEXPECTED_ANSWER", read.message);
    return read.data;
  }
  return {
    createPayin: (params) => send(PayinCreated, "POST", "/payin", params),
    createPayout: (params) => send(Payout, "POST", "/payout", params),
    payin: (id) => send(Payin, "GET", `/payin/${encodeURIComponent(id)}`),
    payoutByReference: async (referenceId) => {
      const list = await send(PayoutList, "GET", `/payout?${new URLSearchParams({ referenceId })}`);
      return list.data.find((payout) => payout.referenceId === referenceId);
    },
  };
}
