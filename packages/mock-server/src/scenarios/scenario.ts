// The shape of a trigger scenario (`paykit-mock trigger`): data, not code. A scenario names the
// merchant API requests that create its one payin or payout and the control calls, by their name in
// the control table (control/table.ts), that move it; the runner (run.ts) sends them through the real
// API and a `MockControl`, so no route is written twice.
import type {
  KnownPayinStatus,
  KnownPayoutStatus,
  PaymentMethod,
  PayoutCreateParams,
} from "@paykit/contract";
import type { MockControl } from "../control/mock-control.js";
import type { PayoutApproval } from "../domain/accounts.js";
import type { PayinCreateParamsFor } from "../domain/samples.js";

/** The control calls that move a payin, by their name in the control table. */
export type PayinCallName = "payPayin" | "authorizePayin" | "expirePayin" | "completeThreeDS";

/** The control calls that move a payout, by their name in the control table. */
export type PayoutCallName =
  | "approvePayout"
  | "rejectPayout"
  | "advancePayout"
  | "failPayout"
  | "refundPayout";

/** A control call's arguments after the id of the payin or payout it moves. */
export type ArgsAfterId<K extends PayinCallName | PayoutCallName> = MockControl[K] extends (
  id: string,
  ...rest: infer R
) => Promise<unknown>
  ? R
  : never;

/** `POST /payin` with `samplePayin(method, overrides)`: creates the scenario's payin. */
export interface CreatePayinStep {
  readonly create: "payin";
  readonly method: PaymentMethod;
  /** Fields that replace the sample's (a magic card number). */
  readonly overrides?: Partial<PayinCreateParamsFor<PaymentMethod>>;
  /** The status the payin is created in. */
  readonly to: KnownPayinStatus;
}

/** `POST /payout` with `samplePayout(overrides)`: creates the scenario's payout. */
export interface CreatePayoutStep {
  readonly create: "payout";
  /** Fields that replace the sample's (a magic PIX key). */
  readonly overrides?: Partial<PayoutCreateParams>;
  /** The status the payout is created in. */
  readonly to: KnownPayoutStatus;
}

/** A control call on the scenario's payin, and the status it leaves the payin in. */
export type PayinCallStep = {
  [K in PayinCallName]: { readonly call: K; readonly args: ArgsAfterId<K>; readonly to: KnownPayinStatus };
}[PayinCallName];

/** A control call on the scenario's payout, and the status it leaves the payout in. */
export type PayoutCallStep = {
  [K in PayoutCallName]: { readonly call: K; readonly args: ArgsAfterId<K>; readonly to: KnownPayoutStatus };
}[PayoutCallName];

/** One step of a scenario: a merchant API request or a control call, and the status it must leave. */
export type TriggerStep = CreatePayinStep | CreatePayoutStep | PayinCallStep | PayoutCallStep;

/** The choice of `--outcome` of a scenario that asks the customer something (the 3DS challenge). */
export type TriggerOutcome = "approve" | "reject";

/**
 * One trigger scenario: a name (several entries share one when `--method` or `--outcome` chooses
 * between them; the first of a name is its default), what it does in one line, what the account must
 * be like, its steps, and where it ends: the status of its resource and the webhook events it sends.
 */
export interface TriggerScenario {
  /** `payin.approved`, `payout.failed`, … */
  readonly name: string;
  /** The payment method this entry is for (`--method`). */
  readonly method?: PaymentMethod;
  /** The customer's answer this entry is for (`--outcome`). */
  readonly outcome?: TriggerOutcome;
  /** What happens, in one line. */
  readonly description: string;
  /** Settings the account needs: a fresh account is opened with them, an existing one must have them. */
  readonly account?: { readonly payoutApproval: PayoutApproval };
  readonly steps: readonly TriggerStep[];
  readonly expect: {
    /** The payin's status at the end, read back through `GET /payin/{id}`. */
    readonly payin?: KnownPayinStatus;
    /** The payout's status at the end, read back through `GET /payout?referenceId=`. */
    readonly payout?: KnownPayoutStatus;
    /** The statuses of the webhook events it sends, in order (none without a `webhookUrl`). */
    readonly webhooks: readonly (KnownPayinStatus | KnownPayoutStatus)[];
  };
}
