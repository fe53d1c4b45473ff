// A durable sandbox survives its process: what a mock on PGlite (`--data-dir`) or PostgreSQL (`--store`)
// answered before a stop is there after a start, and the work that was due (expiries, reserve releases,
// automatic payout steps, webhook retries) goes on from where it was.
import { describe, expect, it } from "vitest";
import { createMockServer, type MockServerOptions } from "../../src/index.js";
import { StoreInUseError } from "../../src/stores/open-store.js";
import { apiOf, basic, boletoPayin, cardPayin, payoutBody, pixPayin, ref } from "../fixtures.js";
import { newStore, webhookReceiver } from "./store-kinds.js";

const ADMIN = "admin-token-for-restart-tests";

/** A new empty store of each kind. */
const STORES = {
  pglite: () => newStore("pglite", "restart"),
  postgres: () => newStore("postgres", "restart"),
};

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])("a mock on %s, stopped and started", (kind) => {
  it("keeps every record, balance, setting, clock and key, and resumes the work that was due", async () => {
    const store = await STORES[kind]();
    const hook = await webhookReceiver();
    const options: MockServerOptions = { store, adminToken: ADMIN, autoAdvance: false, sharedSandbox: false };
    let mock = await createMockServer(options);
    const keys = mock.account;
    const api = () => apiOf({ send: (p: string, i?: RequestInit) => fetch(mock.url + p, i) } as never, keys);

    const pix = (await api().post("/payin", pixPayin({ webhookUrl: hook.url }))).body;
    const boleto = (await api().post("/payin", boletoPayin())).body;
    const card = (await api().post("/payin", cardPayin())).body;
    expect(card.status).toBe("APPROVED");
    const threeDS = (await api().post("/payin", cardPayin("4000000000003220", { webhookUrl: hook.url })))
      .body;
    expect(threeDS.status).toBe("PENDING_3DS");
    await mock.control.updateAccount(keys.accountId, { payoutApproval: "manual" });
    const waiting = (await api().post("/payout", payoutBody({ referenceId: ref("wait") }))).body;
    expect(waiting.status).toBe("AWAITING_APPROVAL");
    await mock.control.updateAccount(keys.accountId, { payoutApproval: "automatic" });
    const moving = (
      await api().post("/payout", payoutBody({ referenceId: ref("move"), webhookUrl: hook.url }))
    ).body;
    const other = await mock.control.createAccount({ balance: 12_345, webhookDuplicates: true });
    await mock.control.setAccountClock(other.accountId, { advanceMs: 3_600_000 });
    await mock.control.registerPixKey({
      type: "EMAIL",
      key: "own@merchant.test",
      accountId: other.accountId,
    });
    // the payin's event meets a receiver that is down: its delivery waits for a retry
    await mock.control.payPayin(pix.id);
    await mock.control.flushWebhooks();
    const before = {
      account: await mock.control.getAccount(keys.accountId),
      other: await mock.control.getAccount(other.accountId),
      otherClock: Date.parse((await mock.control.accountClock(other.accountId)).now),
      // An account's clock runs on with real time (at its own offset): the restart's duration is added.
      readAt: Date.now(),
      payins: await mock.control.payins(keys.accountId),
      payouts: await mock.control.payouts(keys.accountId),
      webhooks: await mock.control.webhooks(),
      pixKeys: await mock.control.pixKeys(other.accountId),
    };
    expect(before.webhooks.find((d) => d.resourceId === pix.id)?.state).toBe("pending");
    await mock.close();

    // First start without automatic steps: what is read back is exactly what was there (with steps on,
    // the automatic payout may already have moved on when a busy machine takes a few seconds to start).
    mock = await createMockServer(options);
    try {
      // a store keeps the secret key as a hash: a process that did not make the account cannot show it
      // again (docs/decisions/secret-keys-hashed.md); the keys still open it
      expect(mock.account).toEqual({ ...keys, secretKey: "" });
      expect(await mock.control.getAccount(keys.accountId)).toEqual(before.account);
      expect(await mock.control.getAccount(other.accountId)).toEqual(before.other);
      expect(
        Math.abs(
          Date.parse((await mock.control.accountClock(other.accountId)).now) -
            (before.otherClock + (Date.now() - before.readAt)),
        ),
      ).toBeLessThan(5_000);
      expect(await mock.control.payins(keys.accountId)).toEqual(before.payins);
      expect(await mock.control.pixKeys(other.accountId)).toEqual(before.pixKeys);
      for (const id of [pix.id, boleto.id, card.id]) {
        const res = await api().get(`/payin/${id}`);
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(id);
      }
      expect((await api().get(`/payout?referenceId=${waiting.referenceId}`)).body.data[0].status).toBe(
        "AWAITING_APPROVAL",
      );
    } finally {
      await mock.close();
    }

    mock = await createMockServer({ ...options, advanceIntervalMs: 20, autoAdvance: true });
    try {
      // the automatic payout moves on from where it was, one step per interval
      await expect
        .poll(
          async () => (await api().get(`/payout?referenceId=${moving.referenceId}`)).body.data[0].status,
          {
            timeout: 10_000,
          },
        )
        .toBe("COMPLETED");
      // the waiting delivery is retried with its webhook-id once its time comes
      hook.answer(200);
      await mock.control.setClock({ advanceMs: 60 * 60_000 });
      await mock.control.flushWebhooks();
      const pixDelivery = (await mock.control.webhooks()).find(
        (d) => d.resourceId === pix.id && d.status === "APPROVED",
      );
      expect(pixDelivery?.state).toBe("delivered");
      const ids = hook.received.filter((r) => r.body.id === pix.id).map((r) => r.webhookId);
      expect(new Set(ids)).toEqual(new Set([pixDelivery?.webhookId]));
      // the PENDING_3DS payin's 15-minute expiry was armed again, and its webhook sent
      expect((await api().get(`/payin/${threeDS.id}`)).body.status).toBe("EXPIRED");
      await expect
        .poll(() => hook.received.filter((r) => r.body.id === threeDS.id).map((r) => r.body.status), {
          timeout: 10_000,
        })
        .toEqual(["EXPIRED"]);
      // the boleto's expiry and the card's reserve release were armed again
      await mock.control.setClock({ advanceMs: 31 * 24 * 3_600_000 });
      expect((await api().get(`/payin/${boleto.id}`)).body.status).toBe("EXPIRED");
      expect((await mock.control.getAccount(keys.accountId)).balance.reserved).toBe(0);
    } finally {
      await mock.close();
      await hook.close();
    }
  }, 240_000);

  it.runIf(kind === "pglite")(
    "is held by one process at a time, and taken over once that process is gone",
    async () => {
      const store = await STORES[kind]();
      const options: MockServerOptions = { store, adminToken: ADMIN, autoAdvance: false };
      const first = await createMockServer(options);
      await expect(createMockServer(options)).rejects.toBeInstanceOf(StoreInUseError);
      await first.close();
      const second = await createMockServer(options);
      expect(second.account).toEqual({ ...first.account, secretKey: "" });
      await second.close();
    },
    120_000,
  );

  it("keeps the keys fixed with --default-keys: the account is made once and served after every start", async () => {
    const store = await STORES[kind]();
    const defaultAccount = { publicKey: "pk_test_fixedkeys1", secretKey: "sk_test_fixedkeys1" };
    const options: MockServerOptions = { store, adminToken: ADMIN, autoAdvance: false, defaultAccount };
    const first = await createMockServer(options);
    const payin = await fetch(`${first.url}/payin`, {
      method: "POST",
      headers: { authorization: basic(defaultAccount), "content-type": "application/json" },
      body: JSON.stringify(pixPayin()),
    });
    expect(payin.status).toBe(201);
    await first.close();
    const second = await createMockServer(options);
    try {
      expect(second.account.accountId).toBe(first.account.accountId);
      expect(await second.control.accounts()).toHaveLength(1);
      expect((await second.control.payins(first.account.accountId)).length).toBe(1);
    } finally {
      await second.close();
    }
  }, 120_000);
});

it("a PostgreSQL store needs an admin token, and serves the shared sandbox's rules", async () => {
  const store = await STORES.postgres();
  await expect(createMockServer({ store })).rejects.toThrow(/adminToken/);
  const mock = await createMockServer({ store, adminToken: ADMIN });
  try {
    // POST /_mock/accounts is open; the sandbox clock is not
    const created = await fetch(`${mock.url}/_mock/accounts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(created.status).toBe(201);
    const own = await created.json();
    const clock = await fetch(`${mock.url}/_mock/clock`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: basic(own) },
      body: JSON.stringify({ advanceMs: 1000 }),
    });
    expect(clock.status).toBe(403);
  } finally {
    await mock.close();
  }
}, 120_000);
