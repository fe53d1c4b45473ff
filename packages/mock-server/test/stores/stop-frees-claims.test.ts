// A durable mock that stops on purpose (close(), SIGTERM) while a webhook attempt waits on a receiver
// that does not answer frees that attempt's claim: the next process on the store makes it at once, not
// when the stopped process's lease would have ended (docs/decisions/sandbox-store.md).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createMockServer } from "../../src/index.js";
import { openSandboxStore } from "../../src/stores/open-store.js";
import { pixPayin } from "../fixtures.js";
import { newStore, type StoreKind } from "./store-kinds.js";

const ADMIN = "admin-token-for-stop-tests";

describe.each(["pglite", "postgres"] as StoreKind[])("a mock on %s that stops mid-attempt", (kind) => {
  it("frees its claim: another process may make the attempt at once", async () => {
    const store = await newStore(kind, "stop-frees");
    // a receiver that takes the request and never answers
    let arrived = 0;
    const hanging = createServer(() => {
      arrived += 1;
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const hookUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`;
    try {
      const mock = await createMockServer({ store, adminToken: ADMIN, autoAdvance: false });
      const keys = mock.account;
      const res = await fetch(`${mock.url}/payin`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(pixPayin({ webhookUrl: hookUrl })),
      });
      expect(res.status).toBe(201);
      await mock.control.payPayin(((await res.json()) as { id: string }).id);
      await expect.poll(() => arrived, { timeout: 30_000 }).toBeGreaterThan(0);
      await mock.close();

      // the store as the next process finds it, at once: the attempt is free for it to claim
      const next = await openSandboxStore(store!, {});
      try {
        const claims = await next.claimAttempts("next-process", { limit: 10, leaseMs: 10_000 });
        expect(claims.map((c) => `${c.delivery.resource} ${c.delivery.status}`)).toEqual(["payin APPROVED"]);
      } finally {
        await next.close();
      }
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  }, 120_000);
});
