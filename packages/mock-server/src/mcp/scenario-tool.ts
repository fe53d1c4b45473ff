// `paykit-mock trigger`'s scenarios as one tool: the scenario list (scenarios/) names the choices, so
// a scenario added there is offered here with nothing else to change.
import { HttpUrl, PAYMENT_METHODS } from "@paykit/contract";
import * as z from "zod/mini";
import { samplePayout } from "../domain/samples.js";
import {
  findTriggerScenario,
  runTriggerScenario,
  triggerScenarioLabel,
  triggerScenarioNames,
} from "../scenarios/run.js";
import type { TriggerOutcome } from "../scenarios/scenario.js";
import { TRIGGER_SCENARIOS } from "../scenarios/scenarios.js";
import { TriggerRefusedError } from "../scenarios/target.js";
import { checked, type McpTool, toolInputSchema } from "./tool.js";
import { ToolError } from "./tool-error.js";

const outcomes = [
  ...new Set(TRIGGER_SCENARIOS.flatMap((scenario) => (scenario.outcome ? [scenario.outcome] : []))),
] as [TriggerOutcome, ...TriggerOutcome[]];

const ScenarioArgs = z.strictObject({
  scenario: z.enum(triggerScenarioNames() as [string, ...string[]]),
  method: z.optional(z.enum(PAYMENT_METHODS)),
  outcome: z.optional(z.enum(outcomes)),
  webhookUrl: z.optional(HttpUrl),
});

/** The scenario tool. */
export function scenarioTool(): McpTool {
  return {
    name: "runScenario",
    description:
      "Play a trigger scenario on this session's account, as `paykit-mock trigger` does: it creates the " +
      "payin or payout with sample data through the merchant API, moves it with the control API, and " +
      "answers each step, the end status and the webhook deliveries (give webhookUrl to receive them). " +
      "The scenarios (method or outcome choose between entries of one name; the first is the default):\n" +
      TRIGGER_SCENARIOS.map(
        (scenario) => `- ${triggerScenarioLabel(scenario)}: ${scenario.description}`,
      ).join("\n"),
    inputSchema: toolInputSchema(ScenarioArgs),
    async run(args, sandbox) {
      const { scenario: name, method, outcome, webhookUrl } = checked(ScenarioArgs, args);
      const keys = await sandbox.account();
      try {
        // The scenario's payouts are the sample's amount (or its own): the session's cap applies to them too.
        const scenario = findTriggerScenario(name, { method, outcome });
        for (const step of scenario.steps) {
          if (!("create" in step) || step.create !== "payout") continue;
          const { amount } = samplePayout(step.overrides);
          if (amount > sandbox.maxPayoutCents)
            throw new ToolError(
              "PAYOUT_CAP_EXCEEDED",
              `${name} makes a payout of ${amount} cents, above this MCP server's cap of ${sandbox.maxPayoutCents} cents (--max-payout-cents)`,
            );
        }
        return await runTriggerScenario(name, {
          url: sandbox.url,
          keys: { publicKey: keys.publicKey, secretKey: keys.secretKey },
          ...(sandbox.adminToken === undefined ? {} : { adminToken: sandbox.adminToken }),
          ...(webhookUrl === undefined ? {} : { webhookUrl }),
          ...(method === undefined ? {} : { method }),
          ...(outcome === undefined ? {} : { outcome }),
        });
      } catch (error) {
        if (error instanceof TriggerRefusedError) throw new ToolError("SCENARIO_REFUSED", error.message);
        throw error;
      }
    },
  };
}
