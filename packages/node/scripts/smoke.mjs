// Loads the built package the way users do, `import()` and `require()`, and makes one call each
// (run by `pnpm package:check` after the build). Every module the process resolves through `import` is
// recorded by a resolve hook, and `require`'s by its cache: with no OpenTelemetry provider registered,
// neither build may load @opentelemetry/api.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire, register } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const recordDir = mkdtempSync(join(tmpdir(), "paykit-smoke-"));
const record = join(recordDir, "resolved.txt");
const hooks = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(record)}, resolved.url + "\\n");
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

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
// The checkout code loads only from its own subpath, so the main entry's cold start does not pay for it;
// from there it throws the main entry's own error classes (one shared chunk, in both builds).
const loadedBeforeCheckout = [...readFileSync(record, "utf8").split("\n"), ...Object.keys(require.cache)];
assert.deepEqual(
  loadedBeforeCheckout.filter((name) => name.includes("/dist/checkout/")),
  [],
  "the main entry loads no checkout code",
);
for (const [format, main, load] of [
  ["esm", esm, (specifier) => import(specifier)],
  ["cjs", cjs, async (specifier) => require(specifier)],
]) {
  const { createPaymentStatus } = await load("@paykit/node/checkout");
  const paykit = new main.Paykit({
    publicKey: "pk_test_smoke",
    secretKey: "sk_test_smoke",
    baseUrl: "http://127.0.0.1:1",
  });
  assert.throws(
    () => createPaymentStatus({ paykit }),
    (error) => error instanceof main.PaykitConfigError && /authorize/.test(error.message),
    `${format}: a missing authorize is the main entry's PaykitConfigError`,
  );
}
// The shared payment-status stores load from both builds (without their drivers, which stay the user's).
for (const [format, load] of [
  ["esm", (specifier) => import(specifier)],
  ["cjs", async (specifier) => require(specifier)],
]) {
  const { redisStatusStore } = await load("@paykit/node/checkout/redis");
  const { postgresStatusStore, postgresStatusSchema } = await load("@paykit/node/checkout/postgres");
  assert.throws(() => redisStatusStore({}), TypeError, `${format}: redisStatusStore checks its client`);
  assert.throws(() => postgresStatusStore({}), TypeError, `${format}: postgresStatusStore checks its pool`);
  assert.match(postgresStatusSchema(), /CREATE TABLE IF NOT EXISTS paykit_payment_status/);
}
const resolved = readFileSync(record, "utf8").split("\n");
rmSync(recordDir, { recursive: true, force: true });
assert.ok(
  resolved.some((url) => url.includes("/packages/contract/")),
  "the resolve hook records the client's lazy imports",
);
const otel = [...resolved, ...Object.keys(require.cache)].filter((name) => name.includes("@opentelemetry"));
assert.deepEqual(otel, [], "no OpenTelemetry module is loaded when no provider is registered");
console.log(
  "@paykit/node: import() and require() of dist work; nothing of OpenTelemetry loaded without a provider",
);
