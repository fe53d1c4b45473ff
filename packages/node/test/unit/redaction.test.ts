import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { scriptedClient } from "../support/client.js";
import { fetchFailed } from "../support/fake-fetch.js";
import { card, KEYS, payinBase } from "../support/fixtures.js";

const SECRET = KEYS.secretKey;
const AUTH = btoa(`${KEYS.publicKey}:${KEYS.secretKey}`);

function leaks(value: unknown): string[] {
  const texts = [inspect(value, { depth: 10, showHidden: true }), JSON.stringify(value), String(value)];
  const found: string[] = [];
  for (const text of texts) {
    for (const secret of [SECRET, AUTH, card.number, card.cvv === "123" ? 'cvv":"123' : card.cvv]) {
      if (text.includes(secret)) found.push(secret);
    }
  }
  return found;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("no secret key, Authorization header or card data in inspect(), JSON or messages", () => {
  it("the client", () => {
    const { paykit } = scriptedClient({});
    expect(leaks(paykit)).toEqual([]);
    expect(inspect(paykit)).toContain("pk_test_public123");
    expect(inspect(paykit)).toContain("[redacted]");
    expect(leaks(paykit.payins)).toEqual([]);
    expect(leaks(paykit.payouts)).toEqual([]);
    expect(leaks(paykit.webhooks)).toEqual([]);
  });

  it("an API error answered to a card payin", async () => {
    const { paykit } = scriptedClient({
      "POST /v1/payin": [{ status: 400, body: { code: "INVALID_CVV", message: "wrong security code" } }],
    });
    const error = await caught(paykit.payins.create({ ...payinBase, paymentMethod: "CREDIT_CARD", card }));
    expect(error).toMatchObject({ name: "PaymentRefusedError" });
    expect(leaks(error)).toEqual([]);
  });

  it("a connection error, whose cause is the runtime's error", async () => {
    const { paykit } = scriptedClient({ "POST /v1/payin": [{ reject: fetchFailed("ECONNRESET") }] });
    const error = await caught(paykit.payins.create({ ...payinBase, paymentMethod: "CREDIT_CARD", card }));
    expect(error).toMatchObject({ name: "PaykitConnectionError" });
    expect(leaks(error)).toEqual([]);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ cause: { code: "ECONNRESET" } });
  });

  it("a validation error about the card", async () => {
    const { paykit, seen } = scriptedClient({});
    const error = await caught(
      paykit.payins.create({
        ...payinBase,
        paymentMethod: "CREDIT_CARD",
        card: { ...card, number: "4111111111111112", cvv: "12345" },
      }),
    );
    expect(error).toMatchObject({ name: "PaykitValidationError" });
    expect(inspect(error)).not.toContain("4111111111111112");
    expect(JSON.stringify(error)).not.toContain("12345");
    expect(seen).toHaveLength(0);
  });

  it("a call's promise, and the Response of withResponse() and asResponse()", async () => {
    const { paykit, seen } = scriptedClient({
      "POST /v1/payin": [
        { status: 201, body: { id: "pi_1", status: "APPROVED", paymentMethod: "CREDIT_CARD" } },
      ],
    });
    const call = paykit.payins.create({ ...payinBase, paymentMethod: "CREDIT_CARD", card });
    expect(leaks(call)).toEqual([]);
    const { response, requestId } = await call.withResponse();
    const raw = await call.asResponse();
    // the request did carry them: the Response is the answer's, never the request's
    expect(seen[0]?.headers.get("authorization")).toContain(AUTH);
    expect(seen[0]?.body).toContain(card.number);
    for (const value of [call, response, raw, [...response.headers], [...raw.headers], await raw.text()]) {
      expect(leaks(value)).toEqual([]);
    }
    expect(response.headers.get("authorization")).toBeNull();
    expect(inspect(call)).not.toContain("authorization");
    expect(requestId).toMatch(/^req_/);
  });

  it("an error's JSON and inspect() name its request id, and still nothing secret", async () => {
    const { paykit } = scriptedClient({
      "POST /v1/payin": [{ status: 400, body: { code: "INVALID_CVV", message: "wrong security code" } }],
    });
    const error = (await caught(
      paykit.payins.create({ ...payinBase, paymentMethod: "CREDIT_CARD", card }),
    )) as { requestId: string };
    expect(error.requestId).toMatch(/^req_/);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ requestId: error.requestId });
    expect(inspect(error)).toContain(error.requestId);
    expect(leaks(error)).toEqual([]);
  });

  it("a timeout", async () => {
    const { paykit } = scriptedClient(
      { "GET /v1/payin/pi_1": [{ hang: true }] },
      { timeoutMs: 10, maxRetries: 0 },
    );
    const error = await caught(paykit.payins.retrieve("pi_1"));
    expect(error).toMatchObject({ name: "PaykitTimeoutError", timeoutMs: 10 });
    expect(leaks(error)).toEqual([]);
  });
});
