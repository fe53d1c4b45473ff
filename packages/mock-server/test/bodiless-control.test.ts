// A control call that takes no body refuses one (400 INVALID_DATA) before it acts: `null`, `[]`, `42`
// or fields sent to `POST /_mock/payins/{id}/pay` or `POST /_mock/reset` used to be ignored, and the
// call ran. Every bodiless route of the table, over node:http (the only transport where a GET can
// carry a body), and nothing of the sandbox changes.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../src/index.js";
import { ROUTES } from "./control-routes.js";
import { apiOf, type Harness, payoutBody, pixPayin, ref } from "./fixtures.js";

const BODIES = ["null", "[]", "42", '"text"', '{"approve":true}', "not json"];
const BODILESS = ROUTES.filter(([, , , body]) => body === undefined);

let mock: MockServer;
let resources: Record<string, string>;

/** Sends `method path` with a raw JSON body through node:http (fetch refuses a body on GET). */
function send(method: string, path: string, body: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(`${mock.url}${path}`, {
      method,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const fill = (template: string) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => resources[name] as string);

/** Everything a bodiless call could change, without the clock (it moves with real time). */
async function snapshot() {
  const { control } = mock;
  return {
    accounts: await control.accounts(),
    payins: (await control.payins()).map((p) => [p.id, p.status]),
    payouts: (await control.payouts()).map((p) => [p.id, p.status]),
    deliveries: (await control.webhooks()).map((d) => [d.id, d.attempts.length]),
    faults: await control.faults(),
    pixKeys: (await control.pixKeys()).length,
  };
}

beforeAll(async () => {
  mock = await createMockServer({
    autoAdvance: false,
    fetch: async () => new Response(null, { status: 204 }),
  });
  const h = { send: (path: string, init?: RequestInit) => fetch(mock.url + path, init) } as Harness;
  const api = apiOf(h, mock.account);
  const payin = await api.post("/payin", pixPayin({ webhookUrl: "https://merchant.example/webhooks" }));
  const paid = await api.post("/payin", pixPayin({ webhookUrl: "https://merchant.example/webhooks" }));
  const payout = await api.post("/payout", payoutBody({ referenceId: ref("bodiless") }));
  await mock.control.payPayin(paid.body.id, { awaitWebhooks: true });
  const [delivery] = await mock.control.webhooks();
  await mock.control.addFault({ path: "/payout", status: 503, times: 5 });
  resources = {
    account: mock.account.accountId,
    payin: payin.body.id,
    payout: payout.body.id,
    delivery: delivery!.id,
  };
});
afterAll(() => mock?.close());

describe("control routes that take no body", () => {
  it("are the table's routes without a body: calls that act (pay, reset…) among them", () => {
    const names = BODILESS.map(([method, path]) => `${method} ${path}`);
    expect(names).toContain("POST /_mock/payins/{payin}/pay");
    expect(names).toContain("POST /_mock/reset");
    expect(names).toContain("DELETE /_mock/faults");
    expect(BODILESS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(BODILESS)(
    "%s %s refuses any body but {} with INVALID_DATA, before acting",
    async (method, template) => {
      const before = await snapshot();
      for (const body of BODIES) {
        const res = await send(method, fill(template), body);
        expect(res.status, `${method} ${template} with ${body}`).toBe(400);
        expect(res.json).toMatchObject({ code: "INVALID_DATA", details: [{ path: "" }] });
      }
      expect(await snapshot()).toEqual(before);
    },
  );

  it("still takes no body, an empty one or {} (the dashboard sends {})", async () => {
    for (const body of ["", "  ", "{}"]) {
      const res = await send("GET", fill("/_mock/accounts/{account}"), body);
      expect(res.status, JSON.stringify(body)).toBe(200);
    }
    const paid = await send("POST", fill("/_mock/payins/{payin}/pay"), "{}");
    expect(paid).toMatchObject({ status: 200, json: { status: "APPROVED" } });
  });
});
