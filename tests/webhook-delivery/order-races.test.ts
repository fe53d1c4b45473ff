// Four receiver processes on one payout at once (every event of its path, twice, to each, retried until
// 2xx), on real Redis and on real PostgreSQL; then a PostgreSQL that goes down: deliveries are answered
// 500 (never 2xx, never handled) until it is back, and the retries then find each event forward or stale.
import type { ChildProcess } from "node:child_process";
import { createMockServer, samplePayout } from "@paykit/mock-server";
import { generateWebhookSecret, signWebhook } from "@paykit/webhooks/testing";
import { describe, expect, it } from "vitest";
import { removeDir, stopGroup } from "../../scripts/processes.mjs";
import { freePort, initPostgres, spawnPostgres, startPostgres, startRedis } from "../../scripts/services.mjs";
import {
  FAILURE_RATE,
  ORDER_RECEIVER,
  payoutBody,
  problemsOf,
  RECEIVERS,
  runsStore,
  SEED,
} from "./order-runs.js";
import { deliveryLog, startReceiver, stopReceiver } from "./support.js";

describe("many receiver processes on one resource at once", () => {
  const PATH = ["AWAITING_APPROVAL", "APPROVED", "PROCESSING", "COMPLETED", "REFUNDED"];
  const PAYOUTS = 5;
  const COPIES = 2;

  it.each(["redis", "postgres"] as const)(
    "%s: every event of a payout, twice, to each of four processes at once (40 requests), retried until 2xx: it ends at REFUNDED, one run at a time",
    async (kind) => {
      const server = kind === "redis" ? await startRedis() : await startPostgres();
      const secret = generateWebhookSecret();
      const { runsOf, close: closeStore } = await runsStore(kind, server.url);
      const receivers = await Promise.all(
        Array.from({ length: RECEIVERS }, (_, i) =>
          startReceiver(ORDER_RECEIVER, [
            kind,
            server.url,
            secret,
            String(FAILURE_RATE),
            String(SEED + i + 1),
          ]),
        ),
      );
      try {
        const answers: number[] = [];
        const deliver = async (port: number, body: string) => {
          const headers = await signWebhook(body, { secret });
          for (;;) {
            const { status } = await fetch(`http://127.0.0.1:${port}/webhooks`, {
              method: "POST",
              body,
              headers,
            });
            answers.push(status);
            if (status >= 200 && status < 300) return;
            await new Promise((resolve) => setTimeout(resolve, 10)); // 409 in progress, 500 a failed run
          }
        };
        const ids = Array.from({ length: PAYOUTS }, (_, i) => `po_many_${kind}_${SEED}_${i}`);
        await Promise.all(
          ids.flatMap((id) =>
            PATH.flatMap((status, step) => {
              const body = payoutBody(
                id,
                status,
                new Date(Date.parse("2026-11-22T10:00:00Z") + step * 1_000).toISOString(),
              );
              return receivers.flatMap((r) => Array.from({ length: COPIES }, () => deliver(r.port, body)));
            }),
          ),
        );
        const runs = await runsOf();
        const problems = ids.flatMap((id) =>
          problemsOf(
            { resource: `payout:${id}`, path: PATH },
            runs.filter((r) => r.resource === `payout:${id}`),
          ).map((p) => `${id}: ${p}`),
        );
        expect(problems).toEqual([]);
        // they really raced: copies waited for the run in progress
        expect(answers.filter((a) => a === 409).length).toBeGreaterThan(0);
        expect(answers.filter((a) => a === 204)).toHaveLength(runs.filter((r) => !r.failed).length);
      } finally {
        await Promise.all(receivers.map((r) => stopReceiver(r).catch(() => undefined)));
        await closeStore();
        await server.stop();
      }
    },
  );
});

describe("a store that is down fails the delivery", () => {
  it("PostgreSQL stopped: every delivery is answered 500 and handled by nobody; once it is back, each is applied or found stale", async () => {
    // A cluster of its own, so that it can be stopped and started again on the same port.
    const cluster = initPostgres("paykit-pg-order-down-");
    const port = await freePort();
    let database: ChildProcess | undefined = await spawnPostgres(cluster, port, ["fsync=off"]);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const { runsOf, close: closeStore } = await runsStore("postgres", url);
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(ORDER_RECEIVER, ["postgres", url, secret, "0", String(SEED)]);
    const mock = await createMockServer({ autoAdvance: false });
    try {
      const keys = await mock.control.createAccount({ webhookSecret: secret, balance: 1_000_000 });
      const webhookUrl = `http://127.0.0.1:${receiver.port}/webhooks`;
      const response = await fetch(`${mock.url}/payout`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(samplePayout({ webhookUrl })),
      });
      const { id } = (await response.json()) as { id: string };
      const attemptsOf = async (status: string) =>
        (await deliveryLog(mock))
          .filter((d) => d.resourceId === id && d.status === status)
          .flatMap((d) => d.attempts.map((a) => a.statusCode));
      // Up: PROCESSING, then COMPLETED, each delivered and applied.
      await mock.control.advancePayout(id);
      await mock.control.flushWebhooks();
      await mock.control.advancePayout(id);
      await mock.control.flushWebhooks();
      expect([await attemptsOf("PROCESSING"), await attemptsOf("COMPLETED")]).toEqual([[204], [204]]);

      // Down: the PROCESSING again (stale now) and the REFUNDED (forward) are answered 500.
      await stopGroup(database, { signal: "SIGINT", graceMs: 10_000 });
      database = undefined;
      const processing = (await deliveryLog(mock)).find(
        (d) => d.resourceId === id && d.status === "PROCESSING",
      );
      await mock.control.redeliverWebhook(processing!.id);
      await mock.control.refundPayout(id);
      await mock.control.flushWebhooks();
      expect(await attemptsOf("PROCESSING")).toEqual([204, 500]);
      expect(await attemptsOf("REFUNDED")).toEqual([500]);

      // Back: the retries find the REFUNDED forward (applied), the PROCESSING stale (acknowledged).
      database = await spawnPostgres(cluster, port, ["fsync=off"]);
      await mock.control.redeliverWebhook(processing!.id);
      await mock.control.setClock({ advanceMs: 60_000 });
      await mock.control.flushWebhooks();
      expect(await attemptsOf("PROCESSING")).toEqual([204, 500, 200]);
      expect((await attemptsOf("REFUNDED")).at(-1)).toBe(204);
      const runs = await runsOf();
      expect(runs.map((r) => `${r.previous ?? "-"} → ${r.status}`)).toEqual([
        "- → PROCESSING",
        "PROCESSING → COMPLETED",
        "COMPLETED → REFUNDED",
      ]);
    } finally {
      await mock.close();
      await stopReceiver(receiver).catch(() => undefined);
      await closeStore();
      if (database) await stopGroup(database, { signal: "SIGINT", graceMs: 10_000 });
      removeDir(cluster.dir);
    }
  });
});
