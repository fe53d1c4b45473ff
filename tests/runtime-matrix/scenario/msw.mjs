// The mock as msw handlers, from the installed tarballs, with whichever msw the project installed:
// a PIX payin round trip and a typed 404 through @paykit/node, no port opened.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createPaykitMock, samplePayin } from "@paykit/mock-server/msw";
import { Paykit } from "@paykit/node";
import { setupServer } from "msw/node";

const require = createRequire(import.meta.url);
const msw = JSON.parse(readFileSync(require.resolve("msw/package.json"), "utf8")).version;
const mock = createPaykitMock({ baseUrl: "https://api.paykit.test", autoAdvance: false });
const server = setupServer(...mock.handlers);
server.listen({ onUnhandledRequest: "error" });
try {
  const paykit = new Paykit({ ...mock.account, baseUrl: "https://api.paykit.test" });
  const payin = await paykit.payins.create(samplePayin("PIX"));
  await mock.control.payPayin(payin.id);
  const paid = await paykit.payins.retrieve(payin.id);
  const missing = await paykit.payins.retrieve("pi_01JD0000000000000000000000").catch((error) => error);
  console.log(
    `RESULT ${JSON.stringify({ msw, status: paid.status, error: `${missing.name} ${missing.code}` })}`,
  );
} finally {
  server.close();
  mock.close();
}
