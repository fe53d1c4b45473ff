// The Next.js route handler module, tested through its exported POST with real Requests: on the
// Node.js runtime served by a plain node:http adaptor, on the Edge runtime inside edge-runtime (the
// runtime Next.js uses for `runtime = "edge"`), with the env inlined the way `next build` inlines it.
import { describe, expect, it } from "vitest";
import * as nodeRoute from "../src/app/api/webhooks/paykit/route.js";
import * as edgeRoute from "../src/app/api/webhooks/paykit-edge/route.js";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const nodejs = recipe("Next.js route handler, runtime = nodejs");
describe(nodejs.name, () => {
  it("declares its runtime", () => {
    expect(nodeRoute.runtime).toBe("nodejs");
    expect(edgeRoute.runtime).toBe("edge");
  });
  smokeTest(nodejs.start);
});

const edge = recipe("Next.js route handler, runtime = edge (edge-runtime)");
describe(edge.name, () => smokeTest(edge.start));
