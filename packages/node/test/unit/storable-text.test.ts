// Text the service's store could not keep (a lone UTF-16 surrogate, a NUL) is refused by the client before
// anything is sent, naming the field, in the same words as the service's INVALID_DATA (issue 21). In a
// query or a path a lone surrogate would otherwise be replaced by U+FFFD, or make encodeURIComponent throw.
import { STORABLE_TEXT_MESSAGE } from "@paykit/contract";
import { describe, expect, it } from "vitest";
import type { Paykit } from "../../src/index.js";
import { scriptedClient } from "../support/client.js";
import { customer, payinBase, payoutRequest, pixCreated } from "../support/fixtures.js";

const pix = { ...payinBase, paymentMethod: "PIX" as const, customer };

describe("text a store cannot keep is refused before sending, naming the field", () => {
  it.each<[string, string, (paykit: Paykit) => Promise<unknown>]>([
    ["referenceId", "a lone high surrogate", (p) => p.payins.create({ ...pix, referenceId: "order-\ud83d" })],
    [
      "customer.name",
      "a NUL",
      (p) => p.payins.create({ ...pix, customer: { ...customer, name: "Ana\u0000" } }),
    ],
    [
      "items.0.title",
      "a lone low surrogate",
      (p) => p.payins.create({ ...pix, items: [{ title: "\ude00 Livro", quantity: 1, unitPrice: 10_000 }] }),
    ],
    [
      "webhookUrl",
      "a lone surrogate",
      (p) => p.payins.create({ ...pix, webhookUrl: "https://shop.example/\ud800" }),
    ],
    [
      "split.0.note",
      "a NUL inside a split rule",
      (p) => p.payins.create({ ...pix, split: [{ note: "a\u0000" }] }),
    ],
    [
      "beneficiaryName",
      "a lone surrogate",
      (p) => p.payouts.create({ ...payoutRequest, beneficiaryName: "\udbff" }),
    ],
    [
      "pixKey",
      "a NUL",
      (p) => p.payouts.create({ ...payoutRequest, pixKey: `${payoutRequest.pixKey}\u0000` }),
    ],
    ["referenceId", "a lone surrogate in the list query", (p) => p.payouts.list({ referenceId: "w-\ud800" })],
    ["id", "a lone surrogate in the path", (p) => p.payins.retrieve("pi_\ud800")],
  ])("%s holding %s", async (path, _what, send) => {
    const api = scriptedClient({});
    await expect(send(api.paykit)).rejects.toMatchObject({
      name: "PaykitValidationError",
      code: "INVALID_DATA",
      message: expect.stringContaining(`${path} ${STORABLE_TEXT_MESSAGE}`),
      details: expect.arrayContaining([{ path, message: STORABLE_TEXT_MESSAGE }]),
    });
    expect(api.seen).toHaveLength(0);
  });

  it("well-formed text (emoji, combining marks, quotes, backslashes) is sent exactly as given", async () => {
    const referenceId = 'pedido-😀-e\u0301-"q"-\\';
    const name = "Zoë 👩‍👩‍👧 中文";
    const api = scriptedClient({ "POST /v1/payin": [{ status: 201, body: { ...pixCreated, referenceId } }] });
    await api.paykit.payins.create({ ...pix, referenceId, customer: { ...customer, name } });
    expect(api.seen).toHaveLength(1);
    const sent = JSON.parse(api.seen[0]!.body!) as { referenceId: string; customer: { name: string } };
    expect(sent.referenceId).toBe(referenceId);
    expect(sent.customer.name).toBe(name);
  });
});
