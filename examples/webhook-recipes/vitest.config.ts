import { defineProject } from "vitest/config";

export default defineProject({
  // Workspace packages resolve to src/ through the @paykit/source condition (as in the other examples);
  // the Bun, Workers and Edge runs bundle or resolve the built packages (dist).
  resolve: { conditions: ["@paykit/source", "module", "browser", "development|production"] },
  // No "module" condition on the SSR side: Node loads external packages, and a "module" build made for
  // bundlers (OpenTelemetry's, with extensionless imports) fails there.
  ssr: { resolve: { conditions: ["@paykit/source", "node", "development|production"] } },
  test: {
    name: "example-webhook-recipes",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
