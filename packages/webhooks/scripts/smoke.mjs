// Loads the built package the way users do, `import()` and `require()`, and verifies a delivery
// signed by the testing entry, and applies it once through the order guard's entry (run by
// `pnpm package:check` after the build).
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = JSON.stringify({
  id: "pi_1",
  status: "APPROVED",
  paymentMethod: "PIX",
  amount: 100,
  referenceId: "r",
  customer: { name: "A", email: "a@example.com" },
  updatedAt: "2026-01-01T00:00:00Z",
});
for (const [format, main, testing, order] of [
  [
    "esm",
    await import("@paykit/webhooks"),
    await import("@paykit/webhooks/testing"),
    await import("@paykit/webhooks/order"),
  ],
  [
    "cjs",
    require("@paykit/webhooks"),
    require("@paykit/webhooks/testing"),
    require("@paykit/webhooks/order"),
  ],
]) {
  const headers = await testing.signWebhook(body, { secret });
  const event = await main.verifyWebhook(body, headers, secret);
  assert.equal(event.kind, "payin", `${format}: verified`);
  // The order guard's entry and the main entry share one class.
  assert.equal(order.WebhookOrderGuard, main.WebhookOrderGuard, `${format}: one WebhookOrderGuard`);
  const guard = new order.WebhookOrderGuard();
  assert.equal((await guard.handle(event, () => "applied")).status, "forward", `${format}: applied`);
  assert.equal((await guard.handle(event, () => "twice")).status, "repeat", `${format}: a repeat`);
}
console.log("@paykit/webhooks: import() and require() of dist work");
