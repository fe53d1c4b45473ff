// Every error message is a run of sentences with one full stop each: whatever the service's own message
// ends with, however many attempts and lookups, whichever note a creation adds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sentences } from "../../src/errors/message.js";
import { isPaykitError } from "../../src/index.js";
import { scriptedClient } from "../support/client.js";
import { fetchFailed, type Step } from "../support/fake-fetch.js";
import { payinBase, payoutPage, payoutRecord, payoutRequest } from "../support/fixtures.js";

/** Whether a message has a doubled full stop outside its quoted values (ids and referenceIds are the caller's). */
function hasDoubledStop(message: string): boolean {
  return /\.\s*\./.test(message.replace(/"[^"]*"/g, '""'));
}

describe("sentences()", () => {
  it.each<[Array<string | undefined>, string]>([
    [["a", "b"], "a. b."],
    [["a.", "b."], "a. b."],
    [["a..", " b . "], "a. b."],
    [["is the service up?", "then retry"], "is the service up? then retry."],
    [["done!", undefined, "", "  "], "done!"],
    [["call f() later", "x (y)."], "call f() later. x (y)."],
    [[], ""],
  ])("%j → %j", (parts, expected) => {
    expect(sentences(...parts)).toBe(expected);
  });
});

describe("no doubled full stop in any message (property)", () => {
  const word = fc.constantFrom("amount", "referenceId", "is", "already", "used", "failed", "the", "acquirer");
  const serviceMessage = fc
    .tuple(fc.array(word, { minLength: 1, maxLength: 5 }), fc.constantFrom("", ".", "..", " .", "!", ". "))
    .map(([words, end]) => words.join(" ") + end);
  const code = fc.constantFrom(
    "INVALID_DATA",
    "INVALID_CVV",
    "INSUFFICIENT_FUNDS",
    "PROVIDER_ERROR",
    "TEMPORARY_UNAVAILABLE",
    "INTERNAL_ERROR",
    "UNAUTHORIZED",
    "NOT_FOUND",
    "RATE_LIMITED",
  );
  const status = fc.constantFrom(400, 401, 403, 404, 405, 429, 500, 501, 502, 503);
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc
      .tuple(status, code, serviceMessage)
      .map(([s, c, message]) => ({ status: s, body: { code: c, message }, headers: { "retry-after": "0" } })),
    fc.constant<Step>({ status: 502, raw: "<html>Bad Gateway.</html>" }),
    fc.constant<Step>({ status: 201, raw: "OK." }),
    fc.constant<Step>({ hang: true }),
    fc.constantFrom("ECONNRESET", "ECONNREFUSED", "UND_ERR_SOCKET").map((c) => ({ reject: fetchFailed(c) })),
    serviceMessage.map((message) => ({ reject: new TypeError(message) })),
  );
  const lookup: fc.Arbitrary<Step> = fc.oneof(
    fc.constant<Step>({ status: 200, body: payoutPage([]) }),
    fc.constant<Step>({ status: 200, body: payoutPage([payoutRecord()]) }),
    step,
  );
  const call = fc.constantFrom("payins.create", "payouts.create", "payins.retrieve");

  it("holds for every call, answer sequence, retry budget and lookup outcome", async () => {
    await fc.assert(
      fc.asyncProperty(
        call,
        fc.array(step, { minLength: 1, maxLength: 3 }),
        fc.array(lookup, { minLength: 0, maxLength: 3 }),
        fc.integer({ min: 0, max: 2 }),
        async (which, steps, lookups, maxRetries) => {
          const api = scriptedClient(
            {
              "POST /v1/payin": [...steps],
              "POST /v1/payout": [...steps],
              "GET /v1/payin/pi_1": [...steps],
              "GET /v1/payout": [...lookups],
            },
            { timeoutMs: 5, maxRetries, retryBackoff: { initialDelayMs: 0, maxDelayMs: 0 } },
          );
          const promise =
            which === "payins.create"
              ? api.paykit.payins.create({ ...payinBase, paymentMethod: "PIX" })
              : which === "payouts.create"
                ? api.paykit.payouts.create(payoutRequest)
                : api.paykit.payins.retrieve("pi_1");
          const outcome = await promise.then(
            () => undefined,
            (e: unknown) => e,
          );
          if (outcome === undefined) return;
          expect(isPaykitError(outcome)).toBe(true);
          const { message } = outcome as Error;
          expect(hasDoubledStop(message), message).toBe(false);
          expect(message.endsWith(".") || message.endsWith("?") || message.endsWith("!"), message).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it.each<[string, Record<string, unknown>]>([
    ["a bad amount and document", { amount: 0, customer: { ...payinBase.customer, document: "123" } }],
    ["no items", { items: [] }],
    ["a bad IP", { payerIp: "999.1.1.1" }],
  ])("holds for a request refused before sending: %s", async (_label, override) => {
    const api = scriptedClient({});
    const e = await api.paykit.payins
      .create({ ...payinBase, paymentMethod: "PIX", ...override })
      .catch((x: Error) => x);
    expect(e).toMatchObject({ name: "PaykitValidationError" });
    expect(hasDoubledStop((e as Error).message), (e as Error).message).toBe(false);
  });
});
