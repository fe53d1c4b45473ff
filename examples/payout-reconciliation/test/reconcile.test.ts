import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMockServer } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { describe, expect, it } from "vitest";
import { type PayoutIntent, PayoutJournal } from "../src/journal.js";
import { payOutOnce, resumePayouts } from "../src/reconcile.js";

const journalFile = () => join(mkdtempSync(join(tmpdir(), "paykit-journal-")), "payouts.jsonl");
const intent = (referenceId: string, amount = 20_000): PayoutIntent => ({
  referenceId,
  amount,
  pixKey: "payouts@example.com",
  pixKeyType: "EMAIL",
});

async function start() {
  const mock = await createMockServer({ autoAdvance: false });
  const paykit = new Paykit({
    publicKey: mock.account.publicKey,
    secretKey: mock.account.secretKey,
    baseUrl: mock.url,
  });
  const available = async () => (await mock.control.getAccount(mock.account.accountId)).balance.available;
  return { mock, paykit, available, [Symbol.asyncDispose]: () => mock.close() };
}

describe("retrying payouts safely after a crash", () => {
  it("finds a payout sent before the crash instead of paying it again", async () => {
    await using env = await start();
    const opening = await env.available();
    const journal = new PayoutJournal(journalFile());
    journal.record(intent("settlement-1"));
    const sent = await env.paykit.payouts.create(intent("settlement-1")); // …and the process dies here.

    const report = await resumePayouts(env.paykit, journal);
    expect(report).toEqual([
      { referenceId: "settlement-1", payoutId: sent.id, status: "PENDING", created: false },
    ]);
    expect((await env.paykit.payouts.list({ referenceId: "settlement-1" })).meta.total).toBe(1);
    expect(await env.available()).toBe(opening - 20_000);
    expect(journal.unfinished()).toEqual([]);
  });

  it("creates the payout of an intent that never left, once, however often it resumes", async () => {
    await using env = await start();
    const journal = new PayoutJournal(journalFile());
    journal.record(intent("settlement-2"));
    journal.record(intent("settlement-3", 5_000));

    const first = await resumePayouts(env.paykit, journal);
    expect(first.map((r) => [r.referenceId, r.created])).toEqual([
      ["settlement-2", true],
      ["settlement-3", true],
    ]);
    expect(await resumePayouts(env.paykit, journal)).toEqual([]);
    expect((await env.paykit.payouts.list()).meta.total).toBe(2);
  });

  it("when the answer is lost on the wire, the client's own retry finds the payout by referenceId", async () => {
    await using env = await start();
    const opening = await env.available();
    // The service creates the payout, then the connection drops before the answer arrives: an
    // ambiguous failure, which @paykit/node settles by looking the referenceId up
    // (docs/decisions/retries.md).
    await env.mock.control.addFault({ method: "POST", path: "/payout", dropResponse: true });
    const created = await env.paykit.payouts.create(intent("settlement-4"));
    expect(created.referenceId).toBe("settlement-4");

    // A crash right after would still be safe: the restart finds the same payout.
    const outcome = await payOutOnce(env.paykit, intent("settlement-4"));
    expect(outcome).toMatchObject({ created: false, payout: { id: created.id } });
    expect((await env.paykit.payouts.list({ referenceId: "settlement-4" })).meta.total).toBe(1);
    expect(await env.available()).toBe(opening - 20_000);
  });
});
