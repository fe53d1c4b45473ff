// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { refuseSecretKey } from "./secret-key.js";
import { handlePendingThreeDS } from "./three-ds.js";

const KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
const data = {
  card: { token: "tok_1" },
  customer: { name: "Maria", document: "52998224725", email: "maria@example.com", phone: "5511987654321" },
  amount: 10000,
  installments: 1,
};

describe("refuseSecretKey looks into nested options", () => {
  it.each([
    ["a secretKey option", { secretKey: "anything" }],
    ["an sk_ string option", { nonce: KEY }],
    ["a secretKey nested in an option", { acquirer: { auth: { secretKey: "x" } } }],
    ["an sk_ string two levels down", { extra: { keys: { server: KEY } } }],
    ["an sk_ string in an array", { keys: ["pk_test_1", KEY] }],
  ])("refuses %s with SECRET_KEY_IN_BROWSER, without echoing it", (_, options) => {
    let error: unknown;
    try {
      refuseSecretKey(options);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: "PaykitThreeDSError", code: "SECRET_KEY_IN_BROWSER" });
    expect(String(error)).not.toContain("4eC39HqLyjWDarjtT1zdp7dc");
  });

  const cyclic: Record<string, unknown> = { nonce: "n0nce" };
  cyclic.self = cyclic;
  it.each([
    [
      "a DOM container, a signal and a callback",
      {
        container: document.createElement("div"),
        signal: new AbortController().signal,
        onEvent: () => undefined,
        nonce: "n0nce",
      },
    ],
    ["a public key", { publicKey: "pk_live_1", timeoutMs: 5000 }],
    ["a cycle (not serialisable, so not checked)", cyclic],
  ])("accepts %s", (_, options) => {
    expect(() => refuseSecretKey(options)).not.toThrow();
  });

  it("handlePendingThreeDS refuses a key nested in its options before anything loads", async () => {
    const payin = { id: "pi_1", status: "PENDING_3DS", threeDSecurePending: true };
    const options = { onEvent: () => undefined, debug: { keys: { secret: KEY } } } as never;
    await expect(handlePendingThreeDS(payin, data, options)).rejects.toMatchObject({
      code: "SECRET_KEY_IN_BROWSER",
    });
    expect(document.scripts).toHaveLength(0);
  });
});
