// A body over 1 MiB gets its 413 while the client is still sending. The mock reads and throws away the
// rest, within bounds, instead of cutting the socket under the upload (which clients report as
// ECONNRESET rather than the 413); a client that keeps sending past the bound is cut off.
import { once } from "node:events";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer, samplePayin } from "../src/index.js";
import { DISCARD_LIMIT } from "../src/transports/node/adapter.js";
import { basic } from "./fixtures.js";

describe("an oversized body over node:http", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await createMockServer({ autoAdvance: false });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("answers 413 to each of 40 concurrent 3 MB uploads: no reset, whatever the timing", async () => {
    const body = JSON.stringify({ ...samplePayin("PIX"), pad: "x".repeat(3_000_000) });
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${mock.url}/payin`, {
          method: "POST",
          headers: { authorization: basic(mock.account), "content-type": "application/json" },
          body,
        }).then(
          async (res) => `${res.status} ${((await res.json()) as { code: string }).code}`,
          (error: Error) => String((error.cause as { code?: string })?.code ?? error.message),
        ),
      ),
    );
    expect(new Set(outcomes)).toEqual(new Set(["413 PAYLOAD_TOO_LARGE"]));
  });

  it("keeps the connection for the next request once the rest has arrived", async () => {
    const socket = connect(Number(new URL(mock.url).port), "127.0.0.1");
    await once(socket, "connect");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    const pad = 2 * 1024 * 1024;
    socket.write(
      `POST /payin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${pad}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(pad, 0x20));
    socket.write(`GET /payout HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic(mock.account)}\r\n\r\n`);
    await until(() => (received.match(/HTTP\/1\.1 /g) ?? []).length >= 2);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toMatch(/HTTP\/1\.1 200 [\s\S]*"data"/);
    socket.destroy();
  });

  it(`cuts off a client that sends more than ${DISCARD_LIMIT.bytes / 1024 / 1024} MiB past the limit`, async () => {
    const socket = connect(Number(new URL(mock.url).port), "127.0.0.1");
    await once(socket, "connect");
    // The cut arrives as a reset while the client is still writing.
    socket.on("error", () => {});
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write(
      "POST /payin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 107374182400\r\n\r\n",
    );
    // Keep sending 1 MiB chunks until the mock closes the connection (or far past its bound).
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    let open = true;
    void closed.then(() => {
      open = false;
    });
    while (open && sent < 200 * chunk.length) {
      if (!socket.write(chunk))
        await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closed]);
      sent += chunk.length;
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent).toBeLessThan(100 * chunk.length);
    // The mock is still there for everyone else.
    expect(
      (await fetch(`${mock.url}/payout`, { headers: { authorization: basic(mock.account) } })).status,
    ).toBe(200);
  });
});

async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
