// Runs a trigger scenario against a running mock: the account (the caller's, or a fresh one), each
// step through the merchant API or the control API, the end states read back through the merchant
// API, and the webhook deliveries of what it made from the delivery log.
import {
  type KnownPayoutStatus,
  PAYOUT_TRANSITIONS,
  type PaymentMethod,
  type PayoutCreateParams,
} from "@paykit/contract";
import { accountOf } from "../control/account-of.js";
import { createHttpControl } from "../control/http-client.js";
import { type MockControl, MockControlError } from "../control/mock-control.js";
import { samplePayin, samplePayout, sampleReferenceId } from "../domain/samples.js";
import { type MerchantApi, MerchantApiError, merchantApi } from "./merchant-api.js";
import type { TriggerOutcome, TriggerScenario, TriggerStep } from "./scenario.js";
import { TRIGGER_SCENARIOS } from "./scenarios.js";
import { assertMock, refuseLiveKeys, type TriggerKeys, TriggerRefusedError } from "./target.js";

/** The local mock `paykit-mock` serves by default. */
export const DEFAULT_MOCK_URL = "http://127.0.0.1:4010";

/** The opening balance of an account a run opens, in cents: enough for every payout scenario. */
const FRESH_BALANCE = 1_000_000;

/** Options of {@link runTriggerScenario}. */
export interface TriggerOptions {
  /** The mock's base URL. @default "http://127.0.0.1:4010" */
  url?: string;
  /** The keys of the account to use; without them a fresh account is opened (`POST /_mock/accounts`). */
  keys?: TriggerKeys;
  /** The mock's `--admin-token`, when it has one and the account's own keys do not authorize the control calls. */
  adminToken?: string;
  /** Where the resources send their webhooks; without it they send none. */
  webhookUrl?: string;
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

/** A webhook delivery of a resource the run made, as the delivery log shows it. */
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

/** The outcome of a run: what it did, where it ended, and the deliveries it caused. No secret is in it. */
export interface TriggerRun {
  scenario: string;
  method: PaymentMethod | null;
  outcome: TriggerOutcome | null;
  url: string;
  account: {
    accountId: string;
    publicKey: string;
    /** The run opened this account (no keys were given). */
    opened: boolean;
    /** Whether its deliveries are signed (it has a webhook secret). */
    signed: boolean;
  };
  webhookUrl: string | null;
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
  const scenario = findTriggerScenario(name, { method: options.method, outcome: options.outcome });
  refuseLiveKeys(options.keys);
  const url = (options.url ?? DEFAULT_MOCK_URL).replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  await assertMock(url, doFetch);
  const { account, keys, control, autoAdvance } = await accountFor(scenario, url, options, doFetch);
  const run: TriggerRun = {
    scenario: scenario.name,
    method: scenario.method ?? null,
    outcome: scenario.outcome ?? null,
    url,
    account,
    webhookUrl: options.webhookUrl ?? null,
    steps: [],
    expected: scenario.expect,
    problems: [],
    ok: false,
    deliveries: [],
  };
  const api = merchantApi(url, keys, doFetch);
  const made = { id: "", referenceId: "" };
  const context = { api, control, autoAdvance, made, waitMs: options.waitMs ?? 30_000 };
  for (const step of scenario.steps) {
    let result: TriggerStepResult;
    try {
      result = await runStep(step, context, options.webhookUrl);
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
  if (options.webhookUrl !== undefined && made.id !== "") await collectDeliveries(scenario, context, run);
  run.ok = run.problems.length === 0;
  return run;
}

interface RunContext {
  api: MerchantApi;
  control: MockControl;
  autoAdvance: boolean;
  /** The scenario's payin or payout once created. */
  made: { id: string; referenceId: string };
  waitMs: number;
}

// The account of a run: the caller's (found by its public key), or one opened with what the scenario needs.
async function accountFor(
  scenario: TriggerScenario,
  url: string,
  options: TriggerOptions,
  doFetch: typeof fetch,
): Promise<{
  account: TriggerRun["account"];
  keys: TriggerKeys;
  control: MockControl;
  autoAdvance: boolean;
}> {
  const reach = { url, fetch: doFetch, ...(options.adminToken ? { adminToken: options.adminToken } : {}) };
  if (options.keys === undefined) {
    const opened = await refusedUnless("open an account", () =>
      createHttpControl(reach).createAccount({
        balance: FRESH_BALANCE,
        // every step is the scenario's own: the mock moves nothing of this account by itself
        autoAdvance: false,
        ...scenario.account,
        ...(options.webhookSecret === undefined ? {} : { webhookSecret: options.webhookSecret }),
      }),
    );
    const keys = { publicKey: opened.publicKey, secretKey: opened.secretKey };
    return {
      account: {
        accountId: opened.accountId,
        publicKey: opened.publicKey,
        opened: true,
        signed: opened.webhookSecret !== undefined,
      },
      keys,
      control: createHttpControl({ ...reach, credentials: keys }),
      autoAdvance: false,
    };
  }
  const keys = options.keys;
  const control = createHttpControl({ ...reach, credentials: keys });
  const view = await refusedUnless("read the account", () => accountOf({ url, fetch: doFetch }, keys));
  if (view === undefined)
    throw new TriggerRefusedError(
      `no account of the mock at ${url} has the public key ${keys.publicKey} with that secret key`,
    );
  const needed = scenario.account?.payoutApproval;
  if (needed !== undefined && view.payoutApproval !== needed) {
    throw new TriggerRefusedError(
      `${scenario.name} needs an account whose payouts are approved ${needed === "manual" ? "in the dashboard (payoutApproval: manual)" : "at once (payoutApproval: automatic)"}; ` +
        `account ${view.accountId} has payoutApproval: ${view.payoutApproval}. Run it without keys to use a fresh account, ` +
        `or change the setting (POST /_mock/accounts/${view.accountId}/settings)`,
    );
  }
  return {
    account: {
      accountId: view.accountId,
      publicKey: view.publicKey,
      opened: false,
      signed: view.webhookSigned,
    },
    keys,
    control,
    autoAdvance: view.autoAdvance,
  };
}

// A control call made before the scenario acts: a refusal of the mock is the run's refusal.
async function refusedUnless<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof MockControlError)) throw error;
    const hint =
      error.status === 401 || error.status === 403
        ? ": give the mock's admin token (--admin-token or PAYKIT_MOCK_ADMIN_TOKEN), or on a shared sandbox the account's keys"
        : "";
    throw new TriggerRefusedError(
      `the mock refused to ${what} (${error.status} ${error.code}: ${error.message})${hint}`,
    );
  }
}

function stepName(step: TriggerStep): string {
  return "create" in step ? `POST /${step.create}` : step.call;
}

async function runStep(
  step: TriggerStep,
  context: RunContext,
  webhookUrl: string | undefined,
): Promise<TriggerStepResult> {
  const withUrl = webhookUrl === undefined ? {} : { webhookUrl };
  const { made } = context;
  if ("create" in step && step.create === "payin") {
    const params = samplePayin(step.method, { ...step.overrides, ...withUrl });
    const payin = await context.api.createPayin(params);
    made.id = payin.id;
    return { step: stepName(step), resource: "payin", id: payin.id, status: payin.status, byMock: false };
  }
  if ("create" in step) {
    const params: PayoutCreateParams = samplePayout({
      referenceId: sampleReferenceId("trigger"),
      ...step.overrides,
      ...withUrl,
    });
    const payout = await context.api.createPayout(params);
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

// The deliveries of the run's resource: every one in flight answered first (a step the mock made on
// its own was not awaited), then read from the account's delivery log.
async function collectDeliveries(
  scenario: TriggerScenario,
  context: RunContext,
  run: TriggerRun,
): Promise<void> {
  const { control, made } = context;
  try {
    await control.flushWebhooks(run.account.accountId);
    for await (const delivery of control.listAll("webhooks", { accountId: run.account.accountId })) {
      if (delivery.resourceId !== made.id) continue;
      const last = delivery.attempts.at(-1);
      run.deliveries.push({
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
  } catch (error) {
    run.problems.push(`reading the delivery log failed: ${describe(error)}`);
    return;
  }
  // The stated events, in order, among the log's (a duplicate delivery of an account in that test mode is extra).
  const sent = run.deliveries.map((delivery) => delivery.status);
  let at = 0;
  for (const status of sent) if (status === scenario.expect.webhooks[at]) at += 1;
  if (at < scenario.expect.webhooks.length)
    run.problems.push(
      `the webhooks of ${made.id} are [${sent.join(", ")}], not [${scenario.expect.webhooks.join(", ")}]`,
    );
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
