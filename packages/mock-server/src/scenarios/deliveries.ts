// Where a trigger scenario's webhooks go and what became of them: to `--webhook-url`, or, with none, to
// the account's `paykit-mock listen` when one takes the scenario's events (as `stripe listen` and
// `stripe trigger` work together), and afterwards the deliveries of the run's resource as the delivery
// log shows them. See docs/decisions/trigger-with-listen.md.
import type { MockControl } from "../control/mock-control.js";
import { eventMatches, eventName } from "../domain/listeners.js";
import type { TriggerScenario } from "./scenario.js";

/**
 * The `webhookUrl` of a resource a run makes for the account's listener: while the listener takes the
 * account's deliveries nothing is sent there, and if it stops first the attempts fail at once (a
 * `.invalid` name never resolves) rather than reach anyone.
 */
export const LISTENER_WEBHOOK_URL = "https://listener.paykit-mock.invalid/webhooks";

/** A webhook delivery of a resource the run made or moved, as the delivery log shows it. */
export interface TriggerDelivery {
  /** Delivery id (`wh_…`), for `redeliverWebhook`. */
  id: string;
  /** The `webhook-id` header, the same on every retry. */
  webhookId: string;
  resource: "payin" | "payout";
  resourceId: string;
  /** The status the event reports. */
  status: string;
  /** `pending` (retries to come), `delivered` (answered 2xx) or `failed` (attempts spent). */
  state: "pending" | "delivered" | "failed";
  attempts: number;
  /** The receiver's status code at the last attempt; null without an answer. */
  answer: number | null;
  /** Why the last attempt got no answer (timeout, connection refused); null otherwise. */
  error: string | null;
}

/** The resource a scenario plays: the kind its first step creates. */
export function resourceOf(scenario: TriggerScenario): "payin" | "payout" {
  const [first] = scenario.steps;
  return first !== undefined && "create" in first ? first.create : "payin";
}

/**
 * Whether the account's `paykit-mock listen` takes every event the scenario sends, so that its
 * webhooks can go there; `note` says why not when one is attached and takes only some.
 */
export async function listenerFor(
  control: MockControl,
  accountId: string,
  scenario: TriggerScenario,
): Promise<{ takes: boolean; note: string | null }> {
  const listener = await control.listener(accountId);
  if (!listener.attached) return { takes: false, note: null };
  const events = scenario.expect.webhooks.map((status) => eventName(resourceOf(scenario), status));
  const missed = events.filter((event) => !eventMatches(listener.events, event));
  if (missed.length === 0) return { takes: true, note: null };
  return {
    takes: false,
    note:
      `a paykit-mock listen is attached to the account but takes only ${listener.events?.join(", ")}, ` +
      `not ${missed.join(", ")}: give --webhook-url, or listen without --events`,
  };
}

/** The ids of the resource's deliveries in the log now (those a run on an existing resource did not cause). */
export async function deliveryIdsOf(
  control: MockControl,
  accountId: string,
  resourceId: string,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const delivery of control.listAll("webhooks", { accountId, resourceId, limit: 1000 }))
    ids.add(delivery.id);
  return ids;
}

/**
 * The deliveries of the resource that are not in `before`, oldest first: every one in flight answered
 * first (a step the mock made on its own was not awaited), then read from the account's delivery log.
 */
export async function deliveriesOf(
  control: MockControl,
  accountId: string,
  resourceId: string,
  before: ReadonlySet<string> = new Set(),
): Promise<TriggerDelivery[]> {
  await control.flushWebhooks(accountId);
  const found: TriggerDelivery[] = [];
  for await (const delivery of control.listAll("webhooks", { accountId, resourceId, limit: 1000 })) {
    if (before.has(delivery.id)) continue;
    const last = delivery.attempts.at(-1);
    found.push({
      id: delivery.id,
      webhookId: delivery.webhookId,
      resource: delivery.resource,
      resourceId: delivery.resourceId,
      status: delivery.status,
      state: delivery.state,
      attempts: delivery.attempts.length,
      answer: last?.statusCode ?? null,
      error: last?.error ?? null,
    });
  }
  return found;
}

/**
 * What is wrong with the events sent, if anything: the stated ones must come in order among them (a
 * duplicate delivery of an account in that test mode is extra).
 */
export function webhooksProblem(
  resourceId: string,
  sent: readonly string[],
  expected: readonly string[],
): string | null {
  let at = 0;
  for (const status of sent) if (status === expected[at]) at += 1;
  return at < expected.length
    ? `the webhooks of ${resourceId} are [${sent.join(", ")}], not [${expected.join(", ")}]`
    : null;
}
