import { createPaykitMock } from "@paykit/mock-server/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Paykit } from "../../src/index.js";

// A merchant's test file builds its client at module level and starts msw in beforeAll: the client
// must use the fetch msw patches, not the one that existed when the client was built.
const mock = createPaykitMock({ baseUrl: "https://api.paykit.test", autoAdvance: false });
const paykit = new Paykit({
  publicKey: mock.account.publicKey,
  secretKey: mock.account.secretKey,
  baseUrl: "https://api.paykit.test",
  maxRetries: 0,
});
const server = setupServer(...mock.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => {
  server.close();
  mock.close();
});

it("a client built before msw starts listening still goes through msw", async () => {
  await expect(paykit.payouts.list()).resolves.toMatchObject({ meta: { page: 1, limit: 10 } });
});
