// The 201 answer of POST /payin is the contract's `PayinCreated`, written by JSON.stringify of the object
// the contract's types shape (docs/decisions/payin-201-from-contract.md): for every payment
// method and card outcome, and any referenceId the API accepts (quotes, backslashes, emoji, combining
// marks, line separators), the body parses with the contract's union and the method's own schema, gives
// back exactly what was sent, carries exactly the method's fields, and agrees with GET /payin.
import { isPendingThreeDS, PAYIN_CREATED_BY_METHOD, PayinCreated, parseBrCode } from "@paykit/contract";
import * as fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createEngine } from "../src/engine.js";
import { SAMPLE_CARD, samplePayin } from "../src/index.js";
import { basic } from "./fixtures.js";

// Stable runs on CI; PAYKIT_ANSWER_SEED=<n> replays another.
const SEED = Number(process.env.PAYKIT_ANSWER_SEED ?? 20_261_126);
const COMMON = ["id", "externalId", "referenceId", "status", "amount", "paymentMethod", "createdAt"];
const THREE_DS = [
  "threeDSecurePending",
  "threeDSecureSession",
  "threeDSecureTransactionId",
  "threeDSecureSdkUrl",
];

const CASES = [
  { name: "PIX", method: "PIX", status: "PENDING", fields: ["pix"] },
  { name: "BOLETO", method: "BOLETO", status: "PENDING", fields: ["boleto"] },
  { name: "OPEN_FINANCE", method: "OPEN_FINANCE", status: "PENDING", fields: ["openFinanceRedirectUrl"] },
  { name: "card approved", method: "CREDIT_CARD", status: "APPROVED", fields: [] },
  { name: "card refused", method: "CREDIT_CARD", status: "REFUSED", fields: [], card: "4000000000000002" },
  {
    name: "card 3DS",
    method: "CREDIT_CARD",
    status: "PENDING_3DS",
    fields: THREE_DS,
    card: "4000000000003220",
  },
] as const;

// Characters JSON escapes or that are easy to get wrong by hand, then any well-formed text.
const ODD = ['"', "\\", "/", "😀", "\u2028", "\u2029", "e\u0301", "ç", "✓", "<", "'", " ", "a", "9"];
const referenceId = fc
  .oneof(
    fc.string({ unit: fc.constantFrom(...ODD), minLength: 1, maxLength: 40 }),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }),
  )
  // what the API accepts: 1 to 100 UTF-16 units, no control character
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what ReferenceId refuses
  .filter((value) => value.length <= 100 && /^[^\u0000-\u001f\u007f-\u009f]+$/.test(value));

describe("the 201 answer of POST /payin", () => {
  const engine = createEngine({ autoAdvance: false });
  const headers = { authorization: basic(engine.account), "content-type": "application/json" };
  afterAll(() => engine.close());

  it("is the contract's PayinCreated for every method and outcome, with any referenceId", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CASES),
        referenceId,
        fc.integer({ min: 1, max: 10_000_000 }),
        async (c, ref, amount) => {
          const overrides = "card" in c ? { card: { ...SAMPLE_CARD, number: c.card } } : {};
          const sent = samplePayin(c.method, { ...overrides, referenceId: ref, amount });
          const res = await engine.handle(
            new Request("http://mock.test/payin", { method: "POST", headers, body: JSON.stringify(sent) }),
          );
          const text = await res.text();
          expect(res.status, text).toBe(201);
          const body = JSON.parse(text) as Record<string, unknown>;
          expect(PayinCreated.safeParse(body).success).toBe(true);
          expect(PAYIN_CREATED_BY_METHOD[c.method].safeParse(body).success).toBe(true);
          expect(Object.keys(body)).toEqual([...COMMON, ...c.fields]);
          expect(body).toMatchObject({ referenceId: ref, amount, paymentMethod: c.method, status: c.status });
          expect(isPendingThreeDS(body)).toBe(c.status === "PENDING_3DS");
          if (c.method === "PIX") {
            const pix = body.pix as { qrcode: string };
            expect(parseBrCode(pix.qrcode)).toMatchObject({ amountCents: amount });
          }
          const read = await engine.handle(
            new Request(`http://mock.test/payin/${body.id}`, {
              headers: { authorization: headers.authorization },
            }),
          );
          const record = (await read.json()) as Record<string, unknown>;
          for (const key of COMMON) expect(record[key], key).toEqual(body[key]);
        },
      ),
      { numRuns: 120, seed: SEED },
    );
  });
});
