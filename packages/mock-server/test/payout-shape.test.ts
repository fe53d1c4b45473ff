// A payout's shape is defined once (docs/decisions/sandbox-store.md; CONTRIBUTING.md, "To add a field
// to payouts"): the contract's schema, the one place the mock sets the field (domain/payouts.ts), and a
// column mapping only when a query needs the field. This test holds each step to it on every store: every
// field of the contract's payout comes back in every answer that shows a payout, and each column the SQL
// stores keep beside the record says what the record says. A field added to the contract and not set by
// the mock, lost by a store, or a column mapped from the wrong field fails here.
import { Payout, PayoutWebhookBody } from "@paykit/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer, type WebhookFetch } from "../src/index.js";
import { PAYOUT_COLUMNS } from "../src/stores/sql/columns.js";
import { databaseFor, storeOn, warmStore } from "./durable-harness.js";
import { basic, payoutBody } from "./fixtures.js";

/** The fields the contract gives a payout (the wire's, from its schema). */
const CONTRACT_FIELDS = Object.keys(Payout.def.shape).sort();
/** The fields of a payout's webhook body: the record's, without `bankReceipt` (docs/decisions/webhooks.md). */
const WEBHOOK_FIELDS = Object.keys(PayoutWebhookBody.def.shape).sort();

describe.each(["memory", "pglite", "postgres"] as const)("a payout's fields on %s", (kind) => {
  let mock: MockServer;
  const bodies: unknown[] = [];
  let created: Record<string, unknown>;

  beforeAll(async () => {
    await warmStore(kind);
    const fetch: WebhookFetch = async (_url, init) => {
      bodies.push(JSON.parse(String(init.body)));
      return new Response(null, { status: 204 });
    };
    const options = { autoAdvance: false, fetch };
    mock = await createMockServer(
      kind === "memory" ? options : { ...options, sandboxStore: await storeOn(kind) },
    );
    const res = await globalThis.fetch(`${mock.url}/payout`, {
      method: "POST",
      headers: { authorization: basic(mock.account), "content-type": "application/json" },
      body: JSON.stringify(payoutBody({ referenceId: "shape-1", webhookUrl: "https://merchant.test/hook" })),
    });
    created = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(201);
    await mock.control.advancePayout(String(created.id), { awaitWebhooks: true });
  }, 120_000);

  afterAll(async () => {
    await mock?.close();
  });

  it("every field of the contract's payout, in the 201, the list, the control list and the webhook", async () => {
    expect(Object.keys(created).sort()).toEqual(CONTRACT_FIELDS);
    const list = await globalThis.fetch(`${mock.url}/payout?referenceId=shape-1`, {
      headers: { authorization: basic(mock.account) },
    });
    const [listed] = ((await list.json()) as { data: Record<string, unknown>[] }).data;
    expect(Object.keys(listed ?? {}).sort()).toEqual(CONTRACT_FIELDS.filter((f) => f !== "bankReceipt"));
    const [viewed] = await mock.control.payouts(mock.account.accountId);
    for (const field of CONTRACT_FIELDS.filter((f) => f !== "bankReceipt"))
      expect(viewed).toHaveProperty(field);
    expect(bodies).toHaveLength(1);
    expect(Object.keys(bodies[0] as object).sort()).toEqual(WEBHOOK_FIELDS);
    // what was set at creation is what every answer says
    for (const field of ["id", "referenceId", "amount", "pixKey", "pixKeyType", "beneficiaryName"])
      expect(listed?.[field], field).toEqual(created[field]);
  });

  it.runIf(kind !== "memory")(
    "each column beside the record says what the payout's answers say",
    async () => {
      const db = await databaseFor(kind as "pglite" | "postgres");
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT ${Object.keys(PAYOUT_COLUMNS).join(", ")} FROM paykit_payouts WHERE id = $1`,
        [created.id],
      );
      expect(rows).toHaveLength(1);
      const [viewed] = await mock.control.payouts(mock.account.accountId);
      // each column, from the wire (the oracle is the answer, not the mapping under test)
      const expected: Record<keyof typeof PAYOUT_COLUMNS, unknown> = {
        id: viewed?.id,
        account_id: mock.account.accountId,
        reference_id: viewed?.referenceId,
        status: viewed?.status,
        amount: viewed?.amount,
        created_ms: Date.parse(String(viewed?.createdAt)),
      };
      expect(Object.keys(expected).sort()).toEqual(Object.keys(PAYOUT_COLUMNS).sort());
      for (const [name, value] of Object.entries(expected))
        expect(String(rows[0]?.[name]), name).toBe(String(value));
    },
  );
});
