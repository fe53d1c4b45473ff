import { afterEach, describe, expect, it, vi } from "vitest";
import { createMockServer, type MockServer } from "../src/index.js";
import { apiOf, payoutBody, WAIT } from "./fixtures.js";

describe("automatic processing (docs/decisions/mock-server-starting.md)", () => {
  let mock: MockServer;
  afterEach(() => mock.close());

  it("moves a payout one step per interval to COMPLETED; an account's autoAdvance:false wins", async () => {
    mock = await createMockServer({ advanceIntervalMs: 20 });
    await mock.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
    const harness = { send: (p: string, i?: RequestInit) => fetch(mock.url + p, i), account: mock.account };
    const api = apiOf(harness as never);
    const created = await api.post("/payout", payoutBody());
    expect(created.body.status).toBe("PENDING");
    await vi.waitFor(async () => {
      const list = await api.get(`/payout?referenceId=${created.body.referenceId}`);
      expect(list.body.data[0].status).toBe("COMPLETED");
    }, WAIT);
    const manualKeys = await mock.control.createAccount({ autoAdvance: false, balance: 10_000 });
    const manual = apiOf(harness as never, manualKeys);
    const waiting = await manual.post("/payout", payoutBody());
    await new Promise((r) => setTimeout(r, 100));
    expect((await manual.get(`/payout?referenceId=${waiting.body.referenceId}`)).body.data[0].status).toBe(
      "PENDING",
    );
  });

  it("stops every timer on close and reset", async () => {
    mock = await createMockServer({ advanceIntervalMs: 20 });
    await mock.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
    const api = apiOf({
      send: (p: string, i?: RequestInit) => fetch(mock.url + p, i),
      account: mock.account,
    } as never);
    await api.post("/payout", payoutBody());
    await mock.control.reset();
    await new Promise((r) => setTimeout(r, 80));
    expect((await api.get("/payout")).body.meta.total).toBe(0);
  });
});
