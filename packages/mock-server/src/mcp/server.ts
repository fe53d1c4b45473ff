// The MCP server of `paykit-mock mcp`: lists the tools and runs a call with this server's rules
// around it. Live keys in the arguments are refused, the URL must be a Paykit mock, and the answer
// shown is JSON with every secret and card number withheld; a refusal is a tool result with
// `isError: true` carrying the error code and message, never a failure of the server.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { Sandbox } from "./sandbox.js";
import type { JsonObject, McpTool } from "./tool.js";
import { ToolError } from "./tool-error.js";
import { refuseLiveKeys, withholdSecrets } from "./withheld.js";

/** What the server tells an agent about itself when it connects. */
export const MCP_INSTRUCTIONS = `Drives a Paykit mock (a sandbox of the payment service; never the real one).
Amounts are integer cents (R$ 10,00 is 1000). Without --keys, call createAccount first: the later tools act
on the account this session created, whose keys the server keeps. A typical PIX flow: createPayin (with a
webhookUrl to receive webhooks), payPayin, retrievePayin (APPROVED), webhooks (the delivery log).
A payout: createPayout, then advancePayout until COMPLETED (or failPayout). Errors carry the service's
code and message. The guides: docs/testing.md of the Paykit repository, and its llms.txt.`;

/** Runs one tool call under the server's rules; every outcome is a tool result. */
export async function callTool(tool: McpTool, args: unknown, sandbox: Sandbox): Promise<CallToolResult> {
  const shown = (value: unknown) => sandbox.scrubber.scrub(JSON.stringify(withholdSecrets(value), null, 2));
  try {
    const input: JsonObject =
      args !== null && typeof args === "object" && !Array.isArray(args) ? (args as JsonObject) : {};
    refuseLiveKeys(input);
    sandbox.scrubber.rememberCards(input);
    await sandbox.verify();
    const value = await tool.run(input, sandbox);
    return { content: [{ type: "text", text: shown(value ?? { done: true }) }] };
  } catch (error) {
    const refusal =
      error instanceof ToolError
        ? {
            code: error.code,
            message: error.message,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.details === undefined ? {} : { details: error.details }),
          }
        : { code: "TOOL_FAILED", message: (error as Error)?.message ?? String(error) };
    return { isError: true, content: [{ type: "text", text: shown(refusal) }] };
  }
}

/** Information about this MCP server, as it introduces itself to a client. */
export interface McpServerInfo {
  /** The server's version (the `@paykit/mock-server` package's). */
  version: string;
}

/** The MCP server over a sandbox, with its tools (not yet connected to a transport). */
export function createMcpServer(sandbox: Sandbox, tools: readonly McpTool[], info: McpServerInfo): Server {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: "paykit-mock", version: info.version },
    { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema: inputSchema as { type: "object" },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    // An unknown tool is a protocol error (the client named something the list never offered).
    if (tool === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        sandbox.scrubber.scrub(`no tool named ${request.params.name}`),
      );
    return callTool(tool, request.params.arguments, sandbox);
  });
  return server;
}
