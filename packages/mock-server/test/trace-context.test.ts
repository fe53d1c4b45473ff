// The creating request's W3C trace context (`traceparent`) on every webhook of the payin or payout it
// created (docs/decisions/webhooks.md): over the engine, and as the rules and stores keep it (the record
// carries its `trace`, and so does each delivery, so a retry made later, by any process, carries it too).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openAccount } from "../src/domain/control.js";
import { attemptHeaders } from "../src/domain/deliveries.js";
import { settledAccount } from "../src/domain/due.js";
import { UlidFactory } from "../src/domain/ids.js";
import { createPayin, transitionPayin } from "../src/domain/payins.js";
import { createPayout } from "../src/domain/payouts.js";
import type { PayinRecord, PayoutRecord } from "../src/domain/records.js";
import type { SandboxStore, StoreTx } from "../src/domain/repository.js";
import { parseTraceparent, type TraceContext } from "../src/domain/trace-context.js";
import { type SandboxRules, Turn } from "../src/domain/turn.js";
import { createEngine, type MockEngine } from "../src/index.js";
import { DEFAULT_DELIVERY_CONCURRENCY, DeliverySlots } from "../src/internal/delivery-slots.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";
import { Turns } from "../src/work/turns.js";
import { Worker } from "../src/work/worker.js";
import { storeOn, warmStore } from "./durable-harness.js";
import { basic, cardPayin, payoutBody, pixPayin, WAIT } from "./fixtures.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

const servers: Server[] = [];
const engines: MockEngine[] = [];
const closing: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
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
    await vi.waitFor(() => expect(hook.received).toHaveLength(1), WAIT);
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
    await vi.waitFor(() => expect(hook.received).toHaveLength(1), WAIT);
    expect(hook.received[0]?.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`));
    await engine.control.advancePayout(untraced.id);
    await vi.waitFor(() => expect(hook.received).toHaveLength(2), WAIT);
    expect(hook.received[1]).not.toHaveProperty("traceparent");
  });
});

// The create functions take the creating request's trace as an argument and put it on the record before
// its first write, so a webhook queued in the creating turn carries it, and a store keeps it with the
// record and each of its deliveries.
const RULES: SandboxRules = {
  autoAdvance: false,
  advanceIntervalMs: 1000,
  pixDirectory: "open",
  maxRecords: Number.POSITIVE_INFINITY,
};

describe.each(["memory", "pglite"] as const)(
  "the rules record the creating request's trace on what they create (%s store)",
  (kind) => {
    beforeAll(() => warmStore(kind), 120_000);
    const trace = parseTraceparent(`00-${TRACE_ID}-${CALLER_SPAN}-01`);

    /** A store of the kind with an account (balance for payouts), and its turns. */
    async function start() {
      const store: SandboxStore = kind === "memory" ? new MemoryStore() : await storeOn("pglite");
      closing.push(() => store.close());
      const ids = new UlidFactory();
      const turns = new Turns(store, RULES, ids);
      const accountId = await turns.run(
        async (turn) => (await openAccount(turn, { balance: 100_000 })).account.id,
      );
      return { store, ids, turns, accountId };
    }

    /**
     * A turn whose store transaction reports the trace each record has when the rules first write it
     * (the moment a store takes the record: the SQL stores write it as it then is).
     */
    async function watchedTurn<T>(
      started: Awaited<ReturnType<typeof start>>,
      work: (turn: Turn, accountId: string) => Promise<T>,
    ): Promise<{ result: T; written: (TraceContext | null)[] }> {
      const written: (TraceContext | null)[] = [];
      const result = await started.store.transaction(async (tx) => {
        const watched = new Proxy(tx, {
          get(target, name) {
            if (name === "insertPayin" || name === "insertPayout")
              return (record: { trace: TraceContext | null }) => {
                written.push(record.trace === null ? null : { ...record.trace });
                (target[name] as (r: unknown) => void)(record);
              };
            const value = Reflect.get(target, name, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }) as StoreTx;
        const turn = new Turn(watched, RULES, started.ids);
        return work(turn, started.accountId);
      });
      return { result, written };
    }

    it("a webhook queued in the creating turn carries it, in the store and on its attempt", async () => {
      const started = await start();
      const sent: Record<string, string>[] = [];
      const errors: unknown[] = [];
      const worker = new Worker({
        store: started.store,
        turns: started.turns,
        owner: "trace-test",
        fetcher: () => async (_url, init) => {
          sent.push(init.headers as Record<string, string>);
          return new Response(null, { status: 204 });
        },
        slots: new DeliverySlots(DEFAULT_DELIVERY_CONCURRENCY),
        timeoutMs: 5_000,
        onError: (error) => errors.push(error),
      });
      worker.start();
      closing.push(() => worker.close());
      const { payin, delivery } = await started.turns.run(async (turn) => {
        const account = await turn.account(started.accountId);
        const { payin } = await createPayin(
          turn,
          account,
          pixPayin({ webhookUrl: "http://hooks.test/paykit" }),
          "http://mock.test",
          trace,
        );
        transitionPayin(turn, account, payin, "APPROVED");
        expect(turn.queued).toHaveLength(1);
        return { payin, delivery: turn.queued[0]! };
      });
      expect(delivery.trace).toEqual(trace);
      expect(attemptHeaders(delivery, [], 0).traceparent).toMatch(
        new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`),
      );
      await vi.waitFor(() => expect(sent).toHaveLength(1), { timeout: 30_000 });
      expect(sent[0]?.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
      // read back by a later turn (another process of a shared store reads the same rows)
      const stored = await started.turns.run(async (turn) => ({
        payin: await turn.tx.payin(payin.id),
        delivery: await turn.tx.delivery(delivery.id),
      }));
      expect(stored.payin?.trace).toEqual(trace);
      expect(stored.delivery?.trace).toEqual(trace);
      expect(stored.delivery?.state).toBe("delivered");
      expect(errors).toEqual([]);
    });

    it.each<[string, string, (turn: Turn, accountId: string) => Promise<PayinRecord | PayoutRecord>]>([
      [
        "a card payin approved at once",
        "APPROVED",
        async (turn: Turn, accountId: string) =>
          (await createPayin(turn, await turn.account(accountId), cardPayin(), "http://mock.test", trace))
            .payin,
      ],
      [
        "a PIX payin",
        "PENDING",
        async (turn: Turn, accountId: string) =>
          (await createPayin(turn, await turn.account(accountId), pixPayin(), "http://mock.test", trace))
            .payin,
      ],
      [
        "a payout",
        "PENDING",
        async (turn: Turn, accountId: string) =>
          createPayout(turn, await turn.account(accountId), payoutBody(), trace, (id) =>
            settledAccount(turn, id),
          ),
      ],
    ])(
      "%s (%s) has it when the rules first write the record, and keeps it in the store",
      async (_kind, status, create) => {
        const started = await start();
        const { result: record, written } = await watchedTurn(started, create);
        expect(record.status).toBe(status);
        expect(written).toEqual([trace]);
        const stored = await started.turns.run(async (turn) =>
          "paymentMethod" in record ? turn.tx.payin(record.id) : turn.tx.payout(record.id),
        );
        expect(stored?.trace).toEqual(trace);
      },
    );

    it("records none for a request without a valid traceparent", async () => {
      const started = await start();
      const { result: payin, written } = await watchedTurn(
        started,
        async (turn, accountId) =>
          (await createPayin(turn, await turn.account(accountId), pixPayin(), "", null)).payin,
      );
      expect(written).toEqual([null]);
      const stored = await started.turns.run((turn) => turn.tx.payin(payin.id));
      expect(stored?.trace).toBeNull();
    });
  },
);
