import { describe, expect, it } from "vitest";
import { parseWebhook } from "../src/index.js";
import { payinBody, payoutBody } from "./fixtures.js";

describe("parseWebhook", () => {
  it.each([
    ["a payin body (has paymentMethod)", payinBody, "payin"],
    ["a payout body (has pixKey)", payoutBody, "payout"],
  ] as const)("reads %s as kind %s", (_label, body, kind) => {
    const event = parseWebhook(JSON.stringify(body));
    expect(event).toEqual({ kind, id: body.id, data: body });
  });

  it.each([
    ["a string", (s: string) => s],
    ["UTF-8 bytes", (s: string) => new TextEncoder().encode(s)],
    ["an ArrayBuffer", (s: string) => new TextEncoder().encode(s).buffer],
  ])("accepts the raw body as %s, decoding UTF-8 names", (_label, encode) => {
    const event = parseWebhook(encode(JSON.stringify(payoutBody)));
    expect(event.kind).toBe("payout");
    expect(event.kind === "payout" && event.data.beneficiaryName).toBe("João Souza");
  });

  it("accepts an already parsed object (unverified use only)", () => {
    expect(parseWebhook({ ...payinBody }).id).toBe(payinBody.id);
  });

  it("keeps fields and statuses this version does not know", () => {
    const event = parseWebhook(JSON.stringify({ ...payinBody, status: "CHARGEBACK", newField: { a: 1 } }));
    expect(event.data).toMatchObject({ status: "CHARGEBACK", newField: { a: 1 } });
  });

  it("copies the webhook id when given", () => {
    expect(parseWebhook(JSON.stringify(payinBody), { webhookId: "msg_1" }).webhookId).toBe("msg_1");
  });

  it.each([
    ["INVALID_JSON", "{not json"],
    ["UNKNOWN_KIND", JSON.stringify({ id: "x", status: "APPROVED" })],
    ["UNKNOWN_KIND", "[1,2]"],
    ["INVALID_BODY", JSON.stringify({ ...payinBody, amount: "100" })],
  ])("refuses a body with %s", (code, body) => {
    expect(() => parseWebhook(body)).toThrow(expect.objectContaining({ name: "WebhookParseError", code }));
  });

  it("names every failing field of a malformed body", () => {
    const { customer: _customer, ...withoutCustomer } = payinBody;
    try {
      parseWebhook(JSON.stringify({ ...withoutCustomer, amount: 1.5 }));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_BODY" });
      const paths = (error as { details: { path: string }[] }).details.map((d) => d.path).sort();
      expect(paths).toEqual(["amount", "customer"]);
    }
  });
});
