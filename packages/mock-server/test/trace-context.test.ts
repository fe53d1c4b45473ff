import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChangeTracker } from "../src/domain/changes.js";
import { createPayin, expireOnClock, transitionPayin } from "../src/domain/payins.js";
import { createPayout } from "../src/domain/payouts.js";
import type { PayinRecord, PayoutRecord } from "../src/domain/records.js";
import { MockState } from "../src/domain/state.js";
import { parseTraceparent } from "../src/domain/trace-context.js";
import { createEngine, type MockEngine } from "../src/index.js";
import { basic, cardPayin, payoutBody, pixPayin } from "./fixtures.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

const servers: Server[] = [];
const engines: MockEngine[] = [];
const states: MockState[] = [];
afterEach(async () => {
  for (const s of states.splice(0)) s.close();
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

// The domain's create functions take the creating request's trace as an argument and put it on the
// record before anything else happens, so a webhook sent before the request returns carries it too.
describe("the domain records the creating request's trace on the record it creates", () => {
  const trace = parseTraceparent(`00-${TRACE_ID}-${CALLER_SPAN}-01`);

  it("a webhook sent in the same turn as the creation (before any handler could add the trace) carries it", async () => {
    const sent: Record<string, string>[] = [];
    const state = new MockState(
      {
        autoAdvance: false,
        fetch: async (_url, init) => {
          sent.push(init.headers as Record<string, string>);
          return new Response(null, { status: 204 });
        },
      },
      expireOnClock,
    );
    states.push(state);
    const { payin } = createPayin(
      state,
      state.defaultAccount,
      pixPayin({ webhookUrl: "http://hooks.test/paykit" }),
      "http://mock.test",
      trace,
    );
    transitionPayin(state, payin, "APPROVED");
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]?.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
  });

  it.each([
    [
      "a card payin approved at once",
      "APPROVED",
      (state: MockState) =>
        createPayin(state, state.defaultAccount, cardPayin(), "http://mock.test", trace).payin,
    ],
    [
      "a PIX payin",
      "PENDING",
      (state: MockState) =>
        createPayin(state, state.defaultAccount, pixPayin(), "http://mock.test", trace).payin,
    ],
    [
      "a payout",
      "PENDING",
      (state: MockState) => createPayout(state, state.defaultAccount, payoutBody(), trace),
    ],
  ])(
    "%s (%s) has it when the record is first marked changed, before anything can send",
    (_kind, status, create) => {
      const state = new MockState({ autoAdvance: false }, expireOnClock);
      states.push(state);
      const seen: unknown[] = [];
      // The first moment a new record leaves its create function is the change a durable store is told of.
      class Watch extends ChangeTracker {
        override payin(payin: PayinRecord): void {
          seen.push(state.traces.get(payin));
          super.payin(payin);
        }
        override payout(payout: PayoutRecord): void {
          seen.push(state.traces.get(payout));
          super.payout(payout);
        }
      }
      state.changes = new Watch(() => {});
      const record = create(state);
      expect(record.status).toBe(status);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]).toEqual(trace);
      expect(state.traces.get(record)).toEqual(trace);
    },
  );

  it("records none for a request without a valid traceparent", () => {
    const state = new MockState({ autoAdvance: false }, expireOnClock);
    states.push(state);
    const { payin } = createPayin(state, state.defaultAccount, pixPayin(), "", null);
    expect(state.traces.has(payin)).toBe(false);
  });
});
