// The request a trigger scenario creates its payin or payout with: the sample request of its method,
// the caller's fields merged in (`--data`, then `--amount` and `--reference-id`), the scenario's own
// fields (a magic card or PIX key, which make the scenario what it is) on top, and the whole checked
// with the contract's schema before anything is sent, so a mistake names its field and its flag
// (docs/decisions/trigger-with-listen.md).
import {
  type PayinCreateParams,
  PayinCreateParams as PayinCreateSchema,
  type PayoutCreateParams,
  PayoutCreateParams as PayoutCreateSchema,
  validate,
} from "@paykit/contract";
import { samplePayin, samplePayout, sampleReferenceId } from "../domain/samples.js";
import type { CreatePayinStep, CreatePayoutStep } from "./scenario.js";
import { TriggerRefusedError } from "./target.js";

/** What the caller chose of the request a scenario creates (`--amount`, `--reference-id`, `--data`). */
export interface RequestChoices {
  /** The amount in cents, instead of the sample's. */
  amount?: number | undefined;
  /** The merchant reference, instead of a fresh one. */
  referenceId?: string | undefined;
  /** Fields merged into the sample request: objects field by field, any other value replaces. */
  data?: Record<string, unknown> | undefined;
  /** Where the resource sends its webhooks (`--webhook-url`, or the listener's placeholder). */
  webhookUrl?: string | undefined;
}

type Json = Record<string, unknown>;

/** The payin request of a scenario's creating step, checked; a {@link TriggerRefusedError} names what is wrong. */
export function payinRequest(step: CreatePayinStep, choices: RequestChoices): PayinCreateParams {
  const method = choices.data?.paymentMethod;
  if (method !== undefined && method !== step.method)
    throw new TriggerRefusedError(
      `--data: paymentMethod is ${JSON.stringify(method)}, and this scenario's payin is ${step.method}: choose the method with --method`,
    );
  const request = build(samplePayin(step.method) as Json, step.overrides as Json | undefined, choices);
  return checked(PayinCreateSchema, request, choices, "payin") as PayinCreateParams;
}

/** The payout request of a scenario's creating step, checked; a {@link TriggerRefusedError} names what is wrong. */
export function payoutRequest(step: CreatePayoutStep, choices: RequestChoices): PayoutCreateParams {
  const request = build(
    samplePayout({ referenceId: sampleReferenceId("trigger") }) as Json,
    step.overrides as Json | undefined,
    choices,
  );
  return checked(PayoutCreateSchema, request, choices, "payout") as PayoutCreateParams;
}

function build(sample: Json, fixed: Json | undefined, choices: RequestChoices): Json {
  let request = merge(sample, choices.data ?? {});
  for (const [field, flag, value] of [
    ["amount", "--amount", choices.amount],
    ["referenceId", "--reference-id", choices.referenceId],
    ["webhookUrl", "--webhook-url", choices.webhookUrl],
  ] as const) {
    if (value === undefined) continue;
    const given = choices.data?.[field];
    if (given !== undefined && given !== value)
      throw new TriggerRefusedError(`--data sets ${field} and ${flag} another: give it once`);
    request = { ...request, [field]: value };
  }
  for (const [path, value] of leaves(fixed ?? {})) {
    const given = at(choices.data ?? {}, path);
    if (given !== undefined && JSON.stringify(given) !== JSON.stringify(value))
      throw new TriggerRefusedError(
        `--data sets ${path.join(".")}, which this scenario fixes to ${JSON.stringify(value)} (that is how it gets its outcome): leave it out`,
      );
  }
  return merge(request, fixed ?? {});
}

// The request checked as the mock will check it; each problem names its field and where it came from.
function checked(
  schema: typeof PayinCreateSchema | typeof PayoutCreateSchema,
  request: Json,
  choices: RequestChoices,
  resource: "payin" | "payout",
): unknown {
  const result = validate(schema, request);
  if (result.success) return result.data;
  const problems = result.details.map((detail) => {
    const root = detail.path.split(".")[0] ?? "";
    const flag =
      root === "amount" && choices.amount !== undefined
        ? "--amount"
        : root === "referenceId" && choices.referenceId !== undefined
          ? "--reference-id"
          : root === "webhookUrl" && choices.webhookUrl !== undefined
            ? "--webhook-url"
            : choices.data !== undefined && Object.hasOwn(choices.data, root)
              ? "--data"
              : "the sample request";
    return `${flag}: ${detail.path || "body"} ${detail.message}`;
  });
  throw new TriggerRefusedError(`the ${resource} request is invalid: ${problems.join("; ")}`);
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * `over` merged into `base`: objects field by field, anything else replaces. Own properties only, each
 * defined rather than assigned, so a `__proto__` field of a JSON file is a field (the schema refuses
 * it by name) and never a prototype.
 */
export function merge(base: Json, over: Json): Json {
  const out: Json = {};
  const put = (key: string, value: unknown) =>
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  for (const [key, value] of Object.entries(base)) put(key, value);
  for (const [key, value] of Object.entries(over)) {
    const inner = Object.hasOwn(out, key) ? out[key] : undefined;
    put(key, isObject(inner) && isObject(value) ? merge(inner, value) : value);
  }
  return out;
}

// Every leaf of an object with its path (`card.number`).
function leaves(value: Json, path: string[] = []): [string[], unknown][] {
  return Object.entries(value).flatMap(([key, inner]) =>
    isObject(inner) ? leaves(inner, [...path, key]) : [[[...path, key], inner] as [string[], unknown]],
  );
}

function at(value: Json, path: string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}
