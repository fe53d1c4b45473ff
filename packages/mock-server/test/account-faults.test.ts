// Faults scoped to one account (issue 15, isolation for teams): a fault naming `accountId` applies only
// to requests authenticated as that account, so parallel runs sharing one mock never trip over each
// other's faults. Over every transport; over node:http the control API is reached over HTTP.
import { beforeAll, describe, expect, it } from "vitest";
import { warmStore } from "./durable-harness.js";
import { basic, startHarness, TRANSPORTS_AND_STORES } from "./fixtures.js";

describe.each(TRANSPORTS_AND_STORES)("faults naming an account, over %s", (transport) => {
  beforeAll(() => warmStore(transport), 120_000);
  it("apply to that account's requests only; others, and unauthenticated ones, pass", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      const a = await mock.control.createAccount();
      const b = await mock.control.createAccount();
      const fault = await mock.control.addFault({
        method: "GET",
        path: "/payout",
        status: 503,
        times: 2,
        accountId: a.accountId,
      });
      expect(fault).toMatchObject({ accountId: a.accountId, times: 2 });
      const list = (keys: { publicKey: string; secretKey: string }) =>
        mock.send("/payout", { headers: { authorization: basic(keys) } });
      const status = async (r: Promise<Response | "dropped">) => {
        const res = await r;
        return res === "dropped" ? "dropped" : res.status;
      };
      expect(await status(list(b))).toBe(200);
      expect(await status(mock.send("/payout"))).toBe(401); // no credentials: not account A's request
      expect(await status(list(a))).toBe(503);
      expect(await status(list(b))).toBe(200);
      expect(await status(list(a))).toBe(503);
      expect(await status(list(a))).toBe(200); // both uses spent
      expect(await mock.control.faults()).toEqual([]);
    } finally {
      await mock.close();
    }
  });

  it("are listed and cleared per account, and an unscoped fault still applies to everyone", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      const a = await mock.control.createAccount();
      const b = await mock.control.createAccount();
      await mock.control.addFault({ path: "/payin/*", status: 500, times: 5, accountId: a.accountId });
      await mock.control.addFault({
        path: "/payin/*",
        status: 502,
        code: "PROVIDER_ERROR",
        times: 5,
        accountId: b.accountId,
      });
      await mock.control.addFault({ path: "/payout", status: 429, times: 1 });
      expect((await mock.control.faults(a.accountId)).map((f) => f.status)).toEqual([500]);
      expect((await mock.control.faults()).map((f) => f.status)).toEqual([500, 502, 429]);
      await mock.control.clearFaults(a.accountId);
      expect((await mock.control.faults()).map((f) => f.status)).toEqual([502, 429]);
      const res = await mock.send("/payout", { headers: { authorization: basic(a) } });
      expect(res === "dropped" ? res : res.status).toBe(429); // the unscoped one
      const retrieve = await mock.send("/payin/pi_x", { headers: { authorization: basic(b) } });
      expect(retrieve === "dropped" ? retrieve : retrieve.status).toBe(502);
    } finally {
      await mock.close();
    }
  });

  it("refuses a fault naming an account that does not exist", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      await expect(
        mock.control.addFault({ path: "/payout", status: 500, accountId: "acct_nope" }),
      ).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      expect(await mock.control.faults()).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});
