import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { webhookPayload } from "./webhook-payload.js";

describe("webhookPayload (docs/decisions/webhook-body-bytes.md)", () => {
  it("writes a space after each colon and comma, and non-ASCII text as \\u escapes", () => {
    expect(
      webhookPayload({
        id: "pi_1",
        amount: 1990,
        customer: { name: "João Ninguém", tags: ["a", "b"] },
        x: undefined,
      }),
    ).toBe(
      '{"id": "pi_1", "amount": 1990, "customer": {"name": "Jo\\u00e3o Ningu\\u00e9m", "tags": ["a", "b"]}}',
    );
    expect(webhookPayload({ emoji: "💸", empty: {}, none: [] })).toBe(
      '{"emoji": "\\ud83d\\udcb8", "empty": {}, "none": []}',
    );
  });

  it("is JSON that parses to the same value, and never what JSON.stringify writes of it", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue(), { minKeys: 1 }), (body) => {
        const payload = webhookPayload(body);
        expect(JSON.parse(payload)).toEqual(JSON.parse(JSON.stringify(body)));
        expect(payload).not.toBe(JSON.stringify(JSON.parse(payload)));
        expect(payload).toMatch(/^[\x20-\x7e]*$/);
      }),
      { numRuns: 300 },
    );
  });
});
