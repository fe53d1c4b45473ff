// A missing secret is an error, never "verification off" (docs/decisions/webhooks.md): a forged,
// unsigned body must be refused by every entry point whatever the configuration mistake.

import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { parseWebhookRequest, verifyWebhook, WebhookVerificationError } from "../src/index.js";
import { generateWebhookSecret, signWebhook } from "../src/testing.js";
import { payinBody, SECRET } from "./fixtures.js";

const forged = JSON.stringify({ ...payinBody, amount: 1 });
const forgedHeaders = { "content-type": "application/json", "webhook-id": "msg_forged" };
const missingSecrets: [string, string | readonly string[] | undefined][] = [
  ["undefined (an unset environment variable)", undefined],
  ["an empty string", ""],
  ["only whitespace", "  \n"],
  ["an empty list", []],
  ["a list of blanks", ["", " "]],
];

describe("a missing secret", () => {
  it.each(missingSecrets)("verifyWebhook with %s throws SECRET_MISSING", async (_label, secret) => {
    const error = await verifyWebhook(forged, forgedHeaders, secret).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ code: "SECRET_MISSING", message: expect.stringMatching(/webhook secret/) });
    expect((error as Error).message).toMatch(/allowUnsigned/);
  });

  it.each(missingSecrets)("parseWebhookRequest with %s throws SECRET_MISSING", async (_label, secret) => {
    const request = new Request("https://merchant.example/hooks", {
      method: "POST",
      body: forged,
      headers: forgedHeaders,
    });
    await expect(parseWebhookRequest(request, { secret })).rejects.toMatchObject({ code: "SECRET_MISSING" });
    // The body was not consumed: a caller may still answer or log the request.
    expect(request.bodyUsed).toBe(false);
  });

  it("parseWebhookRequest without options at all throws SECRET_MISSING", async () => {
    const request = new Request("https://m.example/h", {
      method: "POST",
      body: forged,
      headers: forgedHeaders,
    });
    await expect(parseWebhookRequest(request)).rejects.toMatchObject({ code: "SECRET_MISSING" });
  });
});

describe("diagnostics of the usual mistakes", () => {
  it("an empty body is EMPTY_BODY, naming the raw-body middleware", async () => {
    const headers = await signWebhook("", { secret: SECRET });
    await expect(verifyWebhook("", headers, SECRET)).rejects.toMatchObject({
      code: "EMPTY_BODY",
      message: expect.stringMatching(/express\.raw/),
    });
  });

  it("a body parsed by a JSON middleware is BODY_NOT_RAW", async () => {
    const headers = await signWebhook(forged, { secret: SECRET });
    await expect(verifyWebhook(JSON.parse(forged), headers, SECRET)).rejects.toMatchObject({
      code: "BODY_NOT_RAW",
      message: expect.stringMatching(/express\.json\(\)/),
    });
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])(
    "a %s content type is WRONG_CONTENT_TYPE",
    async (contentType) => {
      const headers = { ...(await signWebhook(forged, { secret: SECRET })), "content-type": contentType };
      await expect(verifyWebhook(forged, headers, SECRET)).rejects.toMatchObject({
        code: "WRONG_CONTENT_TYPE",
      });
    },
  );

  it("application/json with a charset is accepted", async () => {
    const headers = {
      ...(await signWebhook(forged, { secret: SECRET })),
      "content-type": "application/json; charset=utf-8",
    };
    await expect(verifyWebhook(forged, headers, SECRET)).resolves.toMatchObject({ kind: "payin" });
  });

  it("a timestamp outside tolerance says by how much, in which direction and against which clock", async () => {
    const now = Date.UTC(2026, 10, 24, 12, 0, 0);
    const headers = await signWebhook(forged, { secret: SECRET, timestamp: now / 1000 - 612 });
    const error = await verifyWebhook(forged, headers, SECRET, { now: () => now }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: "TIMESTAMP_OUT_OF_TOLERANCE" });
    expect((error as Error).message).toContain("612 s behind this server's clock (2026-11-24T12:00:00.000Z)");
    const ahead = await signWebhook(forged, { secret: SECRET, timestamp: now / 1000 + 400 });
    await expect(verifyWebhook(forged, ahead, SECRET, { now: () => now })).rejects.toThrow(/400 s ahead of/);
  });

  it("no message ever contains the secret or the body", async () => {
    const secret = generateWebhookSecret();
    const wrongSigner = await signWebhook(forged, { secret: generateWebhookSecret() });
    const attempts = [
      () => verifyWebhook(forged, wrongSigner, secret),
      () => verifyWebhook(forged, {}, `${secret} `),
      () => verifyWebhook(forged, {}, `whsec_${secret}`),
    ];
    for (const attempt of attempts) {
      const error = (await attempt().catch((e: Error) => e)) as Error;
      expect(error.message).not.toContain(secret.slice(6));
      expect(error.message).not.toContain(forged);
    }
  });
});

describe("signWebhook", () => {
  it("returns every header a receiver needs, content type included, and standardwebhooks agrees", async () => {
    const secret = generateWebhookSecret();
    const headers = await signWebhook(forged, { secret, webhookId: "msg_std" });
    expect(headers["content-type"]).toBe("application/json");
    // The reference implementation verifies what the helper signed.
    expect(new Webhook(secret).verify(forged, headers)).toMatchObject({ id: payinBody.id });
    const request = new Request("https://m.example/h", { method: "POST", body: forged, headers });
    await expect(parseWebhookRequest(request, { secret })).resolves.toMatchObject({ webhookId: "msg_std" });
  });
});
