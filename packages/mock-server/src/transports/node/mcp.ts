// `paykit-mock mcp`: the MCP server for coding agents, over stdio. Its stdout is the protocol's
// channel: everything meant for a person goes to stderr.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { identifyMock } from "../../control/identify.js";
import { Sandbox } from "../../mcp/sandbox.js";
import { createMcpServer } from "../../mcp/server.js";
import { mcpTools } from "../../mcp/tools.js";
import { DEFAULT_MOCK_URL } from "../../scenarios/run.js";
import { httpUrlOption } from "./args.js";

/** The options of `paykit-mock mcp`. */
export interface McpCliOptions {
  url: string;
  keys: { publicKey: string; secretKey: string } | undefined;
  adminToken: string | undefined;
  /** The receiver's webhook secret, for the doctor's default. */
  webhookSecret: string | undefined;
  maxPayoutCents: number;
}

/** The payout cap when `--max-payout-cents` is not given: R$ 1.000,00. */
export const DEFAULT_MAX_PAYOUT_CENTS = 100_000;

/** The usage text of `paykit-mock mcp --help`. */
export const MCP_USAGE = `Usage: paykit-mock mcp [--url <mock url>] [--keys <pk_test_…:sk_test_…>] [options]

  An MCP server over stdio that lets a coding agent drive a Paykit mock: accounts, payins, payouts,
  the customer's and the bank's decisions, the account's clock, webhook deliveries, the webhook doctor.
  Configure it in your agent's mcpServers (docs/testing.md, "Coding agents").

  --url <url>               the mock (default ${DEFAULT_MOCK_URL}); a URL that is not a Paykit mock
                            is refused
  --keys <pk:sk>            the account the tools act on (or PAYKIT_PUBLIC_KEY and PAYKIT_SECRET_KEY);
                            without, the agent opens one with createAccount. Live keys are refused
  --admin-token <token>     the mock's admin token, if it has one; give it as PAYKIT_MOCK_ADMIN_TOKEN
                            instead (ps shows a command line to every user of the machine)
  --webhook-secret <s>      your receiver's webhook secret (or PAYKIT_WEBHOOK_SECRET): createAccount
                            signs the accounts it opens with it, and webhookDoctor checks the receiver
                            with it, unless told another
  --max-payout-cents <n>    refuse payouts above n cents (default ${DEFAULT_MAX_PAYOUT_CENTS}, R$ 1.000,00)
  --help                    show this text

  No tool result shows a secret key, a webhook secret or card data.
`;

const LIVE = /(?:pk|sk)_live_/;

/** Reads `paykit-mock mcp`'s arguments and environment; throws an Error whose message is meant for the user. */
export function parseMcpArgs(argv: string[], env: NodeJS.ProcessEnv = {}): McpCliOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      keys: { type: "string" },
      "admin-token": { type: "string" },
      "webhook-secret": { type: "string" },
      "max-payout-cents": { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return "help";
  const keysText =
    values.keys ??
    (env.PAYKIT_PUBLIC_KEY && env.PAYKIT_SECRET_KEY
      ? `${env.PAYKIT_PUBLIC_KEY}:${env.PAYKIT_SECRET_KEY}`
      : undefined);
  let keys: McpCliOptions["keys"];
  if (keysText !== undefined) {
    if (LIVE.test(keysText))
      throw new Error(
        "live keys (pk_live_/sk_live_) are refused: paykit-mock mcp drives the mock only, with test keys",
      );
    const [publicKey = "", secretKey = "", ...rest] = keysText.split(":");
    if (rest.length > 0 || !/^pk_test_\w{8,100}$/.test(publicKey) || !/^sk_test_\w{8,100}$/.test(secretKey))
      throw new Error("--keys must be pk_test_…:sk_test_… (an account of the mock)");
    keys = { publicKey, secretKey };
  }
  const adminToken = values["admin-token"] ?? (env.PAYKIT_MOCK_ADMIN_TOKEN || undefined);
  const webhookSecret = values["webhook-secret"] ?? (env.PAYKIT_WEBHOOK_SECRET || undefined);
  if (webhookSecret !== undefined && !/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/.test(webhookSecret))
    throw new Error("--webhook-secret must be whsec_ followed by base64 (at least 16 characters)");
  const maxText = values["max-payout-cents"];
  const maxPayoutCents = maxText === undefined ? DEFAULT_MAX_PAYOUT_CENTS : Number(maxText);
  if (maxText !== undefined && (!/^\d+$/.test(maxText) || !Number.isSafeInteger(maxPayoutCents)))
    throw new Error(`--max-payout-cents must be a whole number of cents, got ${maxText}`);
  return {
    url: mockUrlOf(values.url ?? DEFAULT_MOCK_URL),
    keys,
    adminToken,
    webhookSecret,
    maxPayoutCents,
  };
}

function mockUrlOf(value: string): string {
  return httpUrlOption("--url", value, "the mock's http(s) URL");
}

/** This package's version, from its package.json (one level up from dist/node, three from src/transports/node). */
function packageVersion(): string {
  for (const relative of ["../../package.json", "../../../package.json"]) {
    try {
      const json = JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (json.name === "@paykit/mock-server" && json.version) return json.version;
    } catch {
      // not this level
    }
  }
  return "0.0.0";
}

/** `paykit-mock mcp`: checks the options and the mock, then serves MCP on stdin/stdout until stdin closes. */
export async function mcpCommand(argv: string[]): Promise<void> {
  let options: ReturnType<typeof parseMcpArgs>;
  try {
    options = parseMcpArgs(argv, process.env);
  } catch (error) {
    process.stderr.write(`paykit-mock mcp: ${(error as Error).message}\n\n${MCP_USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    // stdout is free here: no client reads MCP from a --help.
    process.stdout.write(MCP_USAGE);
    return;
  }
  const identity = await identifyMock(options.url);
  if (identity.kind === "other") {
    process.stderr.write(
      `paykit-mock mcp: ${options.url} is not a Paykit mock (GET /_mock/openapi.json answered ${identity.answer}); ` +
        "this server drives the mock only\n",
    );
    process.exitCode = 2;
    return;
  }
  if (identity.kind === "unreachable")
    process.stderr.write(
      `paykit-mock mcp: nothing answers at ${options.url} yet (${identity.cause}); each tool checks again\n`,
    );
  const sandbox = new Sandbox({
    url: options.url,
    maxPayoutCents: options.maxPayoutCents,
    ...(options.keys === undefined ? {} : { keys: options.keys }),
    ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
    ...(options.webhookSecret === undefined ? {} : { webhookSecret: options.webhookSecret }),
  });
  const server = createMcpServer(sandbox, mcpTools(), { version: packageVersion() });
  const transport = new StdioServerTransport();
  // The client ends the session by closing our stdin.
  process.stdin.once("end", () => void server.close());
  await server.connect(transport);
  process.stderr.write(`paykit-mock mcp: serving MCP on stdio for the mock at ${options.url}\n`);
}
