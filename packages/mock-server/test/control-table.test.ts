// The control API is one table (src/control/table.ts) and everything else is derived from it: these
// tests hold the derivations to the table, so adding a call is one entry and one row of
// control-routes.ts (the shared sandbox's access table), and nothing can be added beside the table.
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { controlPath } from "../src/control/http-client.js";
import type { MockControl } from "../src/control/mock-control.js";
import { controlOpenApiDocument } from "../src/control/openapi.js";
import { CONTROL_CALLS } from "../src/control/table.js";
import type { AccountKeys } from "../src/domain/accounts.js";
import type { PayinView } from "../src/domain/lists.js";
import { createMockServer, type MockServer } from "../src/index.js";
import { ROUTES } from "./control-routes.js";

const calls = Object.entries(CONTROL_CALLS);
// `/_mock/payins/{payin}/pay?x=1` → `POST /_mock/payins/:id/pay`
const routeKey = (method: string, path: string) =>
  `${method} ${path.split("?")[0]!.replace(/\{[a-z]+\}/g, ":id")}`;

describe("the control table", () => {
  it("has one entry per method and path, and every entry has a row in the access table", () => {
    const keys = calls.map(([, call]) => `${call.method} /_mock${call.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const rows = new Set(ROUTES.map(([method, path]) => routeKey(method, path)));
    expect(keys.filter((key) => !rows.has(key))).toEqual([]);
    expect([...rows].filter((row) => !keys.includes(row))).toEqual([]);
  });

  it("gives every call an id path exactly when it acts on one resource", () => {
    for (const [name, call] of calls) {
      const needsId = ["account", "payin", "payout", "delivery"].includes(call.scope);
      expect(call.path.includes(":id"), name).toBe(needsId);
    }
  });

  it("derives the MockControl type: each method's arguments and result come from its entry", () => {
    expectTypeOf<MockControl["createAccount"]>().returns.resolves.toEqualTypeOf<AccountKeys>();
    expectTypeOf<MockControl["payins"]>().returns.resolves.toEqualTypeOf<PayinView[]>();
    expectTypeOf<MockControl["reset"]>().returns.resolves.toEqualTypeOf<void>();
    expectTypeOf<MockControl["payPayin"]>().parameter(0).toEqualTypeOf<string>();
    expectTypeOf<MockControl["failPayout"]>().parameter(1).toEqualTypeOf<"FAILED" | "REFUSED" | undefined>();
  });

  it("maps a method's arguments to the path and query the route reads", () => {
    expect(
      controlPath(CONTROL_CALLS.payPayin, CONTROL_CALLS.payPayin.request("pi_1/2", { awaitWebhooks: true })),
    ).toBe("/_mock/payins/pi_1%2F2/pay?awaitWebhooks=true");
    expect(controlPath(CONTROL_CALLS.payins, CONTROL_CALLS.payins.request(undefined, { limit: 5 }))).toBe(
      "/_mock/payins?limit=5",
    );
    expect(controlPath(CONTROL_CALLS.reset, CONTROL_CALLS.reset.request())).toBe("/_mock/reset");
  });
});

describe("the control API's OpenAPI document", () => {
  const document = controlOpenApiDocument() as {
    paths: Record<
      string,
      Record<string, { operationId: string; requestBody?: { content: Record<string, { schema: object }> } }>
    >;
  };

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("has one operation per entry of the table, named after its method", () => {
    const operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      calls.map(([name, call]) => `${name} ${call.method} /_mock${call.path.replace(":id", "{id}")}`).sort(),
    );
  });

  it("accepts every body of the access table with its request schema (Ajv 2020-12)", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [method, path, , body] of ROUTES) {
      if (body === undefined) continue;
      const docPath = path.split("?")[0]!.replace(/\{[a-z]+\}/g, "{id}");
      const schema =
        document.paths[docPath]?.[method.toLowerCase()]?.requestBody?.content["application/json"]?.schema;
      expect(schema, `${method} ${path}`).toBeDefined();
      const filled = JSON.parse(JSON.stringify(body).replaceAll("{account}", "acct_1"));
      expect(ajv.validate(schema as object, filled), `${method} ${path}: ${ajv.errorsText()}`).toBe(true);
    }
  });
});

describe("GET /_mock/openapi.json", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await createMockServer({ autoAdvance: false, adminToken: "t0ken-for-the-test" });
  });
  afterAll(() => mock.close());

  it("serves the document without the admin token, like the service's /openapi.json", async () => {
    const res = await fetch(`${mock.url}/_mock/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(controlOpenApiDocument());
  });
});
