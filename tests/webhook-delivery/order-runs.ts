// What the order scenarios share (order.test.ts, order-races.test.ts): the receiver that applies events
// through a WebhookOrderGuard (receiver-order.mjs), where its handler runs are recorded and read back,
// and the check that a resource's runs moved it only forward, one at a time, to its final status.
import { fileURLToPath } from "node:url";
import { PostgresOrderStore } from "@paykit/webhooks/postgres";
import pg from "pg";
import { createClient } from "redis";

export const RECEIVERS = 4;
export const FAILURE_RATE = 0.1;
export const SEED = Number(process.env.PAYKIT_DELIVERY_SEED ?? Date.now() % 1_000_000);
/** The receiver process: `node receiver-order.mjs <redis|postgres> <url> <secret> <failure rate> <seed>`. */
export const ORDER_RECEIVER = fileURLToPath(new URL("./receiver-order.mjs", import.meta.url));

/** What a receiver process counts, printed when it stops. */
export type OrderCounters = {
  requests: number;
  forward: number;
  repeat: number;
  stale: number;
  inProgress: number;
  failures: number;
  refused: number;
};

/** One handler run, as a receiver recorded it. */
export interface Run {
  resource: string;
  status: string;
  previous: string | null;
  startedAt: number;
  endedAt: number;
  failed: boolean;
}

/** A resource the test drove, and the statuses it went through after creation, oldest first. */
export interface Driven {
  resource: string;
  path: readonly string[];
}

/** What is wrong with one resource's handler runs, or nothing. */
export function problemsOf(driven: Driven, runs: Run[]): string[] {
  const problems: string[] = [];
  const applied = runs.filter((r) => !r.failed);
  const seen = new Set<string>();
  for (const run of applied) {
    if (seen.has(run.status)) problems.push(`${run.status} applied twice`);
    seen.add(run.status);
  }
  // Follow the chain from the first move: each run moved the resource from where the last one left it.
  let at: string | null = null;
  for (let step = 0; step < applied.length; step += 1) {
    const next = applied.filter((r) => r.previous === at);
    if (next.length !== 1) {
      problems.push(`${next.length} runs moved it from ${at ?? "nothing"}`);
      break;
    }
    const { status } = next[0] as Run;
    if (at !== null && driven.path.indexOf(status) <= driven.path.indexOf(at)) {
      problems.push(`moved back, ${at} → ${status}`);
    }
    at = status;
  }
  if (at !== driven.path.at(-1)) problems.push(`ended at ${at}, not ${driven.path.at(-1)}`);
  const byStart = [...runs].sort((a, b) => a.startedAt - b.startedAt);
  byStart.forEach((run, i) => {
    const before = byStart[i - 1];
    if (before && run.startedAt < before.endedAt) problems.push(`${run.status} ran beside ${before.status}`);
  });
  return problems;
}

/**
 * Where the receivers record their handler runs on the store's own server (a Redis list, a PostgreSQL
 * table), the order store's table made (PostgreSQL: as every instance would at start, at once; it takes
 * turns under a lock), and how to read the runs back.
 */
export async function runsStore(
  kind: "redis" | "postgres",
  url: string,
): Promise<{ runsOf(): Promise<Run[]>; close(): Promise<void> }> {
  if (kind === "redis") {
    // An error listener: without one, node-redis throws its socket errors as an uncaught exception.
    const client = createClient({ url }).on("error", () => undefined);
    await client.connect();
    return {
      runsOf: async () =>
        ((await client.sendCommand(["LRANGE", "order-test:runs", "0", "-1"])) as string[]).map(
          (line) => JSON.parse(line) as Run,
        ),
      close: async () => client.destroy(),
    };
  }
  const pool = new pg.Pool({ connectionString: url });
  pool.on("error", () => undefined);
  await Promise.all(Array.from({ length: RECEIVERS }, () => new PostgresOrderStore(pool).ensureSchema()));
  await pool.query("CREATE TABLE IF NOT EXISTS order_runs (run json NOT NULL)");
  return {
    runsOf: async () => (await pool.query("SELECT run FROM order_runs")).rows.map((r) => r.run as Run),
    close: () => pool.end(),
  };
}

/** A payout's webhook body in `status` at `updatedAt`, as the service sends it. */
export function payoutBody(id: string, status: string, updatedAt: string): string {
  return JSON.stringify({
    id,
    externalId: null,
    status,
    amount: 5_000,
    currency: "BRL",
    pixKey: "maria.santos@example.com",
    pixKeyType: "EMAIL",
    referenceId: `ref-${id}`,
    beneficiaryName: "Maria Santos",
    beneficiaryDocument: "52998224725",
    feeAmount: 100,
    netAmount: 4_900,
    failureCode: null,
    createdAt: "2026-11-22T10:00:00.000Z",
    updatedAt,
  });
}
