// A sandbox a team shares (issue 15, "Isolation for teams"): every CI run makes its own account through
// the open `POST /_mock/accounts` and drives it with its own keys; the calls about every account need the
// admin token; one account's keys never read or change another's resources.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlContext } from "../src/domain/control.js";
import { allRoutes } from "../src/http/routes.js";
import { createEngine, createHttpControl, MockControlError } from "../src/index.js";
import { ROUTES } from "./control-routes.js";
import {
  apiOf,
  basic,
  type Harness,
  payoutBody,
  pixPayin,
  ref,
  startHarness,
  TRANSPORTS,
  type TransportName,
} from "./fixtures.js";

const ADMIN = "team-admin-token-1";
const admin = { authorization: `Bearer ${ADMIN}` };

type Keys = { accountId: string; publicKey: string; secretKey: string };

// `cluster`: two mock servers on one PostgreSQL store, the calls sent to the second.
describe.each([...TRANSPORTS, "cluster" as const])(
  "a shared sandbox (sharedSandbox: true, the CLI's --shared), over %s",
  (transport: TransportName) => {
    let h: Harness;
    /** The control API over HTTP as a CI run reaches it (through the harness, whatever the transport). */
    const controlOver = (options: { adminToken?: string; credentials?: Keys } = {}) =>
      createHttpControl({
        url: h.base,
        ...options,
        fetch: async (input, init) => {
          const res = await h.send(String(input).slice(h.base.length), init);
          if (res === "dropped") throw new TypeError("dropped");
          return res;
        },
      });
    let a: Keys;
    let b: Keys;
    let resources: Record<string, string>;
    /** A's state as the admin sees it, before any refused call. */
    let before: unknown;
    const snapshotOfA = async () => {
      const control = controlOver({ adminToken: ADMIN });
      const clock = await call("GET", "/_mock/accounts/{account}/clock", admin);
      const sandbox = await call("GET", "/_mock/clock", admin);
      return {
        account: await control.getAccount(a.accountId),
        payins: await control.payins(a.accountId),
        payouts: await control.payouts(a.accountId),
        deliveries: (await control.webhooks(a.accountId)).map((d) => ({
          id: d.id,
          attempts: d.attempts.length,
        })),
        faults: await control.faults(a.accountId),
        // The account's clock offset, to the minute (both clocks move with real time between the calls,
        // and the refused clock call below would have moved it by an hour).
        offsetMinutes: Math.round((Date.parse(clock.body.now) - Date.parse(sandbox.body.now)) / 60_000) || 0,
      };
    };

    async function call(method: string, template: string, headers: Record<string, string>, body?: unknown) {
      const fill = (text: string) =>
        text.replace(/\{(\w+)\}/g, (_, name: string) => resources[name] as string);
      const res = (await h.send(fill(template), {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : fill(JSON.stringify(body)),
      })) as Response;
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    }

    beforeAll(async () => {
      h = await startHarness(transport, {
        autoAdvance: false,
        adminToken: ADMIN,
        sharedSandbox: true,
        fetch: async () => new Response(null, { status: 204 }),
      });
      const open = controlOver();
      a = await open.createAccount({ balance: 500_000, payoutApproval: "manual" });
      b = await open.createAccount({ balance: 500_000 });
      const api = apiOf(h, a);
      const payin = await api.post("/payin", pixPayin({ webhookUrl: "https://merchant-a.example/webhooks" }));
      expect(payin.status).toBe(201);
      const payout = await api.post("/payout", payoutBody({ referenceId: ref("team-a") }));
      expect(payout.status).toBe(201);
      const own = controlOver({ credentials: a });
      await own.payPayin(payin.body.id);
      const [delivery] = await own.webhooks(a.accountId);
      resources = {
        account: a.accountId,
        payin: payin.body.id,
        payout: payout.body.id,
        delivery: delivery!.id,
      };
      before = await snapshotOfA();
    });
    afterAll(async () => {
      await h?.close();
    });

    it("lists every control route of the router (a new route must say whom it concerns)", () => {
      // the routes only: listing them runs no call, so the context's work is never reached
      const context: ControlContext = {
        work: {
          flush: () => Promise.reject(new Error("not called")),
          attempted: () => Promise.reject(new Error("not called")),
          listen: () => Promise.reject(new Error("not called")),
          listenerOf: () => Promise.reject(new Error("not called")),
        },
        startPixKeys: () => [],
      };
      const control = allRoutes(context).filter((r) => r.kind === "control");
      expect(control.length).toBeGreaterThan(0);
      const listed = new Set(ROUTES.map(([method, path]) => `${method} ${path.split("?")[0]}`));
      const routed = control.map((r) => `${r.method} ${r.path.replace(/:id/, "{id}")}`);
      expect(routed.every((r) => r.includes("{id}") || listed.has(r))).toBe(true);
      for (const r of control) {
        expect(r.access, `${r.method} ${r.path}`).toBeTypeOf("function");
        if (r.path.includes(":id")) {
          const pattern = new RegExp(`^${r.path.replace(":id", "\\{\\w+\\}")}$`);
          expect(ROUTES.some(([m, p]) => m === r.method && pattern.test(p.split("?")[0]!))).toBe(true);
        }
      }
    });

    it.each(ROUTES.filter(([, , scope]) => scope !== "open"))(
      "%s %s (%s) answers 401 with no credentials, and names the Bearer scheme",
      async (method, path, _scope, body) => {
        const res = await call(method, path, {}, body);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe("UNAUTHORIZED");
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="Paykit mock control"');
      },
    );

    it.each(ROUTES.filter(([, , scope]) => scope !== "open" && scope !== "caller"))(
      "%s %s (%s): another account's keys get 404 for A's resources and 403 for everyone's",
      async (method, path, scope, body) => {
        const res = await call(method, path, { authorization: basic(b) }, body);
        expect(res.status).toBe(scope === "global" ? 403 : 404);
        expect(res.body.code).toBe(scope === "global" ? "FORBIDDEN" : "NOT_FOUND");
      },
    );

    it("the account list is the admin's (403 to account keys, as docs/testing.md says); GET /_mock/account answers the keys their own", async () => {
      const listed = await call("GET", "/_mock/accounts", { authorization: basic(b) });
      expect([listed.status, listed.body.code]).toEqual([403, "FORBIDDEN"]);
      const mine = await call("GET", "/_mock/account", { authorization: basic(b) });
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({ accountId: b.accountId, publicKey: b.publicKey });
      expect(mine.body).not.toHaveProperty("secretKey");
      // the admin token names no account of its own
      expect((await call("GET", "/_mock/account", admin)).status).toBe(404);
      const all = await call("GET", "/_mock/accounts", admin);
      expect(all.body.data.map((x: { accountId: string }) => x.accountId)).toEqual(
        expect.arrayContaining([a.accountId, b.accountId]),
      );
    });

    it("nothing of A changed through the refused calls", async () => {
      expect(await snapshotOfA()).toEqual(before);
    });

    it("an unknown resource answers 404 to account keys, as another account's does", async () => {
      const res = await call("POST", "/_mock/payins/pi_01JNOSUCHPAYIN0000000000000/pay", {
        authorization: basic(b),
      });
      expect(res.status).toBe(404);
      const wrongKeys = { ...b, secretKey: "sk_test_wrongwrongwrong" };
      expect(
        (await call("GET", "/_mock/accounts/{account}", { authorization: basic(wrongKeys) })).status,
      ).toBe(401);
      expect((await call("GET", "/_mock/clock", { authorization: "Bearer not-the-token" })).status).toBe(401);
    });

    it("the merchant API never shows one account's payins or payouts to another's keys", async () => {
      const fresh = await controlOver().createAccount({ balance: 100_000 });
      const api = apiOf(h, fresh);
      const other = apiOf(h, b);
      const payin = await api.post("/payin", pixPayin());
      const payout = await api.post("/payout", payoutBody({ referenceId: "shared-ref-1" }));
      expect([payin.status, payout.status]).toEqual([201, 201]);
      expect((await other.get(`/payin/${payin.body.id}`)).status).toBe(404);
      expect((await other.get("/payout?referenceId=shared-ref-1")).body.data).toEqual([]);
      // Each account's referenceIds are its own: b may use the same one.
      expect((await other.post("/payout", payoutBody({ referenceId: "shared-ref-1" }))).status).toBe(201);
    });

    it("createHttpControl with an account's keys: MockControlError 403 for the sandbox clock", async () => {
      const own = controlOver({ credentials: b });
      expect((await own.accountClock(b.accountId)).now).toMatch(/Z$/);
      const error = await own.clock().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MockControlError);
      expect(error).toMatchObject({ status: 403, code: "FORBIDDEN" });
    });
    it.each(ROUTES)(
      "%s %s (%s) is authorized for A's own keys where it concerns A",
      async (method, path, scope, body) => {
        const res = await call(method, path, { authorization: basic(a) }, body);
        if (scope === "global") expect(res.status).toBe(403);
        else expect([401, 403, 404]).not.toContain(res.status);
        expect(res.status).toBeLessThan(500);
      },
    );

    it.each(ROUTES)("%s %s (%s) is authorized for the admin token", async (method, path, _scope, body) => {
      const res = await call(method, path, admin, body);
      // The rows run in order: A's own reset (a row above) already removed its payin, payout and delivery.
      expect([401, 403]).not.toContain(res.status);
      expect(res.status).toBeLessThan(500);
    });
  },
);

describe("sharedSandbox without an admin token", () => {
  it("is refused at creation: nobody could make the calls about every account", () => {
    expect(() => createEngine({ sharedSandbox: true })).toThrow(/adminToken/);
  });
});
