// `paykit-mock trigger`'s choices of what it creates (`--amount`, `--reference-id`, `--data`) and of an
// existing resource to drive (`--payin`, `--payout`), through runTriggerScenario against a real mock over
// HTTP (issue 35; stripe-cli #295 asks the same of `stripe trigger`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer, samplePayin, samplePayout } from "../src/index.js";
import { merge, payinRequest } from "../src/scenarios/request.js";
import { findTriggerScenario, runTriggerScenario } from "../src/scenarios/run.js";
import type { CreatePayinStep } from "../src/scenarios/scenario.js";
import { basic } from "./fixtures.js";

let mock: MockServer;
let keys: { publicKey: string; secretKey: string; accountId: string };

beforeAll(async () => {
  mock = await createMockServer({ autoAdvance: false });
  keys = await mock.control.createAccount({ balance: 5_000_000 });
});
afterAll(async () => {
  await mock?.close();
});

async function post(path: string, body: unknown): Promise<{ id: string; status: string }> {
  const res = await fetch(`${mock.url}${path}`, {
    method: "POST",
    headers: { authorization: basic(keys), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; status: string };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error("not refused"),
    (error: Error) => error,
  );

describe("what trigger creates: --amount, --reference-id, --data", () => {
  it("creates the payin with the amount, reference and fields given, merged into the sample", async () => {
    const run = await runTriggerScenario("payin.approved", {
      url: mock.url,
      keys,
      amount: 14_990,
      referenceId: "order-35-1",
      data: {
        customer: { name: "João Ninguém", email: "joao@example.com" },
        items: [{ title: "Curso", quantity: 1, unitPrice: 14_990 }],
      },
    });
    expect(run.ok, run.problems.join("; ")).toBe(true);
    const [payin] = await mock.control.payins(keys.accountId, { limit: 1 });
    expect(payin).toMatchObject({
      id: run.steps[0]?.id,
      amount: 14_990,
      referenceId: "order-35-1",
      status: "APPROVED",
    });
    // a field of an object replaces that field alone: the sample's document and phone stay
    const record = (await (
      await fetch(`${mock.url}/payin/${payin?.id}`, { headers: { authorization: basic(keys) } })
    ).json()) as { customer: Record<string, unknown>; items: { title: string }[] };
    expect(record.customer).toMatchObject({
      name: "João Ninguém",
      email: "joao@example.com",
      document: samplePayin("PIX").customer.document,
    });
    expect(record.items.map((item) => item.title)).toEqual(["Curso"]);
  });

  it("creates the payout with the amount and reference given", async () => {
    const run = await runTriggerScenario("payout.completed", {
      url: mock.url,
      keys,
      amount: 1_234,
      referenceId: "payout-35-1",
    });
    expect(run.ok, run.problems.join("; ")).toBe(true);
    const [payout] = await mock.control.payouts(keys.accountId, { limit: 1 });
    expect(payout).toMatchObject({ amount: 1_234, referenceId: "payout-35-1", status: "COMPLETED" });
  });

  it.each([
    [{ data: { customer: { document: "12345678900" } } }, /--data: customer\.document must be a valid CPF/],
    [{ data: { amount: "100" } }, /--data: amount /],
    [
      { data: { paymentMethod: "BOLETO" } },
      /paymentMethod is "BOLETO", and this scenario's payin is PIX: choose the method with --method/,
    ],
    [{ data: { colour: "blue" } }, /--data: colour /],
    [{ amount: 0 }, /--amount: amount /],
    [{ referenceId: "a\u0000b" }, /--reference-id: referenceId /],
    [{ data: { amount: 500 }, amount: 600 }, /--data sets amount and --amount another: give it once/],
  ])("refuses %j naming the field and the flag, before anything is created", async (choices, message) => {
    const before = (await mock.control.payins(keys.accountId, { limit: 1000 })).length;
    const error = await refusal(runTriggerScenario("payin.approved", { url: mock.url, keys, ...choices }));
    expect(error).toMatchObject({ name: "TriggerRefusedError" });
    expect(error.message).toMatch(message);
    expect((await mock.control.payins(keys.accountId, { limit: 1000 })).length).toBe(before);
  });

  it("refuses --data that changes what makes the scenario (its magic card, its PIX key)", async () => {
    const card = await refusal(
      runTriggerScenario("payin.3ds", {
        url: mock.url,
        keys,
        data: { card: { number: "4111111111111111" } },
      }),
    );
    expect(card.message).toMatch(/--data sets card\.number, which this scenario fixes to "4000000000003220"/);
    const key = await refusal(
      runTriggerScenario("payout.failed", { url: mock.url, keys, data: { pixKey: "maria@example.com" } }),
    );
    expect(key.message).toMatch(/--data sets pixKey, which this scenario fixes to "reject@bank.test"/);
    // the same value is no change
    const same = await runTriggerScenario("payout.failed", {
      url: mock.url,
      keys,
      data: { pixKey: "reject@bank.test" },
    });
    expect(same.ok, same.problems.join("; ")).toBe(true);
  });

  it("merges objects field by field, and keeps a __proto__ field a field the schema refuses by name", () => {
    const merged = merge(
      { customer: { name: "A", email: "a@x" }, items: [1, 2] },
      { customer: { name: "B" }, items: [3] },
    );
    expect(merged).toEqual({ customer: { name: "B", email: "a@x" }, items: [3] });
    const hostile = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const step = findTriggerScenario("payin.approved").steps[0] as CreatePayinStep;
    expect(() => payinRequest(step, { data: hostile })).toThrow(/--data: __proto__ /);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("an existing resource: --payin, --payout", () => {
  it("pays the PENDING PIX payin given, running only the steps after its status", async () => {
    const payin = await post("/payin", samplePayin("PIX"));
    const run = await runTriggerScenario("payin.approved", { url: mock.url, keys, payinId: payin.id });
    expect(run.ok, run.problems.join("; ")).toBe(true);
    expect(run.existing).toEqual({ resource: "payin", id: payin.id, status: "PENDING" });
    expect(run.steps.map((step) => `${step.step} ${step.id} ${step.status}`)).toEqual([
      `payPayin ${payin.id} APPROVED`,
    ]);
    const again = await refusal(
      runTriggerScenario("payin.approved", { url: mock.url, keys, payinId: payin.id }),
    );
    expect(again.message).toBe(
      `--payin ${payin.id} is APPROVED already: payin.approved --method PIX has nothing left to do with it`,
    );
  });

  it("takes the scenario entry of the payin's method, and refuses another method", async () => {
    const boleto = await post("/payin", samplePayin("BOLETO"));
    const wrong = await refusal(
      runTriggerScenario("payin.expired", { url: mock.url, keys, payinId: boleto.id, method: "PIX" }),
    );
    expect(wrong.message).toBe(`--payin ${boleto.id} is a BOLETO payin, not PIX: leave --method out`);
    const run = await runTriggerScenario("payin.expired", { url: mock.url, keys, payinId: boleto.id });
    expect(run).toMatchObject({
      ok: true,
      method: "BOLETO",
      steps: [{ step: "expirePayin", status: "EXPIRED" }],
    });
    const pix = await post("/payin", samplePayin("PIX"));
    const none = await refusal(runTriggerScenario("payin.refused", { url: mock.url, keys, payinId: pix.id }));
    expect(none.message).toBe(
      `--payin ${pix.id} is a PIX payin, and payin.refused plays only OPEN_FINANCE, CREDIT_CARD payins`,
    );
  });

  it("goes on with a payout from where it is, and refuses a step that cannot apply to its status", async () => {
    const payout = await post("/payout", samplePayout({ referenceId: "existing-35-1" }));
    await mock.control.advancePayout(payout.id);
    const run = await runTriggerScenario("payout.completed", { url: mock.url, keys, payoutId: payout.id });
    expect(run.ok, run.problems.join("; ")).toBe(true);
    expect(run.existing).toMatchObject({ status: "PROCESSING" });
    expect(run.steps.map((step) => `${step.step} ${step.status}`)).toEqual(["advancePayout COMPLETED"]);
    const refund = await runTriggerScenario("payout.refunded", { url: mock.url, keys, payoutId: payout.id });
    expect(refund.steps.map((step) => `${step.step} ${step.status}`)).toEqual(["refundPayout REFUNDED"]);
    const failed = await refusal(
      runTriggerScenario("payout.failed", { url: mock.url, keys, payoutId: payout.id }),
    );
    expect(failed.message).toBe(
      `--payout ${payout.id} is REFUNDED: no step of payout.failed applies to a payout in that status (it goes on from PENDING or PROCESSING)`,
    );
  });

  it.each([
    [
      { payinId: "pi_01JNOSUCHPAYIN0000000000000" },
      "payin.approved",
      /--payin pi_01JNOSUCHPAYIN0000000000000: the account has no payin with this id/,
    ],
    [
      { payoutId: "po_01JNOSUCHPAYOUT000000000000" },
      "payout.completed",
      /the account has no payout with this id/,
    ],
    [
      { payoutId: "po_01JNOSUCHPAYOUT000000000000" },
      "payin.approved",
      /payin.approved plays a payin; drive a payin with --payin <id>/,
    ],
    [
      { payinId: "pi_x0000", amount: 100 },
      "payin.approved",
      /--amount shapes the resource a run creates; --payin creates none/,
    ],
    [
      { payinId: "pi_x0000", payoutId: "po_x0000" },
      "payin.approved",
      /--payin and --payout each name the resource to drive: give one/,
    ],
  ])("refuses %j on %s, naming what to change", async (options, scenario, message) => {
    const error = await refusal(runTriggerScenario(scenario, { url: mock.url, keys, ...options }));
    expect(error).toMatchObject({ name: "TriggerRefusedError" });
    expect(error.message).toMatch(message);
  });

  it("refuses --payin without the keys of the account that owns it", async () => {
    const error = await refusal(runTriggerScenario("payin.approved", { url: mock.url, payinId: "pi_x0000" }));
    expect(error.message).toMatch(/--payin drives a resource of your account: give its keys/);
  });
});
