import { describe, expect, it } from "vitest";
import { parseWebhook, parseWebhookRequest, verifyWebhook } from "../src/index.js";
import { signWebhook } from "../src/testing.js";
import { payinBody, SECRET } from "./fixtures.js";

const body = JSON.stringify(payinBody);
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("event.traceparent (the trace of the call that created the resource)", () => {
  it("is copied from a verified delivery's headers", async () => {
    const headers = { ...(await signWebhook(body, { secret: SECRET })), traceparent: TRACEPARENT };
    await expect(verifyWebhook(body, headers, SECRET)).resolves.toMatchObject({ traceparent: TRACEPARENT });
    const request = new Request("https://merchant.example/webhooks/paykit", {
      method: "POST",
      body,
      headers,
    });
    await expect(parseWebhookRequest(request, { secret: SECRET })).resolves.toMatchObject({
      traceparent: TRACEPARENT,
    });
  });

  it("is absent when the header is missing or malformed", async () => {
    const signed = await signWebhook(body, { secret: SECRET });
    expect(await verifyWebhook(body, signed, SECRET)).not.toHaveProperty("traceparent");
    const bad = await verifyWebhook(body, { ...signed, traceparent: "00-xyz-<script>-01" }, SECRET);
    expect(bad).not.toHaveProperty("traceparent");
    expect(parseWebhook(body, { traceparent: "not a traceparent" })).not.toHaveProperty("traceparent");
  });
});
