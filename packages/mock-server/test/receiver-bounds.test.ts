// Misbehaving webhook receivers (issue 10): one that never answers must not make the mock hold a socket
// per delivery, and one that answers 400 MB must not make the mock read it.
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEngine, type MockEngine } from "../src/index.js";
import { basic, pixPayin } from "./fixtures.js";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

/** Counts the sockets a server holds open, and the most it held at once. */
function socketGauge(server: Server) {
  const open = new Set<Socket>();
  const gauge = { peak: 0, total: 0, open };
  server.on("connection", (socket) => {
    open.add(socket);
    gauge.total += 1;
    gauge.peak = Math.max(gauge.peak, open.size);
    socket.on("close", () => open.delete(socket));
  });
  return gauge;
}

async function payins(engine: MockEngine, count: number, webhookUrl: (i: number) => string): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const res = await engine.handle(
      new Request("http://mock.test/payin", {
        method: "POST",
        headers: { authorization: basic(engine.account), "content-type": "application/json" },
        body: JSON.stringify(pixPayin({ webhookUrl: webhookUrl(i) })),
      }),
    );
    const { id } = (await res.json()) as { id: string };
    await engine.control.payPayin(id);
  }
}

describe("misbehaving webhook receivers", () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("2,000 deliveries to a receiver that never answers hold at most 10 sockets", async () => {
    const hanging = createServer(() => {
      // Never answers.
    });
    const gauge = socketGauge(hanging);
    const url = await listen(hanging);
    cleanups.push(
      () => new Promise((r) => hanging.close(r)),
      () => hanging.closeAllConnections(),
    );
    const engine = createEngine({ autoAdvance: false, webhookTimeoutMs: 60_000 });
    cleanups.push(() => engine.close());
    await payins(engine, 2_000, () => url);
    await vi.waitFor(() => expect(gauge.peak).toBe(10), { timeout: 10_000 });
    // Give the queue time to misbehave if it could.
    await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(
      `receiver-bounds: 2000 deliveries to a hanging receiver held at most ${gauge.peak} sockets ` +
        `(${gauge.total} opened, ${gauge.open.size} open now)`,
    );
    expect(gauge.peak).toBe(10);
    expect(gauge.open.size).toBeLessThanOrEqual(10);
  }, 120_000);

  it("caps deliveries overall across receivers, and per receiver", async () => {
    const gauges: ReturnType<typeof socketGauge>[] = [];
    const urls: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const server = createServer(() => undefined);
      gauges.push(socketGauge(server));
      urls.push(await listen(server));
      cleanups.push(
        () => new Promise((r) => server.close(r)),
        () => server.closeAllConnections(),
      );
    }
    const engine = createEngine({
      autoAdvance: false,
      webhookTimeoutMs: 60_000,
      webhookConcurrency: { perOrigin: 3, total: 5 },
    });
    cleanups.push(() => engine.close());
    await payins(engine, 60, (i) => urls[i % 3]!);
    await vi.waitFor(() => expect(gauges.reduce((n, g) => n + g.open.size, 0)).toBe(5), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gauges.reduce((n, g) => n + g.open.size, 0)).toBe(5);
    for (const gauge of gauges) expect(gauge.peak).toBeLessThanOrEqual(3);
  }, 120_000);

  it("reads at most 64 KiB of a 400 MB answer and counts the delivery", async () => {
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 120);
    const huge = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(400 * 1024 * 1024) });
      const pump = () => {
        while (sent < 400 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const url = await listen(huge);
    cleanups.push(
      () => new Promise((r) => huge.close(r)),
      () => huge.closeAllConnections(),
    );
    const engine = createEngine({ autoAdvance: false });
    cleanups.push(() => engine.close());
    const heapBefore = process.memoryUsage().heapUsed;
    await payins(engine, 1, () => url);
    await vi.waitFor(async () => expect((await engine.control.webhooks())[0]?.state).toBe("delivered"), {
      timeout: 10_000,
    });
    const grew = process.memoryUsage().heapUsed - heapBefore;
    console.log(
      `receiver-bounds: a 400 MB answer: the receiver got to write ${(sent / 1024 / 1024).toFixed(1)} MiB ` +
        `before the mock hung up; heap +${(grew / 1024 / 1024).toFixed(1)} MiB`,
    );
    expect((await engine.control.webhooks())[0]?.attempts[0]?.statusCode).toBe(200);
    // The kernel's socket buffers take a few MiB; the mock itself stops reading after 64 KiB.
    expect(sent).toBeLessThan(32 * 1024 * 1024);
    expect(grew).toBeLessThan(64 * 1024 * 1024);
  }, 120_000);
});
