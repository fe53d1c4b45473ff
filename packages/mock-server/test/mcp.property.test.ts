// No tool result of `paykit-mock mcp` shows a secret key, a webhook secret or a card number, whatever
// an agent sends: random calls of every tool, valid and invalid, against a real mock over HTTP.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMockServer,
  MAGIC_CARDS,
  type MockServer,
  SAMPLE_CARD,
  samplePayin,
  samplePayout,
} from "../src/index.js";
import { localServer, type McpSession, startMcp, stopAll } from "./mcp-harness.js";

const KEYS = { publicKey: "pk_test_mcpproperty01", secretKey: "sk_test_mcpproperty01secret" };
const WEBHOOK_SECRET = `whsec_${Buffer.from("mcp-property-webhook-secret-32by").toString("base64")}`;

let mock: MockServer;
let session: McpSession;
let receiverUrl: string;
let toolNames: string[];
let schemas: Map<string, Record<string, unknown>>;
// Ids the session made, for the tools that act on one (refilled as the property creates more).
const ids: string[] = [];

beforeAll(async () => {
  mock = await createMockServer({ autoAdvance: false });
  await mock.control.createAccount({ ...KEYS, webhookSecret: WEBHOOK_SECRET, balance: 10_000_000 });
  receiverUrl = (await localServer(() => ({ status: 200, body: "ok" }))).url;
  session = await startMcp(["--url", mock.url, "--keys", `${KEYS.publicKey}:${KEYS.secretKey}`]);
  const { tools } = await session.client.listTools();
  toolNames = tools.map((tool) => tool.name);
  schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
  const seeds: [string, object][] = [
    ["createPayin", samplePayin("PIX")],
    ["createPayin", samplePayin("CREDIT_CARD")],
    ["createPayout", samplePayout()],
  ];
  for (const [tool, params] of seeds)
    ids.push(((await session.call(tool, { ...params })).json as { id: string }).id);
}, 120_000);

afterAll(async () => {
  await stopAll();
  await mock?.close();
});

/** A card number passing the Luhn check, 13-19 digits. */
const luhnCard = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 18 }).map((digits) => {
  const sum = [...digits].reverse().reduce((total, digit, i) => {
    const doubled = i % 2 === 0 ? digit * 2 : digit;
    return total + (doubled > 9 ? doubled - 9 : doubled);
  }, 0);
  return `${digits.join("")}${(10 - (sum % 10)) % 10}`;
});
const cardNumber = fc.oneof(fc.constantFrom(SAMPLE_CARD.number, ...Object.keys(MAGIC_CARDS)), luhnCard);
const secretKey = fc.stringMatching(/^[A-Za-z0-9]{8,24}$/).map((s) => `sk_test_${s}`);
const publicKey = fc.stringMatching(/^[A-Za-z0-9]{8,24}$/).map((s) => `pk_test_${s}`);
const webhookSecret = fc.stringMatching(/^[A-Za-z0-9+/]{24,44}$/).map((s) => `whsec_${s}`);
const anId = fc.oneof(
  fc.nat().map((i) => ids[i % ids.length] ?? "pi_none"),
  fc.string({ maxLength: 30 }),
);
const randomJson = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

/** Arguments an agent might send a tool: mostly well-formed, some not. */
function templateFor(tool: string): fc.Arbitrary<Record<string, unknown>> {
  switch (tool) {
    case "createAccount":
      return fc.record(
        { publicKey, secretKey, webhookSecret, balance: fc.nat(1_000_000) },
        { requiredKeys: [] },
      );
    case "updateAccount":
      return fc.record(
        { webhookSecret, payoutApproval: fc.constantFrom("automatic", "manual") },
        { requiredKeys: [] },
      );
    case "createPayin":
      return fc.oneof(
        fc
          .record({ number: cardNumber, cvv: fc.stringMatching(/^\d{3,4}$/) })
          .map((card) =>
            samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, ...card }, webhookUrl: receiverUrl }),
          ),
        fc
          .constantFrom("PIX", "BOLETO", "OPEN_FINANCE")
          .map((method) => samplePayin(method, { webhookUrl: receiverUrl })),
        // A card number where none belongs: it must not come back either.
        cardNumber.map((number) => ({ ...samplePayin("PIX"), referenceId: number })),
      );
    case "createPayout":
      return fc
        .integer({ min: -5, max: 200_000 })
        .map((amount) => samplePayout({ amount, webhookUrl: receiverUrl }));
    case "webhookDoctor":
      return fc.record(
        { url: fc.constant(receiverUrl), secret: webhookSecret, timeoutMs: fc.constant(2_000) },
        { requiredKeys: ["url"] },
      );
    case "runScenario":
      return fc.record({
        scenario: fc.constantFrom("payin.approved", "payin.refused", "payout.completed", "payin.3ds"),
        webhookUrl: fc.constant(receiverUrl),
      });
    case "setAccountClock":
      return fc.record({ advanceMs: fc.nat(86_400_000) });
    default:
      return fromSchema(schemas.get(tool) ?? {}) as fc.Arbitrary<Record<string, unknown>>;
  }
}

/** Values a JSON Schema accepts, mostly (the mock has the last word): the other tools' arguments. */
function fromSchema(schema: Record<string, unknown>, field = ""): fc.Arbitrary<unknown> {
  if (field === "id") return anId;
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ("const" in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({
        min: typeof schema.minimum === "number" ? schema.minimum : 0,
        max: Math.min(typeof schema.maximum === "number" ? schema.maximum : 1_000_000, 1_000_000),
      });
    case "string":
      return fc.string({ minLength: 1, maxLength: 20 });
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const fields = Object.fromEntries(
        Object.entries(properties).map(([key, inner]) => [key, fromSchema(inner, key)]),
      );
      return fc.record(fields, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

// The tools that take or make secrets and card data, called more often than the others.
const SENSITIVE = ["createAccount", "updateAccount", "createPayin", "webhookDoctor"];

// A tool of the list (read when the property runs, after beforeAll listed them) and its arguments.
const call = fc.oneof(fc.nat(), fc.constantFrom(...SENSITIVE)).chain((pick) => {
  const tool = typeof pick === "string" ? pick : (toolNames[pick % toolNames.length] as string);
  const template = templateFor(tool);
  const args = fc.oneof(
    { weight: 4, arbitrary: template },
    { weight: 1, arbitrary: randomJson },
    // One field of a good call replaced by anything.
    {
      weight: 1,
      arbitrary: fc
        .tuple(template, fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }))
        .map(([good, field, value]) => ({ ...good, [field]: value })),
    },
  );
  return fc.tuple(fc.constant(tool), args);
});

/** Every secret-looking string and card number among a call's arguments. */
function secretsIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === "string") {
    if (/^(sk_test_|whsec_)/.test(value) || /^\d{13,19}$/.test(value)) found.push(value);
  } else if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) secretsIn(inner, found);
  }
  return found;
}

describe("paykit-mock mcp: what a tool result never shows", () => {
  it("no result of any tool, for any arguments, holds a secret key, a webhook secret or a card number", async () => {
    await fc.assert(
      fc.asyncProperty(call, async ([tool, args]) => {
        const result = await session.call(tool, args);
        const created = result.json as { id?: unknown } | undefined;
        if (!result.isError && typeof created?.id === "string" && /^p[io]_/.test(created.id))
          ids.push(created.id);
        for (const secret of [KEYS.secretKey, WEBHOOK_SECRET, ...secretsIn(args)])
          expect(result.text, `${tool} ${JSON.stringify(args)}`).not.toContain(secret);
        expect(result.text).not.toMatch(/sk_(?:test|live)_[A-Za-z0-9]/);
        expect(result.text).not.toMatch(/whsec_[A-Za-z0-9+/]/);
      }),
      { numRuns: 200 },
    );
  }, 300_000);
});
