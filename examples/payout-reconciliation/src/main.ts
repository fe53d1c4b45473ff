import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMockServer } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { PayoutJournal } from "./journal.js";
import { resumePayouts } from "./reconcile.js";

// A self-contained run: a payout is sent, the process "crashes" before recording the answer, and the
// restart settles the journal without paying twice.
const mock = await createMockServer({ port: 0 });
try {
  const paykit = new Paykit({
    publicKey: mock.account.publicKey,
    secretKey: mock.account.secretKey,
    baseUrl: mock.url,
  });
  const journal = new PayoutJournal(join(mkdtempSync(join(tmpdir(), "paykit-payouts-")), "payouts.jsonl"));
  const intent = {
    referenceId: `settlement-${Date.now()}`,
    amount: 25_000,
    pixKey: "payouts@example.com",
    pixKeyType: "EMAIL",
  } as const;

  journal.record(intent);
  const sent = await paykit.payouts.create(intent);
  console.log(`sent ${sent.id}, then the process crashed before writing "done" to ${journal.path}`);

  const report = await resumePayouts(paykit, journal);
  for (const line of report)
    console.log(
      `restart: ${line.referenceId} → ${line.payoutId} ${line.status} (${line.created ? "created" : "found, not re-sent"})`,
    );
  const { meta } = await paykit.payouts.list({ referenceId: intent.referenceId });
  console.log(`payouts with that referenceId at the service: ${meta.total}`);
} finally {
  await mock.close();
}
