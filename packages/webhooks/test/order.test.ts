import { describe, expect, it } from "vitest";
import { MemoryOrderStore, orderClaimOf, WebhookOrderGuard } from "../src/index.js";
import { fakeTime } from "./dedupe-contract.js";
import { orderStoreContract } from "./order-contract.js";

// Its clock reads Date.now() at each call, so the contract runs on fake timers: no test waits.
const memory = new MemoryOrderStore({ now: () => Date.now() });
orderStoreContract("MemoryOrderStore", () => memory, fakeTime);

describe("WebhookOrderGuard", () => {
  it.each([
    ["leaseMs", 0],
    ["leaseMs", 1.5],
    ["ttlMs", -1],
  ])("refuses %s = %s", (name, value) => {
    expect(() => new WebhookOrderGuard({ [name]: value })).toThrow(name);
  });

  it("refuses to remember a record without an id or a readable updatedAt, naming the field", async () => {
    const guard = new WebhookOrderGuard();
    await expect(
      guard.remember("payout", { id: "", status: "PENDING", updatedAt: "2026-11-22T10:00:00Z" }),
    ).rejects.toThrow(/id must be a non-empty string/);
    await expect(
      guard.remember("payout", { id: "po_1", status: "PENDING", updatedAt: "soon" }),
    ).rejects.toThrow(/updatedAt must be an ISO 8601 date-time/);
  });
});

describe("MemoryOrderStore", () => {
  const claim = (status: string) => orderClaimOf("payout", status, "2026-11-22T10:00:00Z");

  it("keeps at most maxEntries resources, forgetting the oldest written", () => {
    const store = new MemoryOrderStore({ maxEntries: 2 });
    store.commit("a", claim("PENDING"), "", 60_000);
    store.commit("b", claim("PENDING"), "", 60_000);
    store.commit("c", claim("PENDING"), "", 60_000);
    expect(store.size).toBe(2);
    expect(store.read("a")).toBeNull();
    expect(store.read("c")).toMatchObject({ status: "PENDING" });
  });

  it("forgets a state after its TTL on its own clock", () => {
    let clock = 0;
    const store = new MemoryOrderStore({ now: () => clock });
    store.commit("a", claim("COMPLETED"), "", 1_000);
    clock = 999;
    expect(store.read("a")).toMatchObject({ status: "COMPLETED" });
    clock = 1_000;
    expect(store.read("a")).toBeNull();
  });
});
