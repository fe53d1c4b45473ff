// The merchant API's tools: what a merchant's backend calls (POST/GET /payin, POST/GET /payout), with
// the account's keys. Their arguments are the contract's own request schemas; the mock checks them and
// answers the service's errors, as the real service would.
import {
  PayinCreateParams,
  PayoutCreateParams,
  PayoutListQuery,
  ReferenceId,
  storableString,
} from "@paykit/contract";
import * as z from "zod/mini";
import type { Sandbox } from "./sandbox.js";
import { checked, type JsonObject, type McpTool, toolInputSchema } from "./tool.js";
import { ToolError } from "./tool-error.js";

const PayinId = z.strictObject({
  id: storableString(
    z.minLength(1),
    z.maxLength(100),
    z.regex(/^pi_/, { error: "must be a payin id (pi_…)" }),
  ),
});
const PayoutByReference = z.strictObject({ referenceId: ReferenceId });

/** Refuses a payout above the session's cap (`--max-payout-cents`) before it reaches the mock. */
function capPayout(args: JsonObject, sandbox: Sandbox): void {
  const amount = args.amount;
  if (typeof amount === "number" && amount > sandbox.maxPayoutCents) {
    throw new ToolError(
      "PAYOUT_CAP_EXCEEDED",
      `amount ${amount} cents is above this MCP server's payout cap of ${sandbox.maxPayoutCents} cents ` +
        "(--max-payout-cents): ask the developer to raise it if a larger payout is really meant",
      { details: [{ path: "amount", message: `must be at most ${sandbox.maxPayoutCents}` }] },
    );
  }
}

/** The merchant API's tools. */
export function apiTools(): McpTool[] {
  return [
    {
      name: "createPayin",
      description:
        "Create a payin (POST /payin) with this session's account: PIX (answers the BR Code), BOLETO (the " +
        "digitable line and PDF), CREDIT_CARD (APPROVED, REFUSED or PENDING_3DS at once) or OPEN_FINANCE " +
        "(the bank's authorization URL). Amounts are integer cents. Give webhookUrl to receive its webhooks.",
      inputSchema: toolInputSchema(PayinCreateParams),
      run: (args, sandbox) => sandbox.api({ method: "POST", path: "/payin", body: args }),
    },
    {
      name: "retrievePayin",
      description: "Retrieve a payin by its id (GET /payin/{id}): its status, amounts and payment data.",
      inputSchema: toolInputSchema(PayinId),
      run: (args, sandbox) => {
        const { id } = checked(PayinId, args);
        return sandbox.api({ method: "GET", path: `/payin/${encodeURIComponent(id)}` });
      },
    },
    {
      name: "createPayout",
      description:
        "Create a PIX payout (POST /payout) from this session's account to a PIX key; the amount (integer " +
        "cents) is debited at once. Amounts above this server's cap (--max-payout-cents) are refused.",
      inputSchema: toolInputSchema(PayoutCreateParams),
      run: (args, sandbox) => {
        capPayout(args, sandbox);
        return sandbox.api({ method: "POST", path: "/payout", body: args });
      },
    },
    {
      name: "retrievePayout",
      description:
        "Retrieve a payout by its referenceId (GET /payout?referenceId=): the service has no lookup by " +
        "payout id, and referenceId is unique per account. The payouts tool lists them with their ids.",
      inputSchema: toolInputSchema(PayoutByReference),
      run: async (args, sandbox) => {
        const { referenceId } = checked(PayoutByReference, args);
        const page = (await sandbox.api({
          method: "GET",
          path: "/payout",
          query: { referenceId, limit: 1 },
        })) as { data?: { referenceId?: string }[] };
        const payout = page.data?.[0];
        if (payout?.referenceId !== referenceId)
          throw new ToolError("NOT_FOUND", `no payout of this account has referenceId "${referenceId}"`, {
            status: 404,
          });
        return payout;
      },
    },
    {
      name: "listPayouts",
      description:
        "List this account's payouts, newest first (GET /payout), one page with its paging facts: filter by " +
        "status, createdAt dates (ISO 8601, inclusive) or referenceId; page from 1, limit up to 100.",
      inputSchema: toolInputSchema(PayoutListQuery),
      run: (args, sandbox) => sandbox.api({ method: "GET", path: "/payout", query: args }),
    },
  ];
}
