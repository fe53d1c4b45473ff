import { describe, expect, it } from "vitest";
import { verifyWebhook, type WebhookVerificationErrorCode } from "../src/index.js";
import { generateWebhookSecret, signWebhook } from "../src/testing.js";
import { payinBody, payoutBody, SECRET } from "./fixtures.js";

const body = JSON.stringify(payinBody);
const now = () => 1_800_000_000_000;
const timestamp = 1_800_000_000;

async function signed(options: { secret?: string | string[]; timestamp?: number } = {}) {
  return signWebhook(body, {
    secret: options.secret ?? SECRET,
    webhookId: "msg_1",
    timestamp: options.timestamp ?? timestamp,
  });
}

async function codeOf(promise: Promise<unknown>): Promise<WebhookVerificationErrorCode | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    expect(error).toMatchObject({ name: "WebhookVerificationError" });
    return (error as { code: WebhookVerificationErrorCode }).code;
  }
}

describe("verifyWebhook", () => {
  it("matches the Standard Webhooks reference vector", async () => {
    const payload = '{"test": 2432232314}';
    const headers = await signWebhook(payload, {
      secret: SECRET,
      webhookId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
    });
    expect(headers["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("accepts a delivery signed with the secret and returns the typed event with its webhook id", async () => {
    const event = await verifyWebhook(body, await signed(), SECRET, { now });
    expect(event).toEqual({ kind: "payin", id: payinBody.id, data: payinBody, webhookId: "msg_1" });
  });

  it("accepts bytes, web Headers, and Node-style headers with any case", async () => {
    const headers = await signed();
    const bytes = new TextEncoder().encode(body);
    await expect(verifyWebhook(bytes, new Headers(headers), SECRET, { now })).resolves.toMatchObject({
      kind: "payin",
    });
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(verifyWebhook(body, upper, SECRET, { now })).resolves.toMatchObject({ kind: "payin" });
  });

  it("verifies payout deliveries", async () => {
    const raw = JSON.stringify(payoutBody);
    const headers = await signWebhook(raw, { secret: SECRET, timestamp });
    await expect(verifyWebhook(raw, headers, SECRET, { now })).resolves.toMatchObject({ kind: "payout" });
  });

  it("supports key rotation: several v1 signatures in the header, several secrets on the receiver", async () => {
    const next = generateWebhookSecret();
    const both = await signed({ secret: [SECRET, next] });
    expect(both["webhook-signature"].split(" ")).toHaveLength(2);
    await expect(verifyWebhook(body, both, next, { now })).resolves.toMatchObject({ id: payinBody.id });
    const oldOnly = await signed({ secret: SECRET });
    await expect(verifyWebhook(body, oldOnly, [next, SECRET], { now })).resolves.toMatchObject({
      id: payinBody.id,
    });
  });

  it.each([
    [
      "SIGNATURE_MISMATCH",
      "a tampered body",
      async () => verifyWebhook(body.replace("10000", "99999"), await signed(), SECRET, { now }),
    ],
    [
      "SIGNATURE_MISMATCH",
      "another endpoint's secret",
      async () => verifyWebhook(body, await signed(), generateWebhookSecret(), { now }),
    ],
    [
      "TIMESTAMP_OUT_OF_TOLERANCE",
      "a delivery 301 s old",
      async () => verifyWebhook(body, await signed({ timestamp: timestamp - 301 }), SECRET, { now }),
    ],
    [
      "TIMESTAMP_OUT_OF_TOLERANCE",
      "a delivery 301 s in the future",
      async () => verifyWebhook(body, await signed({ timestamp: timestamp + 301 }), SECRET, { now }),
    ],
    [
      "INVALID_TIMESTAMP",
      "a non-numeric timestamp",
      async () =>
        verifyWebhook(body, { ...(await signed()), "webhook-timestamp": "yesterday" }, SECRET, { now }),
    ],
    [
      "NO_SIGNATURE",
      "a header without a v1 signature",
      async () =>
        verifyWebhook(body, { ...(await signed()), "webhook-signature": "v2,abc" }, SECRET, { now }),
    ],
    ["MISSING_HEADERS", "no headers at all", async () => verifyWebhook(body, {}, SECRET, { now })],
  ])("refuses %s: %s", async (code, _label, run) => {
    expect(await codeOf(run())).toBe(code);
  });

  it("honours a custom tolerance", async () => {
    const old = await signed({ timestamp: timestamp - 301 });
    await expect(verifyWebhook(body, old, SECRET, { now, toleranceSeconds: 600 })).resolves.toMatchObject({
      kind: "payin",
    });
    const fresh = await signed({ timestamp: timestamp - 10 });
    expect(await codeOf(verifyWebhook(body, fresh, SECRET, { now, toleranceSeconds: 5 }))).toBe(
      "TIMESTAMP_OUT_OF_TOLERANCE",
    );
  });

  it("diagnoses a parsed object passed instead of the raw body", async () => {
    const promise = verifyWebhook(payinBody as unknown as string, await signed(), SECRET, { now });
    await expect(promise).rejects.toMatchObject({
      code: "BODY_NOT_RAW",
      message: expect.stringMatching(/parsed object.*raw/s),
    });
  });

  it.each([
    ["a trailing newline", `${SECRET}\n`, /whitespace/],
    ["a missing whsec_ prefix", SECRET.slice("whsec_".length), /must start with "whsec_"/],
    ["an API key instead", "sk_test_abc", /whsec_/],
    ["a doubled whsec_ prefix", `whsec_${SECRET}`, /twice/],
    ["a non-base64 secret", "whsec_***", /base64/],
  ])("diagnoses a secret with %s", async (_label, secret, message) => {
    await expect(verifyWebhook(body, await signed(), secret, { now })).rejects.toMatchObject({
      code: "INVALID_SECRET",
      message: expect.stringMatching(message),
    });
  });

  it("names exactly the missing headers", async () => {
    const { "webhook-signature": _sig, "webhook-id": _id, ...rest } = await signed();
    await expect(verifyWebhook(body, rest, SECRET, { now })).rejects.toMatchObject({
      code: "MISSING_HEADERS",
      message: expect.stringContaining("webhook-id, webhook-signature"),
    });
  });

  it("never puts the secret or the body in the error's JSON or message", async () => {
    try {
      await verifyWebhook(body, await signed(), generateWebhookSecret(), { now });
      expect.unreachable();
    } catch (error) {
      const text = JSON.stringify(error) + String(error);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("Maria");
    }
  });
});
