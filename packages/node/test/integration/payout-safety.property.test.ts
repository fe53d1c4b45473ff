import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPaykitError } from "../../src/index.js";
import { startMock } from "../support/mock.js";
import { payout } from "../support/requests.js";

const TIMEOUT_MS = 80;
const LATENCY_MS = 160;

/** The faults a POST /payout can meet on its way (fault semantics: docs/decisions/faults.md). */
const faultArb = fc.constantFrom(
  { status: 500 },
  { status: 503 },
  { status: 429 },
  { status: 502, code: "INTERNAL_ERROR" },
  { dropResponse: true },
  { latencyMs: LATENCY_MS },
);

/** Whether an error says the payout's fate is unknown (then it may exist; it must say how to check). */
function admitsUnknownOutcome(error: unknown): boolean {
  return (
    isPaykitError(error) && /may (have been created|still be processed)|findByReferenceId/.test(error.message)
  );
}

describe("property: POST /payout under any sequence of faults", () => {
  it("never creates two payouts for one referenceId, and never loses one", async () => {
    await using api = await startMock("http");
    await fc.assert(
      fc.asyncProperty(
        fc.array(faultArb, { minLength: 0, maxLength: 5 }),
        fc.integer({ min: 0, max: 3 }),
        async (faults, maxRetries) => {
          const paykit = api.client({
            timeoutMs: TIMEOUT_MS,
            maxRetries,
            retryBackoff: { initialDelayMs: 5, maxDelayMs: 40, maxRetryAfterMs: 60_000 },
          });
          await api.control.clearFaults();
          // 429 faults carry Retry-After: 1 s; keep runs short by allowing at most one of them.
          if (faults.filter((f) => f.status === 429).length > 1) return;
          for (const fault of faults)
            await api.control.addFault({ method: "POST", path: "/payout", ...fault });
          const request = payout();
          let outcome: { ok: true; id: string } | { ok: false; error: unknown };
          try {
            outcome = { ok: true, id: (await paykit.payouts.create(request)).id };
          } catch (error) {
            outcome = { ok: false, error };
          }
          // Let delayed handlers of timed-out attempts finish before counting.
          if (faults.some((f) => f.latencyMs))
            await new Promise((resolve) => setTimeout(resolve, LATENCY_MS + 40));
          const found = (await api.paykit.payouts.list({ referenceId: request.referenceId, limit: 100 }))
            .data;
          expect(found.length).toBeLessThanOrEqual(1);
          if (outcome.ok) {
            expect(found.map((p) => p.id)).toEqual([outcome.id]);
          } else if (found.length === 1) {
            // Only a timed-out attempt still being processed may create the payout after the client gave up,
            // and then the error must say so (never "none was created").
            expect(admitsUnknownOutcome(outcome.error)).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
