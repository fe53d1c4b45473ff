// Loads the built package the way users do, `import()` and `require()`, and makes one call each
// (run by `pnpm package:check` after the build).
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const esm = await import("@paykit/node");
const cjs = require("@paykit/node");

for (const [format, mod] of [
  ["esm", esm],
  ["cjs", cjs],
]) {
  const fetch = async () =>
    new Response(JSON.stringify({ code: "NOT_FOUND", message: "payin not found" }), { status: 404 });
  const paykit = new mod.Paykit({
    publicKey: "pk_test_smoke",
    secretKey: "sk_test_smoke",
    baseUrl: "http://127.0.0.1:1",
    fetch,
  });
  const error = await paykit.payins.retrieve("pi_smoke").catch((e) => e);
  assert.equal(error.name, "NotFoundError", `${format}: a 404 is a NotFoundError`);
  assert.ok(mod.isPaykitApiError(error), `${format}: the guard recognizes it`);
  assert.equal(typeof mod.VERSION, "string");
}
console.log("@paykit/node: import() and require() of dist work");
