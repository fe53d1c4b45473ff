// `paykit-mock trigger --payin <id>` / `--payout <id>`: a scenario drives a payin or payout the app
// made itself instead of creating one. It goes on from the resource's status: the steps after the one
// that leaves that status; a status no step of the scenario leaves is refused, naming the ones it can
// start from, before anything moves (docs/decisions/trigger-with-listen.md).
import type { PaymentMethod } from "@paykit/contract";
import type { MockControl } from "../control/mock-control.js";
import type { MerchantApi } from "./merchant-api.js";
import { MerchantApiError } from "./merchant-api.js";
import type { TriggerScenario, TriggerStep } from "./scenario.js";
import { TriggerRefusedError } from "./target.js";

/** An existing payin or payout a run drives: its id, reference, status, and a payin's method. */
export interface ExistingResource {
  resource: "payin" | "payout";
  id: string;
  referenceId: string;
  status: string;
  method: PaymentMethod | null;
}

/** The payin with this id, read through the merchant API with the account's keys. */
export async function existingPayin(api: MerchantApi, id: string): Promise<ExistingResource> {
  try {
    const payin = await api.payin(id);
    return {
      resource: "payin",
      id: payin.id,
      referenceId: payin.referenceId ?? "",
      status: payin.status,
      method: payin.paymentMethod as PaymentMethod,
    };
  } catch (error) {
    if (error instanceof MerchantApiError && error.status === 404)
      throw new TriggerRefusedError(`--payin ${id}: the account has no payin with this id`);
    throw error;
  }
}

/** The payout with this id among the account's, read through the control API (the service has no lookup by id). */
export async function existingPayout(
  control: MockControl,
  accountId: string,
  id: string,
): Promise<ExistingResource> {
  for await (const payout of control.listAll("payouts", { accountId, limit: 1000 }))
    if (payout.id === id)
      return { resource: "payout", id, referenceId: payout.referenceId, status: payout.status, method: null };
  throw new TriggerRefusedError(`--payout ${id}: the account has no payout with this id`);
}

/**
 * The steps of `scenario` still to run on `existing`: those after the step that leaves its status. A
 * {@link TriggerRefusedError} when the scenario is about the other kind of resource, when the resource
 * ended already as the scenario states, or when no step leaves its status.
 */
export function stepsAfter(scenario: TriggerScenario, existing: ExistingResource): TriggerStep[] {
  const [create] = scenario.steps;
  const kind = create !== undefined && "create" in create ? create.create : undefined;
  const flag = `--${existing.resource} ${existing.id}`;
  if (kind !== existing.resource)
    throw new TriggerRefusedError(
      `${flag}: ${scenario.name} plays a ${kind}; drive a ${kind} with --${kind} <id>`,
    );
  const at = scenario.steps.findIndex((step) => step.to === existing.status);
  const rest = at < 0 ? [] : scenario.steps.slice(at + 1);
  if (rest.length > 0) return rest;
  const from = scenario.steps.slice(0, -1).map((step) => step.to);
  const ended = at === scenario.steps.length - 1;
  if (from.length === 0 && !ended)
    throw new TriggerRefusedError(
      `${flag}: ${label(scenario)} only creates its ${kind} (its outcome is the answer to the creation): it has no step for one that exists`,
    );
  throw new TriggerRefusedError(
    ended
      ? `${flag} is ${existing.status} already: ${label(scenario)} has nothing left to do with it`
      : `${flag} is ${existing.status}: no step of ${label(scenario)} applies to a ${existing.resource} in that status ` +
          `(it goes on from ${[...new Set(from)].join(" or ")})`,
  );
}

function label(scenario: TriggerScenario): string {
  return scenario.method !== undefined ? `${scenario.name} --method ${scenario.method}` : scenario.name;
}
