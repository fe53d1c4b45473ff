import type * as Contract from "@paykit/contract";
import type { RequestOptions } from "./config.js";
import type { PaykitHooks } from "./hooks.js";
import type { Fate } from "./outcome.js";
import type { RetryClass } from "./retry-policy.js";
import type { Operation, PaykitAttributes } from "./telemetry.js";

/** The contract module, loaded on the first request. */
export type ContractModule = typeof Contract;

/** The part of a zod schema request validation needs. */
export type RequestSchema = Parameters<typeof Contract.validate>[0];

/** The part of a zod schema the core needs to read an answer: the contract's response schemas. */
export interface ResponseSchema<T> {
  safeParse(
    input: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: Parameters<typeof Contract.issuesToDetails>[0] } };
}

/** A query string's values; undefined ones are left out. */
export type Query = Readonly<Record<string, string | number | undefined>>;

/** What a reconciliation gets besides the call's input. */
export interface ReconcileContext {
  /** What made the attempt ambiguous: `timeout`, `network`, `status 500`, `unreadable`. */
  reason: string;
  /** The id of the ambiguous attempt. */
  requestId: string;
  /** The SDK call's operation, parent of the lookup's span. */
  operation: Operation;
  /** The caller's signal, timeout and retries, for the lookup's own requests. */
  options: RequestOptions;
  /** The client's hooks. */
  hooks: PaykitHooks;
  /** Calls another endpoint through the same client, as part of `operation`. */
  send<I, O, A>(
    endpoint: Endpoint<I, O, A>,
    input: I,
    options: RequestOptions,
    operation: Operation,
  ): Promise<O>;
}

/**
 * How a creation finds what an ambiguous attempt (timed out, cut, answered 5xx) may have created,
 * before it is sent again: the payout's lookup by referenceId.
 */
export interface Reconciler<In, Out> {
  /** The record the lost attempt created, or null when none exists; throws when the lookup itself failed. */
  find(input: In, context: ReconcileContext): Promise<Out | null>;
  /**
   * Whether an error answer to a resend means that an earlier, ambiguous attempt did take effect
   * (a payout's "referenceId already used"); the record is then looked up instead of reported missing.
   */
  duplicate?(status: number, body: unknown): boolean;
}

/**
 * One call of the service's API, described once by its resource: the core sends it, reads and
 * checks the answer, traces it and applies the retry policy, knowing nothing else about it.
 */
export interface Endpoint<In, Out, Answer = Out> {
  /** The SDK call's span name, e.g. `paykit.payins.retrieve`. */
  name: string;
  method: "GET" | "POST";
  /** The route with its parameters named (OpenTelemetry's `url.template`), e.g. `/payin/{id}`. */
  template: string;
  /** How the call may be sent again after a failure (`RETRY_POLICY`). */
  retry: RetryClass;
  /** The path for this input, relative to baseUrl; ids go through `path` so they stay one segment. */
  path(input: In): string;
  /** The query of a GET. */
  query?(input: In): Query | undefined;
  /** The schema the input must match before anything is sent (unless `validateRequests` is off). A POST sends the input as its JSON body. */
  request?(contract: ContractModule): RequestSchema;
  /** The schema of a 2xx answer. */
  response(contract: ContractModule, input: In): ResponseSchema<Answer>;
  /** The method's result from the parsed answer; the answer itself when absent. */
  result?(answer: Answer, input: In): Out;
  /** Span attributes known before sending (never a secret or a card field). */
  attributes(input: In): PaykitAttributes;
  /** Span attributes learned from the result. */
  learned?(output: Out): PaykitAttributes;
  /** What a failed creation's {@link Fate} means for the caller, in the resource's own words; undefined adds nothing. */
  explain?(fate: Fate, input: In): string | undefined;
  /** How an ambiguous failure is resolved before sending again (`create-payout` calls). */
  reconcile?: Reconciler<In, Out>;
}
