import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { PAYMENT_METHODS, type PaymentMethod } from "@paykit/contract";
import {
  DEFAULT_MOCK_URL,
  runTriggerScenario,
  type TriggerOptions,
  type TriggerRun,
  triggerScenarioLabel,
} from "../../scenarios/run.js";
import type { TriggerOutcome } from "../../scenarios/scenario.js";
import { TRIGGER_SCENARIOS } from "../../scenarios/scenarios.js";
import { TriggerRefusedError } from "../../scenarios/target.js";
import { accountKeysOption } from "./args.js";

/** What `paykit-mock trigger` was asked to do: list the scenarios, or run one. */
export type TriggerCliOptions =
  | { list: true; json: boolean }
  | { list: false; json: boolean; scenario: string; run: TriggerOptions & { url: string } };

/** The usage text of `paykit-mock trigger --help`. */
export const TRIGGER_USAGE = `Usage: paykit-mock trigger <scenario> [options]
       paykit-mock trigger --list

  Plays a scenario on a running mock: creates a payin or payout through the merchant API with sample
  data (or takes yours with --payin/--payout), moves it through the control API, and prints each step,
  where it ended and the webhook deliveries it caused.

  --list                  show every scenario
  --method <M>            PIX, BOLETO, CREDIT_CARD or OPEN_FINANCE (payin scenarios; --list says which)
  --outcome <O>           approve or reject (payin.3ds)
  --url <url>             the mock (default ${DEFAULT_MOCK_URL}); refused unless it is a Paykit mock
  --keys <pk:sk>          the account to use (default: PAYKIT_PUBLIC_KEY and PAYKIT_SECRET_KEY); without
                          keys a fresh account is opened (open on a shared sandbox); live keys are refused
  --new-account           open a fresh account even when PAYKIT_PUBLIC_KEY and PAYKIT_SECRET_KEY are set
  --admin-token <token>   the mock's admin token; give it as PAYKIT_MOCK_ADMIN_TOKEN instead (ps shows a
                          command line to every user). On a shared sandbox the account's keys suffice
  --webhook-url <url>     where the payin or payout sends its webhooks. Default: the account's
                          paykit-mock listen when one is attached, else none (no webhooks)
  --webhook-secret <s>    a fresh account's signing secret (default: PAYKIT_WEBHOOK_SECRET), so your
                          receiver can verify its deliveries; never printed
  --amount <cents>        the amount of the payin or payout created, in cents (14990 = R$ 149,90)
  --reference-id <id>     its referenceId (default: a fresh one)
  --data <file.json>      fields merged into the sample request (customer, items, pixKey…), checked as
                          the mock checks them; the scenario's own card or PIX key cannot be changed
  --payin <id>            drive this payin of the account instead of creating one: the scenario goes on
                          from its status (refused when no step applies to it)
  --payout <id>           the same for a payout
  --json                  print one JSON document
  --help                  show this text

  Exit status 0 when the run ends as the scenario states, 1 when it does not, 2 when it was refused.
`;

const OUTCOMES: readonly TriggerOutcome[] = ["approve", "reject"];

/**
 * Reads `paykit-mock trigger`'s arguments and environment (`PAYKIT_PUBLIC_KEY`, `PAYKIT_SECRET_KEY`,
 * `PAYKIT_MOCK_ADMIN_TOKEN`, `PAYKIT_WEBHOOK_SECRET`); throws an Error whose message is meant for the user.
 */
export function parseTriggerArgs(
  argv: string[],
  env: Record<string, string | undefined> = {},
): TriggerCliOptions | "help" {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      list: { type: "boolean" },
      method: { type: "string" },
      outcome: { type: "string" },
      url: { type: "string" },
      keys: { type: "string" },
      "new-account": { type: "boolean" },
      "admin-token": { type: "string" },
      "webhook-url": { type: "string" },
      "webhook-secret": { type: "string" },
      amount: { type: "string" },
      "reference-id": { type: "string" },
      data: { type: "string" },
      payin: { type: "string" },
      payout: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return "help";
  const json = values.json ?? false;
  if (values.list) {
    if (positionals.length > 0) throw new Error("--list takes no scenario");
    return { list: true, json };
  }
  if (positionals.length !== 1)
    throw new Error(positionals.length === 0 ? "name a scenario (--list shows them)" : "name one scenario");
  const method = values.method?.toUpperCase();
  if (method !== undefined && !(PAYMENT_METHODS as readonly string[]).includes(method))
    throw new Error(`--method must be one of ${PAYMENT_METHODS.join(", ")}, got ${values.method}`);
  const outcome = values.outcome?.toLowerCase();
  if (outcome !== undefined && !(OUTCOMES as readonly string[]).includes(outcome))
    throw new Error(`--outcome must be approve or reject, got ${values.outcome}`);
  const keys = values["new-account"] ? undefined : accountKeysOption(values.keys, env);
  if (values["new-account"] && values.keys !== undefined)
    throw new Error("--new-account opens a fresh account: give it or --keys, not both");
  if (keys !== undefined && values["webhook-secret"] !== undefined)
    throw new Error("--webhook-secret is for a fresh account; yours signs with its own secret");
  const webhookSecret =
    keys === undefined ? (values["webhook-secret"] ?? env.PAYKIT_WEBHOOK_SECRET) : undefined;
  const adminToken = values["admin-token"] ?? env.PAYKIT_MOCK_ADMIN_TOKEN;
  const amount = values.amount === undefined ? undefined : centsOf(values.amount);
  const referenceId = values["reference-id"];
  if (referenceId !== undefined && referenceId.trim() === "")
    throw new Error("--reference-id needs the payin's or payout's referenceId");
  const data = values.data === undefined ? undefined : dataFile(values.data);
  const payinId = idOf("--payin", "pi_", "a payin's id", values.payin);
  const payoutId = idOf("--payout", "po_", "a payout's id", values.payout);
  return {
    list: false,
    json,
    scenario: positionals[0] as string,
    run: {
      url: urlOf(values.url ?? DEFAULT_MOCK_URL, "--url"),
      ...(keys === undefined ? {} : { keys }),
      ...(adminToken ? { adminToken } : {}),
      ...(values["webhook-url"] === undefined
        ? {}
        : { webhookUrl: urlOf(values["webhook-url"], "--webhook-url") }),
      ...(webhookSecret ? { webhookSecret } : {}),
      ...(method === undefined ? {} : { method: method as PaymentMethod }),
      ...(outcome === undefined ? {} : { outcome: outcome as TriggerOutcome }),
      ...(amount === undefined ? {} : { amount }),
      ...(referenceId === undefined ? {} : { referenceId }),
      ...(data === undefined ? {} : { data }),
      ...(payinId === undefined ? {} : { payinId }),
      ...(payoutId === undefined ? {} : { payoutId }),
    },
  };
}

function centsOf(value: string): number {
  const cents = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(cents) || cents < 1)
    throw new Error(`--amount must be a whole number of cents, at least 1 (14990 = R$ 149,90), got ${value}`);
  return cents;
}

function idOf(flag: string, prefix: string, what: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!value.startsWith(prefix) || !/^[A-Za-z0-9_]{4,100}$/.test(value))
    throw new Error(`${flag} must be ${what} (${prefix}…), got ${value}`);
  return value;
}

/** The fields of `--data <file.json>`: a JSON object, read and parsed here so a mistake names the file. */
function dataFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(
      `--data: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`--data: ${path} is not JSON (${(error as Error).message})`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json))
    throw new Error(
      `--data: ${path} must hold a JSON object of request fields ({ "customer": { "name": … } }), got ${Array.isArray(json) ? "an array" : String(json === null ? "null" : typeof json)}`,
    );
  return json as Record<string, unknown>;
}

function urlOf(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${flag} must be an absolute http(s) URL, got ${value}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`${flag} must be an http(s) URL, got ${value}`);
  return flag === "--url" ? url.href.replace(/\/+$/, "") : url.href;
}

/** `paykit-mock trigger`: lists the scenarios or plays one; exit 1 when it ends elsewhere, 2 when refused. */
export async function trigger(argv: string[]): Promise<void> {
  let options: TriggerCliOptions | "help";
  try {
    options = parseTriggerArgs(argv, process.env);
  } catch (error) {
    const refused = error instanceof TriggerRefusedError;
    process.stderr.write(
      `paykit-mock trigger: ${(error as Error).message}\n${refused ? "" : `\n${TRIGGER_USAGE}`}`,
    );
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    process.stdout.write(TRIGGER_USAGE);
    return;
  }
  if (options.list) {
    process.stdout.write(options.json ? `${JSON.stringify(TRIGGER_SCENARIOS, null, 2)}\n` : formatList());
    return;
  }
  let run: TriggerRun;
  try {
    run = await runTriggerScenario(options.scenario, options.run);
  } catch (error) {
    if (!(error instanceof TriggerRefusedError)) throw error;
    process.stderr.write(`paykit-mock trigger: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(options.json ? `${JSON.stringify(run, null, 2)}\n` : formatTriggerRun(run));
  process.exitCode = run.ok ? 0 : 1;
}

/** The text of `paykit-mock trigger --list`: one line per scenario entry, the default of each name marked. */
export function formatList(): string {
  const labels = TRIGGER_SCENARIOS.map(triggerScenarioLabel);
  const width = Math.max(...labels.map((label) => label.length));
  const lines = TRIGGER_SCENARIOS.map((scenario, i) => {
    const first = TRIGGER_SCENARIOS.findIndex((other) => other.name === scenario.name) === i;
    const many = TRIGGER_SCENARIOS.filter((other) => other.name === scenario.name).length > 1;
    return `  ${(labels[i] as string).padEnd(width)}  ${scenario.description}${first && many ? " (the default)" : ""}`;
  });
  return `Scenarios of paykit-mock trigger <scenario> [--method M | --outcome O]:\n${lines.join("\n")}\n`;
}

/** The text of a run: the account, one line per step, where it ended, and the deliveries. */
export function formatTriggerRun(run: TriggerRun): string {
  const choice = run.method ? ` --method ${run.method}` : run.outcome ? ` --outcome ${run.outcome}` : "";
  const out = [`${run.scenario}${choice} on ${run.url}`];
  out.push(
    run.account.opened
      ? `Account ${run.account.accountId}: opened for this run (public key ${run.account.publicKey})`
      : `Account ${run.account.accountId} (public key ${run.account.publicKey})`,
  );
  if (run.existing !== null)
    out.push(`Driving ${run.existing.resource} ${run.existing.id}, ${run.existing.status} before the run`);
  const names = run.steps.map((step) => (step.byMock ? `${step.step} (by the mock)` : step.step));
  const width = Math.max(0, ...names.map((name) => name.length));
  run.steps.forEach((step, i) => {
    out.push(`  ${(names[i] as string).padEnd(width)}  ${step.resource} ${step.id}  ${step.status}`);
  });
  const states = [
    run.expected.payin ? `payin ${run.expected.payin}` : "",
    run.expected.payout ? `payout ${run.expected.payout}` : "",
  ].filter(Boolean);
  if (run.ok) out.push(`Ended as stated: ${states.join(", ")}`);
  else out.push("Did not end as stated:", ...run.problems.map((problem) => `  - ${problem}`));
  for (const note of run.notes) out.push(`Note: ${note}`);
  const to = run.listener
    ? "your paykit-mock listen"
    : run.existing !== null
      ? "its webhookUrl"
      : run.webhookUrl;
  if (to === null) {
    out.push(
      "Webhooks: none, the resource was made without a webhookUrl (give --webhook-url <your receiver>, or run paykit-mock listen on the account first)",
    );
  } else if (run.deliveries.length === 0) {
    if (run.existing === null) out.push(`Webhooks to ${to}: none (this scenario sends none)`);
  } else {
    out.push(`Webhooks to ${to}:`);
    for (const delivery of run.deliveries) {
      const answer =
        delivery.answer !== null
          ? `answered ${delivery.answer}`
          : `no answer (${delivery.error ?? "none yet"})`;
      const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`;
      out.push(
        `  ${delivery.status.padEnd(17)}  ${delivery.resource} ${delivery.resourceId}  ${delivery.state}, ${attempts}, ${answer}`,
      );
    }
    if (!run.account.signed)
      out.push(
        "  (unsigned: the account has no webhook secret; give a fresh account one with --webhook-secret)",
      );
  }
  return `${out.join("\n")}\n`;
}
