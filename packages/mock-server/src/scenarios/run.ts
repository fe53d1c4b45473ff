// Runs a trigger scenario against a running mock: the account (the caller's, or a fresh one), its
// payin or payout (created from the sample request with the caller's fields, or an existing one the
// scenario goes on with), each step through the merchant API or the control API, the end states read
// back through the merchant API, and the webhook deliveries of the resource from the delivery log.
import { type KnownPayoutStatus, PAYOUT_TRANSITIONS, type PaymentMethod } from "@paykit/contract";
import { type MockControl, MockControlError } from "../control/mock-control.js";
import { accountFor, type RunAccount } from "./account.js";
import {
  deliveriesOf,
  deliveryIdsOf,
  LISTENER_WEBHOOK_URL,
  listenerFor,
  resourceOf,
  type TriggerDelivery,
  webhooksProblem,
} from "./deliveries.js";
import { type ExistingResource, existingPayin, existingPayout, stepsAfter } from "./existing.js";
import { type MerchantApi, MerchantApiError, merchantApi } from "./merchant-api.js";
import { payinRequest, payoutRequest, type RequestChoices } from "./request.js";
import type { TriggerOutcome, TriggerScenario, TriggerStep } from "./scenario.js";
import { TRIGGER_SCENARIOS } from "./scenarios.js";
import { assertMock, refuseLiveKeys, type TriggerKeys, TriggerRefusedError } from "./target.js";

export { LISTENER_WEBHOOK_URL, type TriggerDelivery } from "./deliveries.js";

/** The local mock `paykit-mock` serves by default. */
export const DEFAULT_MOCK_URL = "http://127.0.0.1:4010";

/** Options of {@link runTriggerScenario}. */
export interface TriggerOptions {
  /** The mock's base URL. @default "http://127.0.0.1:4010" */
  url?: string;
  /** The keys of the account to use; without them a fresh account is opened (`POST /_mock/accounts`). */
  keys?: TriggerKeys;
  /** The mock's `--admin-token`, when it has one and the account's own keys do not authorize the control calls. */
  adminToken?: string;
  /**
   * Where the payin or payout sends its webhooks. Without it, to the account's `paykit-mock listen`
   * when one takes the scenario's events; else it sends none.
   */
  webhookUrl?: string;
  /** The amount in cents of the payin or payout created, instead of the sample's (`--amount`). */
  amount?: number;
  /** The `referenceId` of the payin or payout created (`--reference-id`). */
  referenceId?: string;
  /**
   * Fields merged into the sample request (`--data <file.json>`): objects field by field, any other
   * value replaces; checked with the contract's schema, a mistake refused naming its field. The
   * scenario's own fields (its magic card or PIX key) cannot be changed.
   */
  data?: Record<string, unknown>;
  /**
   * Drive this payin of the account instead of creating one (`--payin`): the scenario goes on from its
   * status (a PENDING PIX payin and `payin.approved` pays it); refused when no step applies to it.
   */
  payinId?: string;
  /** Drive this payout of the account instead of creating one (`--payout`), as {@link payinId}. */
  payoutId?: string;
  /** The signing secret (`whsec_…`) of a fresh account, so a receiver can verify its deliveries; never printed. */
  webhookSecret?: string;
  /** Which entry of the scenario: the payment method (`--method`). */
  method?: PaymentMethod;
  /** Which entry of the scenario: the customer's answer (`--outcome`). */
  outcome?: TriggerOutcome;
  /** How long to wait for a payout the mock moves on its own, in ms. @default 30000 */
  waitMs?: number;
  /** HTTP client. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** What one step did: the request or control call, the resource it made or moved, its status after. */
export interface TriggerStepResult {
  /** `POST /payin`, `POST /payout`, or the control call's name (`payPayin`). */
  step: string;
  resource: "payin" | "payout";
  id: string;
  status: string;
  /** The mock made this step itself (an account whose payouts move on their own): waited for, not called. */
  byMock: boolean;
}

/** The outcome of a run: what it did, where it ended, and the deliveries it caused. No secret is in it. */
export interface TriggerRun {
  scenario: string;
  method: PaymentMethod | null;
  outcome: TriggerOutcome | null;
  url: string;
  account: RunAccount;
  /** The payin or payout driven, when it existed before the run (`--payin`, `--payout`): its status then. */
  existing: { resource: "payin" | "payout"; id: string; status: string } | null;
  /** The `webhookUrl` the run gave the resource it created; null when it gave none, or created none. */
  webhookUrl: string | null;
  /** Its webhooks went to the account's `paykit-mock listen` (no `webhookUrl` was asked for). */
  listener: boolean;
  /** What the run would have you know besides its steps (a listener that takes other events). */
  notes: string[];
  steps: TriggerStepResult[];
  expected: TriggerScenario["expect"];
  /** What did not go or end as the scenario states; empty when it did. */
  problems: string[];
  ok: boolean;
  deliveries: TriggerDelivery[];
}

/** The distinct scenario names, in list order. */
export function triggerScenarioNames(): string[] {
  return [...new Set(TRIGGER_SCENARIOS.map((scenario) => scenario.name))];
}

/**
 * The scenario entry `name` names with its `--method` or `--outcome` (the first entry of the name
 * without one). Throws a {@link TriggerRefusedError} listing what exists when there is no such entry.
 */
export function findTriggerScenario(
  name: string,
  choice: { method?: PaymentMethod; outcome?: TriggerOutcome } = {},
): TriggerScenario {
  const entries = TRIGGER_SCENARIOS.filter((scenario) => scenario.name === name);
  if (entries.length === 0)
    throw new TriggerRefusedError(
      `unknown scenario "${name}"; the scenarios are: ${triggerScenarioNames().join(", ")}`,
    );
  for (const option of ["method", "outcome"] as const) {
    const wanted = choice[option];
    if (wanted === undefined) continue;
    const offered = entries.flatMap((entry) => (entry[option] === undefined ? [] : [entry[option]]));
    if (offered.length === 0) throw new TriggerRefusedError(`${name} takes no --${option}`);
    if (!offered.includes(wanted as never))
      throw new TriggerRefusedError(`${name} takes --${option} ${offered.join("|")}, not ${wanted}`);
  }
  const found = entries.find(
    (entry) =>
      (choice.method === undefined || entry.method === choice.method) &&
      (choice.outcome === undefined || entry.outcome === choice.outcome),
  );
  return found as TriggerScenario;
}

/**
 * Plays a trigger scenario on a running mock (`paykit-mock trigger` in code): creates its payin or
 * payout through the merchant API with sample data, moves it with the control calls the scenario
 * names, reads where it ended back through the merchant API, and collects the webhook deliveries it
 * caused (each moving call waits for them). A run that ends elsewhere than the scenario states
 * resolves with `ok: false` and the `problems`; one refused before it sent anything (live keys, a URL
 * that is no mock, an unknown scenario, an account unfit for it) rejects with a
 * {@link TriggerRefusedError}.
 *
 * @example
 * const run = await runTriggerScenario("payin.approved", { url, keys, method: "BOLETO", webhookUrl });
 * console.log(run.ok, run.steps.map((s) => s.status), run.deliveries[0]?.answer);
 */
export async function runTriggerScenario(name: string, options: TriggerOptions = {}): Promise<TriggerRun> {
  let scenario = findTriggerScenario(name, { method: options.method, outcome: options.outcome });
  refuseLiveKeys(options.keys);
  refuseContradictions(options, scenario);
  const choices: RequestChoices = {
    amount: options.amount,
    referenceId: options.referenceId,
    data: options.data,
    webhookUrl: options.webhookUrl,
  };
  // a request the mock would refuse is refused here, naming its field, before anything is sent
  const driving = options.payinId !== undefined || options.payoutId !== undefined;
  if (!driving) requestOf(scenario.steps[0] as TriggerStep, choices);
  const url = (options.url ?? DEFAULT_MOCK_URL).replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  await assertMock(url, doFetch);
  const { account, keys, control, autoAdvance } = await accountFor(scenario, url, options, doFetch);
  const api = merchantApi(url, keys, doFetch);
  const made = { id: "", referenceId: "" };
  let steps = scenario.steps;
  let existing: ExistingResource | null = null;
  let before: ReadonlySet<string> = new Set();
  if (driving) {
    existing =
      options.payinId !== undefined
        ? await existingPayin(api, options.payinId)
        : await existingPayout(control, account.accountId, options.payoutId as string);
    scenario = entryFor(scenario, existing, options.method);
    steps = stepsAfter(scenario, existing);
    made.id = existing.id;
    made.referenceId = existing.referenceId;
    before = await deliveryIdsOf(control, account.accountId, existing.id);
  }
  const notes: string[] = [];
  let listener = false;
  const asked =
    options.webhookUrl ??
    (typeof options.data?.webhookUrl === "string" ? options.data.webhookUrl : undefined);
  if (!driving && asked === undefined && scenario.expect.webhooks.length > 0) {
    const found = await listenerFor(control, account.accountId, scenario);
    listener = found.takes;
    if (found.note !== null) notes.push(found.note);
  }
  const webhookUrl = listener ? LISTENER_WEBHOOK_URL : asked;
  // on an existing resource, the webhooks of the steps still to come
  const expectedWebhooks = driving
    ? steps
        .map((step) => step.to as string)
        .filter((to) => (scenario.expect.webhooks as string[]).includes(to))
    : scenario.expect.webhooks;
  const run: TriggerRun = {
    scenario: scenario.name,
    method: scenario.method ?? null,
    outcome: scenario.outcome ?? null,
    url,
    account,
    existing:
      existing === null ? null : { resource: existing.resource, id: existing.id, status: existing.status },
    webhookUrl: driving ? null : (webhookUrl ?? null),
    listener,
    notes,
    steps: [],
    expected: { ...scenario.expect, webhooks: expectedWebhooks as TriggerScenario["expect"]["webhooks"] },
    problems: [],
    ok: false,
    deliveries: [],
  };
  const context = { api, control, autoAdvance, made, waitMs: options.waitMs ?? 30_000 };
  for (const step of steps) {
    let result: TriggerStepResult;
    try {
      result = await runStep(step, context, { ...choices, webhookUrl });
    } catch (error) {
      run.problems.push(`${stepName(step)}${made.id ? ` ${made.id}` : ""} failed: ${describe(error)}`);
      break;
    }
    run.steps.push(result);
    if (!reached(step, result.status)) {
      run.problems.push(
        `${result.step} left ${result.resource} ${result.id} ${result.status}, not ${step.to}`,
      );
      break;
    }
  }
  if (run.problems.length === 0) await checkEnd(scenario, context, run);
  if (made.id !== "" && (webhookUrl !== undefined || driving)) await collect(context, run, before);
  run.ok = run.problems.length === 0;
  return run;
}

// Options that cannot go together, refused before anything is sent.
function refuseContradictions(options: TriggerOptions, scenario: TriggerScenario): void {
  if (options.payinId !== undefined && options.payoutId !== undefined)
    throw new TriggerRefusedError("--payin and --payout each name the resource to drive: give one");
  const flag = options.payinId !== undefined ? "--payin" : options.payoutId !== undefined ? "--payout" : null;
  if (flag === null) return;
  const kind = resourceOf(scenario);
  if (flag !== `--${kind}`)
    throw new TriggerRefusedError(
      `${flag}: ${scenario.name} plays a ${kind}; drive a ${kind} with --${kind} <id>`,
    );
  if (options.keys === undefined)
    throw new TriggerRefusedError(
      `${flag} drives a resource of your account: give its keys (--keys, or PAYKIT_PUBLIC_KEY and PAYKIT_SECRET_KEY)`,
    );
  const creating = (
    [
      ["--amount", options.amount],
      ["--reference-id", options.referenceId],
      ["--data", options.data],
      ["--webhook-url", options.webhookUrl],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (creating.length > 0)
    throw new TriggerRefusedError(
      `${creating.map(([name]) => name).join(", ")} shape${creating.length === 1 ? "s" : ""} the resource a run creates; ${flag} creates none`,
    );
}

// The scenario entry for an existing payin: the one of its payment method, unless --method chose.
function entryFor(
  scenario: TriggerScenario,
  existing: ExistingResource,
  method: PaymentMethod | undefined,
): TriggerScenario {
  if (existing.method === null || scenario.method === undefined || scenario.method === existing.method)
    return scenario;
  const flag = `--payin ${existing.id}`;
  if (method !== undefined)
    throw new TriggerRefusedError(`${flag} is a ${existing.method} payin, not ${method}: leave --method out`);
  const entry = TRIGGER_SCENARIOS.find(
    (other) => other.name === scenario.name && other.method === existing.method,
  );
  if (entry === undefined) {
    const methods = TRIGGER_SCENARIOS.filter((other) => other.name === scenario.name).map((o) => o.method);
    throw new TriggerRefusedError(
      `${flag} is a ${existing.method} payin, and ${scenario.name} plays only ${methods.join(", ")} payins`,
    );
  }
  return entry;
}

// The request of a creating step, checked (a TriggerRefusedError names what is wrong).
function requestOf(step: TriggerStep, choices: RequestChoices) {
  if (!("create" in step)) throw new Error("a scenario starts by creating its payin or payout");
  return step.create === "payin" ? payinRequest(step, choices) : payoutRequest(step, choices);
}

interface RunContext {
  api: MerchantApi;
  control: MockControl;
  autoAdvance: boolean;
  /** The scenario's payin or payout once created (or the existing one it drives). */
  made: { id: string; referenceId: string };
  waitMs: number;
}

function stepName(step: TriggerStep): string {
  return "create" in step ? `POST /${step.create}` : step.call;
}

async function runStep(
  step: TriggerStep,
  context: RunContext,
  choices: RequestChoices,
): Promise<TriggerStepResult> {
  const { made } = context;
  if ("create" in step && step.create === "payin") {
    const payin = await context.api.createPayin(payinRequest(step, choices));
    made.id = payin.id;
    return { step: stepName(step), resource: "payin", id: payin.id, status: payin.status, byMock: false };
  }
  if ("create" in step) {
    const payout = await context.api.createPayout(payoutRequest(step, choices));
    made.id = payout.id;
    made.referenceId = payout.referenceId;
    return { step: stepName(step), resource: "payout", id: payout.id, status: payout.status, byMock: false };
  }
  const resource = step.call.endsWith("Payout") ? "payout" : "payin";
  // A payout of an account that moves payouts on its own would be moved twice: wait for the mock's step.
  if (step.call === "advancePayout" && context.autoAdvance) {
    const status = await payoutReaching(context, step.to);
    return { step: step.call, resource, id: made.id, status, byMock: true };
  }
  const call = context.control[step.call] as (id: string, ...args: unknown[]) => Promise<{ status: string }>;
  const moved = await call(made.id, ...step.args);
  return { step: step.call, resource, id: made.id, status: moved.status, byMock: false };
}

// Whether a step left the status it states (a payout the mock moves on may have gone past it).
function reached(step: TriggerStep, status: string): boolean {
  if (status === step.to) return true;
  return "call" in step && step.call === "advancePayout" && passed(step.to as KnownPayoutStatus, status);
}

// Whether `status` lies beyond `from` along the payout transitions.
function passed(from: KnownPayoutStatus, status: string): boolean {
  const seen = new Set<string>();
  const next = [...PAYOUT_TRANSITIONS[from]];
  while (next.length > 0) {
    const current = next.pop() as KnownPayoutStatus;
    if (current === status) return true;
    if (seen.has(current)) continue;
    seen.add(current);
    next.push(...PAYOUT_TRANSITIONS[current]);
  }
  return false;
}

async function payoutReaching(context: RunContext, to: KnownPayoutStatus): Promise<string> {
  const deadline = Date.now() + context.waitMs;
  let status = "";
  for (;;) {
    status = (await context.api.payoutByReference(context.made.referenceId))?.status ?? "";
    if (status === to || passed(to, status) || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The end state, read back as the merchant sees it.
async function checkEnd(scenario: TriggerScenario, context: RunContext, run: TriggerRun): Promise<void> {
  const { api, made } = context;
  try {
    if (scenario.expect.payin !== undefined) {
      const status = (await api.payin(made.id)).status;
      if (status !== scenario.expect.payin)
        run.problems.push(`payin ${made.id} ended ${status}, not ${scenario.expect.payin}`);
    }
    if (scenario.expect.payout !== undefined) {
      const status = (await api.payoutByReference(made.referenceId))?.status ?? "missing";
      if (status !== scenario.expect.payout)
        run.problems.push(`payout ${made.id} ended ${status}, not ${scenario.expect.payout}`);
    }
  } catch (error) {
    run.problems.push(`reading ${made.id} back failed: ${describe(error)}`);
  }
}

// The deliveries of the run's resource, and whether the events stated came in order. On an existing
// resource, those the run caused; none at all there means it has no webhookUrl, which is said, not failed.
async function collect(context: RunContext, run: TriggerRun, before: ReadonlySet<string>): Promise<void> {
  const { control, made } = context;
  try {
    run.deliveries = await deliveriesOf(control, run.account.accountId, made.id, before);
  } catch (error) {
    run.problems.push(`reading the delivery log failed: ${describe(error)}`);
    return;
  }
  if (run.existing !== null && run.deliveries.length === 0 && run.expected.webhooks.length > 0) {
    run.notes.push(
      `${made.id} sent no webhook: it was created without a webhookUrl (or its webhooks go elsewhere)`,
    );
    return;
  }
  const problem = webhooksProblem(
    made.id,
    run.deliveries.map((delivery) => delivery.status),
    run.expected.webhooks,
  );
  if (problem !== null) run.problems.push(problem);
}

function describe(error: unknown): string {
  if (error instanceof MerchantApiError || error instanceof MockControlError)
    return `${error.status} ${error.code}: ${error.message}`;
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return `${(error as Error)?.message ?? String(error)}${cause ? ` (${cause})` : ""}`;
}

/** The scenario entries by name and choice, for `--list`: `payin.approved --method PIX`. */
export function triggerScenarioLabel(scenario: TriggerScenario): string {
  if (scenario.method !== undefined) return `${scenario.name} --method ${scenario.method}`;
  if (scenario.outcome !== undefined) return `${scenario.name} --outcome ${scenario.outcome}`;
  return scenario.name;
}
