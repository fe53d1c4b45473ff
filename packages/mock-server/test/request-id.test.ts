// The mock answers a request's X-Request-Id back on every answer, over every transport, so a client's
// id for an attempt matches the answer it got (docs/decisions/request-ids.md).
import { describe, expect, it } from "vitest";
import { basic, payoutBody, startHarness, TRANSPORTS } from "./fixtures.js";

const ID = "req_01KAV3M5Q7WJ8Z2X9C4N6B1D3F";

describe.each(TRANSPORTS)("X-Request-Id over %s", (transport) => {
  it.each([
    ["a read", "GET", "/payout?limit=1", undefined, 200],
    ["a creation", "POST", "/payout", payoutBody(), 201],
    ["an error answer", "GET", "/payin/pi_missing", undefined, 404],
    ["an unknown route", "GET", "/nowhere", undefined, 404],
  ])("%s answers it back", async (_label, method, path, body, status) => {
    const h = await startHarness(transport, { autoAdvance: false });
    try {
      const res = await h.send(path, {
        method,
        headers: { authorization: basic(h.account), "content-type": "application/json", "x-request-id": ID },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res === "dropped") throw new Error("dropped");
      expect(res.status).toBe(status);
      expect(res.headers.get("x-request-id")).toBe(ID);
    } finally {
      await h.close();
    }
  });

  it("a request without one, or with one no client makes, gets none back", async () => {
    const h = await startHarness(transport, { autoAdvance: false });
    try {
      const without: Record<string, string>[] = [{}, { "x-request-id": "x".repeat(201) }];
      for (const headers of without) {
        const res = await h.send("/payout", { headers: { authorization: basic(h.account), ...headers } });
        if (res === "dropped") throw new Error("dropped");
        expect(res.status).toBe(200);
        expect(res.headers.get("x-request-id")).toBeNull();
      }
    } finally {
      await h.close();
    }
  });
});
