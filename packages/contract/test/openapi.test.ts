import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };
import { buildOpenApiDocument } from "../src/index.js";

const committed = JSON.parse(readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8"));

describe("the OpenAPI document", () => {
  it("docs/openapi.json is what the schemas generate (run `pnpm openapi` when this fails)", () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(pkg.version))));
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(committed);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every endpoint of the spec", () => {
    expect(Object.keys(committed.paths)).toEqual(["/payin", "/payin/{id}", "/payout"]);
    expect(Object.keys(committed.paths["/payout"]).sort()).toEqual(["get", "post"]);
  });

  it("keeps the decided payout list bounds", () => {
    const limit = committed.paths["/payout"].get.parameters.find((p: { name: string }) => p.name === "limit");
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 10 });
  });

  it("marks request bodies strict and response bodies open to new fields", () => {
    const { schemas } = committed.components;
    expect(schemas.PayoutCreateParams.additionalProperties).toBe(false);
    expect(schemas.Payout.additionalProperties).not.toBe(false);
  });
});
