import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { type NodeListener, toNodeListener } from "../../src/checkout/index.js";
import { until } from "./endpoint.js";

/** A node:http server running `listener`; disposed with `await using`. */
async function serve(listener: NodeListener): Promise<{ url: string; server: Server } & AsyncDisposable> {
  const server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("toNodeListener over real node:http", () => {
  it("hands the handler the full URL, method and headers, and writes status, headers and cookies back", async () => {
    let seen: Request | undefined;
    await using http = await serve(
      toNodeListener(async (request) => {
        seen = request;
        const headers = new Headers({ "content-type": "text/plain", "x-answer": "42" });
        headers.append("set-cookie", "a=1");
        headers.append("set-cookie", "b=2");
        return new Response("hello", { status: 201, headers });
      }),
    );
    const response = await fetch(`${http.url}/payment-status?id=pi_1`, { headers: { "x-shopper": "maria" } });
    expect(response.status).toBe(201);
    expect(await response.text()).toBe("hello");
    expect(response.headers.get("x-answer")).toBe("42");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(seen?.url).toBe(`${http.url}/payment-status?id=pi_1`);
    expect(seen?.method).toBe("GET");
    expect(seen?.headers.get("x-shopper")).toBe("maria");
  });

  it("streams the body as it comes, and aborts the request's signal and cancels the body when the client leaves", async () => {
    let aborted = false;
    let cancelled = false;
    let push: ((text: string) => void) | undefined;
    await using http = await serve(
      toNodeListener(async (request) => {
        request.signal.addEventListener("abort", () => {
          aborted = true;
        });
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            push = (text) => controller.enqueue(new TextEncoder().encode(text));
          },
          cancel() {
            cancelled = true;
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }),
    );
    const controller = new AbortController();
    const response = await fetch(http.url, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    push?.("data: one\n\n");
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: one\n\n"); // before the body ends
    controller.abort();
    await until(() => aborted && cancelled, "the abort and the cancel to reach the handler");
  });

  it("a handler that throws: 500 on a bare server, the error to Express's next", async () => {
    const failing = toNodeListener(async () => {
      throw new Error("boom");
    });
    await using bare = await serve(failing);
    expect((await fetch(bare.url)).status).toBe(500);
    const errors: unknown[] = [];
    await using express = await serve((req, res) =>
      failing(req, res, (error) => {
        errors.push(error);
        res.writeHead(418, {});
        res.end();
      }),
    );
    expect((await fetch(express.url)).status).toBe(418);
    expect(errors).toEqual([expect.objectContaining({ message: "boom" })]);
  });
});
