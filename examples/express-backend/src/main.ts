import { Paykit } from "@paykit/node";
import { createApp } from "./app.js";

// Run against the mock: `pnpm mock --default-keys pk_test_…:sk_test_…`, then set the variables below.
const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} (see examples/express-backend/README.md)`);
  return value;
};

const paykit = new Paykit({
  publicKey: required("PAYKIT_PUBLIC_KEY"),
  secretKey: required("PAYKIT_SECRET_KEY"),
  baseUrl: process.env.PAYKIT_BASE_URL ?? "http://127.0.0.1:4010",
});
const app = createApp({
  paykit,
  webhookSecret: required("PAYKIT_WEBHOOK_SECRET"),
  onEvent: (event) => console.log(`webhook: ${event.kind} ${event.id} → ${event.data.status}`),
});
const port = Number(process.env.PORT ?? 3000);
app.listen(port, "127.0.0.1", () => console.log(`merchant backend on http://127.0.0.1:${port}`));
