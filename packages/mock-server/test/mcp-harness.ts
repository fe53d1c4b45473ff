// `paykit-mock mcp` as an agent meets it: the MCP SDK's own client, spawning the CLI from source (bundled
// into one file run by node, test/cli-bundle.ts, as test/cli.test.ts does) and talking to it over stdio. Every
// process and server started here is stopped by `stopAll`, which the tests call in afterAll.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { runGroup } from "../../../scripts/processes.mjs";
import { mockCli } from "./cli-bundle.js";

/** node's arguments for `paykit-mock mcp`. */
const nodeArgs = async () => [await mockCli(), "mcp"];

const transports = new Set<StdioClientTransport>();
const servers = new Set<Server>();
// The SDK's transport spawns the server without a process group of its own (scripts/processes.mjs cannot
// adopt it), but the server has no children and ends when its stdin closes, which the death of this
// process does. Those still running when this process exits anyway (a test timed out) are killed, each
// only while its transport has not seen it close: the pid of a process that ended may be another's later.
const running = new Map<StdioClientTransport, number>();
process.once("exit", () => {
  for (const pid of running.values()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** A connected MCP client of one `paykit-mock mcp` process. */
export interface McpSession {
  client: Client;
  /** Calls a tool; answers its result's text parsed as JSON, and whether it was a refusal. */
  call(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ isError: boolean; text: string; json: unknown }>;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** The server's process id. */
  pid: number;
}

/** Starts `paykit-mock mcp <args>` and connects the SDK's client to it. */
export async function startMcp(args: string[], env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(await nodeArgs()), ...args],
    // Only what node needs: no PAYKIT_* of the machine running the tests reaches the server.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  transports.add(transport);
  // Set before connecting: the client chains its own handler after this one.
  transport.onclose = () => running.delete(transport);
  const client = new Client({ name: "paykit-mcp-test", version: "1.0.0" });
  const connected = client.connect(transport);
  // connect() spawns the process before its first await, whether or not the handshake then succeeds.
  if (transport.pid !== null) running.set(transport, transport.pid);
  await connected;
  return {
    client,
    pid: transport.pid as number,
    stderr: () => stderr,
    async call(name, toolArgs = {}) {
      const result = await client.callTool({ name, arguments: toolArgs }, undefined, { timeout: 120_000 });
      const content = result.content as { type: string; text: string }[];
      const text = content.map((part) => part.text).join("\n");
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { isError: result.isError === true, text, json };
    },
  };
}

/** Runs `paykit-mock mcp <args>` to its exit (a refusal at start), in a process group of its own. */
export async function runMcpToExit(
  args: string[],
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const run = await runGroup(process.execPath, [...(await nodeArgs()), ...args], {
    timeoutMs: 60_000,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  });
  return { code: run.code, stderr: run.stderr, stdout: run.stdout };
}

/** A local HTTP server answering every request with `answer`; records what it received. */
export async function localServer(
  answer: (req: IncomingMessage, body: string) => { status: number; body: string; type?: string },
): Promise<{ url: string; received: { headers: IncomingMessage["headers"]; body: string }[] }> {
  const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, body });
      const out = answer(req, body);
      res.writeHead(out.status, { "content-type": out.type ?? "text/plain" }).end(out.body);
    });
  });
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** Stops every MCP server this harness started (the SDK's close: stdin closed, then SIGTERM, then SIGKILL) and every local server. */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...transports].map((transport) => transport.close()));
  transports.clear();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers.clear();
}
