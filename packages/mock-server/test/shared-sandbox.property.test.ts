// "One account's keys never read or change another's resources, through the public or the control API"
// (issue 15), as a property: fast-check plays random sequences of control calls on a shared sandbox,
// each made with one account's keys on its own resources or on the other account's, in any order
// (resets, clock moves, faults and PIX keys included). After every call aimed at the other account: not
// a 2xx, and the other account exactly as it was.
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createEngine, type MockEngine } from "../src/index.js";
import { ROUTES } from "./control-routes.js";
import { basic, payoutBody, pixPayin } from "./fixtures.js";

const ADMIN = "property-admin-token";
type Keys = { accountId: string; publicKey: string; secretKey: string };
type Resources = Record<"account" | "payin" | "payout" | "delivery", string>;

async function send(engine: MockEngine, method: string, path: string, authorization: string, body?: unknown) {
  const res = await engine.handle(
    new Request(`http://mock.test${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** An account with a payin (paid, so it has a delivery) and a payout awaiting approval. */
async function seedAccount(engine: MockEngine, name: string): Promise<{ keys: Keys; resources: Resources }> {
  const keys = await engine.control.createAccount({ balance: 500_000, payoutApproval: "manual" });
  const auth = basic(keys);
  const payin = await send(
    engine,
    "POST",
    "/payin",
    auth,
    pixPayin({ webhookUrl: `https://${name}.example/hook` }),
  );
  const payout = await send(engine, "POST", "/payout", auth, payoutBody({ referenceId: `${name}-payout` }));
  await engine.control.payPayin(payin.body?.id as string);
  const [delivery] = await engine.control.webhooks(keys.accountId);
  return {
    keys,
    resources: {
      account: keys.accountId,
      payin: payin.body?.id as string,
      payout: payout.body?.id as string,
      delivery: delivery!.id,
    },
  };
}

/** Everything the control API shows of one account, as the admin sees it. */
async function snapshot(engine: MockEngine, accountId: string) {
  const c = engine.control;
  return {
    account: await c.getAccount(accountId),
    clock:
      Math.round(
        (Date.parse((await c.accountClock(accountId)).now) - Date.parse((await c.clock()).now)) / 60_000,
      ) || 0,
    payins: await c.payins(accountId),
    payouts: await c.payouts(accountId),
    deliveries: (await c.webhooks(accountId)).map((d) => ({
      id: d.id,
      state: d.state,
      attempts: d.attempts.length,
    })),
    faults: await c.faults(accountId),
    pixKeys: await c.pixKeys(accountId),
  };
}

const callArb = fc.record({
  route: fc.nat(ROUTES.length - 1),
  // whose keys make the call, and whose resources fill the path and the body
  caller: fc.constantFrom(0, 1),
  target: fc.constantFrom(0, 1),
});

describe("a shared sandbox, property: one account's keys never touch another's resources", () => {
  it("holds over 60 random sequences of 25 control calls", async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 25, maxLength: 25 }), async (calls) => {
        const engine = createEngine({
          autoAdvance: false,
          adminToken: ADMIN,
          sharedSandbox: true,
          fetch: async () => new Response(null, { status: 204 }),
        });
        try {
          const accounts = [await seedAccount(engine, "a"), await seedAccount(engine, "b")];
          for (const call of calls) {
            const [method, template, scope, body] = ROUTES[call.route]!;
            const caller = accounts[call.caller]!;
            const target = accounts[call.target]!;
            const fill = (text: string) =>
              text.replace(/\{(\w+)\}/g, (_, name: string) => target.resources[name as keyof Resources]);
            const filledBody = body === undefined ? undefined : JSON.parse(fill(JSON.stringify(body)));
            const aimedElsewhere = call.caller !== call.target && scope === "account";
            const before = aimedElsewhere ? await snapshot(engine, target.keys.accountId) : undefined;
            const answer = await send(engine, method, fill(template), basic(caller.keys), filledBody);
            if (aimedElsewhere) {
              checked++;
              expect(answer.status, `${method} ${template} by the other account`).toBe(404);
              expect(await snapshot(engine, target.keys.accountId)).toEqual(before);
            } else if (scope === "global") {
              expect(answer.status, `${method} ${template} with account keys`).toBe(403);
            } else {
              expect([401, 403], `${method} ${template} on its own`).not.toContain(answer.status);
              expect(answer.status).toBeLessThan(500);
            }
          }
        } finally {
          engine.close();
        }
      }),
      { numRuns: 60, seed: 15 },
    );
    console.log(
      `shared sandbox property: ${checked} calls aimed at another account, every one refused, nothing changed`,
    );
    expect(checked).toBeGreaterThan(300);
  }, 120_000);
});
