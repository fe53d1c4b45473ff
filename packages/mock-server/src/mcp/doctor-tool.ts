// The webhook doctor as a tool: an agent that just wrote a webhook endpoint checks it with the same
// battery as `paykit-mock doctor`. Only a receiver on this machine: the tool sends signed requests, and
// an agent must not be able to aim them at another host.
import { HttpUrl, storableString } from "@paykit/contract";
import * as z from "zod/mini";
import { runWebhookDoctor } from "../doctor/doctor.js";
import { checked, type McpTool, toolInputSchema } from "./tool.js";
import { ToolError } from "./tool-error.js";

const DoctorArgs = z.strictObject({
  url: HttpUrl,
  secret: z.optional(
    storableString(z.regex(/^whsec_[A-Za-z0-9+/=]+$/, { error: "must be the receiver's whsec_… secret" })),
  ),
  stateUrl: z.optional(HttpUrl),
  timeoutMs: z.optional(z.int().check(z.gte(1), z.lte(60_000))),
});

/** Whether a URL's host is this machine: localhost, *.localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    /^127(?:\.\d{1,3}){3}$/.test(host) ||
    host === "[::1]" ||
    host === "::1"
  );
}

/** The doctor's tool. */
export function doctorTool(): McpTool {
  return {
    name: "webhookDoctor",
    description:
      "Check a webhook receiver running on this machine with the deliveries a safe endpoint must handle " +
      "(valid payin and payout events, duplicates, tampered and badly signed bodies, out-of-order events), " +
      "signed as the mock signs them; answers each case with what was expected, what came back and the fix. " +
      "secret: the receiver's webhook secret (whsec_…); by default the server's --webhook-secret, else the " +
      "one of the account this session created. stateUrl: GET <stateUrl>?id=<payout id> answering " +
      "{ status } checks out-of-order handling.",
    inputSchema: toolInputSchema(DoctorArgs),
    async run(args, sandbox) {
      const { url, secret: given, stateUrl, timeoutMs } = checked(DoctorArgs, args);
      for (const [field, value] of [
        ["url", url],
        ["stateUrl", stateUrl],
      ] as const) {
        if (value !== undefined && !isLoopbackUrl(value))
          throw new ToolError(
            "NOT_LOCAL",
            `${field} must be on this machine (localhost, 127.0.0.1 or [::1])`,
            {
              details: [{ path: field, message: "must be a loopback URL" }],
            },
          );
      }
      const secret = given ?? sandbox.webhookSecret;
      if (secret === undefined)
        throw new ToolError(
          "NO_WEBHOOK_SECRET",
          "give secret: the receiver's whsec_… (or start this server with --webhook-secret)",
          { details: [{ path: "secret", message: "is required" }] },
        );
      sandbox.scrubber.rememberSecret(secret);
      const report = await runWebhookDoctor({
        url,
        secret,
        ...(stateUrl === undefined ? {} : { stateUrl }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      return { ok: report.ok, cases: report.cases };
    },
  };
}
