// What the delivery scenarios share: receiver processes behind a round-robin proxy that also races
// copies of some requests to a second receiver, a seeded random generator, and running the mock's outbox
// to completion on its clock.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import type { MockServer } from "@paykit/mock-server";
import { spawnGroup } from "../../scripts/processes.mjs";

/** A receiver process: its port, and the lines it prints after the first. */
export interface Receiver {
  child: ChildProcess;
  port: number;
  lines: AsyncIterableIterator<string>;
}

/** Starts `node <script> ...args`, which prints its port on its first line. */
export async function startReceiver(script: string, args: string[]): Promise<Receiver> {
  // A process group (scripts/processes.mjs), so that a receiver never outlives this test process, also
  // when the scenario times out before its `finally` (which kills them) runs. (Receivers were plain
  // children for a while, after scenarios hung with their receivers gone, which was blamed on a reused
  // pid; the cause was stopReceiver's exit listener, added after the exit it waited for.)
  const child = spawnGroup(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  const port = Number(first.value);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`receiver did not start: ${String(first.value)}`);
  return { child, port, lines };
}

/** Stops a receiver; resolves the counters it prints as JSON on SIGTERM. */
export async function stopReceiver<Counters>(receiver: Receiver): Promise<Counters> {
  // Listening for the exit before the signal: a receiver prints its counters and exits at once, and on a
  // loaded machine its exit was handled before a listener added after reading the counters, which then
  // waited for ever (the scenario hung, its receivers gone).
  const { child } = receiver;
  const exited =
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, "exit");
  child.kill("SIGTERM");
  const line = await receiver.lines.next();
  await exited.catch(() => undefined);
  return JSON.parse(String(line.value)) as Counters;
}

/** Adds up the receivers' counters. */
export function sumCounters<Counters extends Record<string, number>>(all: Counters[]): Counters {
  const total = {} as Record<string, number>;
  for (const counters of all) {
    for (const [key, value] of Object.entries(counters)) total[key] = (total[key] ?? 0) + value;
  }
  return total as Counters;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * A round-robin load balancer in front of the receivers. With probability `raceRate` it also sends the
 * same request to the next receiver at the same moment (the answer the sender gets is the first one's).
 */
export async function startProxy(ports: number[], random: () => number, raceRate: number) {
  let next = 0;
  const racing = new Set<Promise<unknown>>();
  const stats = { forwarded: 0, raced: 0 };
  const forward = (port: number, req: IncomingMessage, body: Buffer) =>
    fetch(`http://127.0.0.1:${port}${req.url}`, {
      method: "POST",
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(
          ([name]) => name.startsWith("webhook-") || name === "content-type",
        ),
      ) as Record<string, string>,
      body: new Uint8Array(body),
    });
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const primary = ports[next % ports.length]!;
    const secondary = ports[(next + 1) % ports.length]!;
    next += 1;
    stats.forwarded += 1;
    if (random() < raceRate) {
      stats.raced += 1;
      const race = forward(secondary, req, body).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
      racing.add(race);
      void race.finally(() => racing.delete(race));
    }
    try {
      const answer = await forward(primary, req, body);
      await answer.arrayBuffer();
      res.writeHead(answer.status).end();
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    stats,
    async drain() {
      while (racing.size > 0) await Promise.all([...racing]);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** mulberry32: a seeded generator, so a failing run can be replayed with its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `run` over `items`, `size` at a time. */
export async function inBatches<T>(
  items: T[],
  size: number,
  run: (item: T) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

/** The whole delivery log, every page of it (a control list answers one page of at most 1000). */
export async function deliveryLog(mock: MockServer) {
  const log = [];
  for await (const delivery of mock.control.listAll("webhooks", { limit: 1000 })) log.push(delivery);
  return log;
}

/**
 * Runs the outbox to completion on the mock clock: every round moves the clock past the longest retry
 * delay (due retries run at once) and flushes; a delivery that spent its 8 attempts is redelivered,
 * as an operator would. Answers the number of rounds and redeliveries.
 */
export async function deliverEverything(mock: MockServer): Promise<{ rounds: number; redelivered: number }> {
  let redelivered = 0;
  for (let round = 1; round <= 40; round += 1) {
    await mock.control.flushWebhooks();
    const log = await deliveryLog(mock);
    const failed = log.filter((d) => d.state === "failed");
    for (const d of failed) await mock.control.redeliverWebhook(d.id);
    redelivered += failed.length;
    if (log.every((d) => d.state === "delivered")) return { rounds: round, redelivered };
    await mock.control.setClock({ advanceMs: 3 * 60 * 60 * 1000 });
  }
  throw new Error("the outbox did not settle in 40 rounds");
}
