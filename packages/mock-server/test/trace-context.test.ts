import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEngine, type MockEngine } from "../src/index.js";
import { basic, payoutBody, pixPayin } from "./fixtures.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

const servers: Server[] = [];
const engines: MockEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function receiver(): Promise<{ url: string; received: IncomingHttpHeaders[] }> {
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push(req.headers);
      res.writeHead(204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

async function post(engine: MockEngine, path: string, body: unknown, traceparent?: string) {
  const headers: Record<string, string> = {
    authorization: basic(engine.account),
    "content-type": "application/json",
  };
  if (traceparent) headers.traceparent = traceparent;
  const res = await engine.handle(
    new Request(`http://mock.test${path}`, { method: "POST", headers, body: JSON.stringify(body) }),
  );
  return (await res.json()) as { id: string };
}

describe("the mock carries the creating request's trace to its webhooks", () => {
  it("sends a traceparent in the same trace, with a span id of its own, on every payin delivery", async () => {
    const engine = createEngine({ autoAdvance: false });
    engines.push(engine);
    const hook = await receiver();
    const payin = await post(
      engine,
      "/payin",
      pixPayin({ webhookUrl: hook.url }),
      `00-${TRACE_ID}-${CALLER_SPAN}-01`,
    );
    await engine.control.payPayin(payin.id);
    await vi.waitFor(() => expect(hook.received).toHaveLength(1));
    const sent = String(hook.received[0]?.traceparent);
    expect(sent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(sent).not.toContain(CALLER_SPAN);
  });

  it("carries it on payout deliveries too, and sends none when the creating request had none or a bad one", async () => {
    const engine = createEngine({ autoAdvance: false, defaultAccount: { balance: 100_000 } });
    engines.push(engine);
    const hook = await receiver();
    const traced = await post(
      engine,
      "/payout",
      payoutBody({ webhookUrl: hook.url }),
      `00-${TRACE_ID}-${CALLER_SPAN}-00`,
    );
    const untraced = await post(
      engine,
      "/payout",
      payoutBody({ webhookUrl: hook.url }),
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    );
    await engine.control.advancePayout(traced.id);
    await vi.waitFor(() => expect(hook.received).toHaveLength(1));
    expect(hook.received[0]?.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`));
    await engine.control.advancePayout(untraced.id);
    await vi.waitFor(() => expect(hook.received).toHaveLength(2));
    expect(hook.received[1]).not.toHaveProperty("traceparent");
  });
});
