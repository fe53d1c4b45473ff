import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };
import {
  ERROR_CODES,
  PAYIN_STATUSES,
  PAYMENT_METHODS,
  PAYOUT_STATUSES,
  PIX_KEY_TYPES,
} from "../src/index.js";
import { buildOpenApiDocument } from "../src/openapi.js";
import { schemaValidator } from "./openapi-schemas.js";

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

type Json = Record<string, unknown>;
type Operation = { requestBody?: { content: Json }; responses: Record<string, Json & { content?: Json }> };

/** Every operation of the document, webhooks included, with a readable name. */
function operations(doc: Json): Array<[string, Operation]> {
  const out: Array<[string, Operation]> = [];
  for (const group of ["paths", "webhooks"] as const)
    for (const [path, item] of Object.entries(doc[group] as Record<string, Record<string, Operation>>))
      for (const [method, op] of Object.entries(item)) out.push([`${method.toUpperCase()} ${path}`, op]);
  return out;
}

function walk(node: unknown, visit: (obj: Json, path: string) => void, path = "#"): void {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) walk(item, visit, `${path}/${i}`);
  } else if (node !== null && typeof node === "object") {
    visit(node as Json, path);
    for (const [key, value] of Object.entries(node)) walk(value, visit, `${path}/${key}`);
  }
}

describe("the OpenAPI document's schemas", () => {
  const { names, component, compile } = schemaValidator(committed);

  it("compile with Ajv in 2020-12 strict mode, every component", () => {
    for (const name of names) expect(component(name), name).toBeTypeOf("function");
    expect(names.length).toBeGreaterThanOrEqual(17);
  });

  it("carry no fragment $id, no empty additionalProperties, no Unicode property classes", () => {
    walk(committed.components.schemas, (obj, path) => {
      expect(obj.$id, path).toBeUndefined();
      if (typeof obj.additionalProperties === "object")
        expect(Object.keys(obj.additionalProperties as Json).length, path).toBeGreaterThan(0);
      if (typeof obj.pattern === "string") {
        expect(obj.pattern, path).not.toMatch(/\\[pP]\{/);
        expect(() => new RegExp(obj.pattern as string), path).not.toThrow();
      }
      if (typeof obj.$ref === "string") expect(obj.$ref, path).toMatch(/^#\/components\/schemas\/\w+$/);
    });
  });

  it("name every x-paykit-rule in the document's list of rules", () => {
    const rules = new Set<string>();
    walk(committed, (obj) => {
      if (typeof obj["x-paykit-rule"] === "string") rules.add(obj["x-paykit-rule"] as string);
    });
    expect(rules.size).toBeGreaterThan(5);
    for (const rule of rules) expect(Object.keys(committed["x-paykit-rules"])).toContain(rule);
  });

  it("every request and response has an example valid against its schema", () => {
    let checked = 0;
    for (const [name, op] of operations(committed)) {
      const bodies = [
        ...(op.requestBody ? [["request", op.requestBody.content]] : []),
        ...Object.entries(op.responses)
          .filter(([, r]) => r.content)
          .map(([status, r]) => [status, r.content]),
      ] as Array<[string, Record<string, { schema: Json; example?: unknown }>]>;
      for (const [which, content] of bodies) {
        const media = content["application/json"];
        expect(media, `${name} ${which}`).toBeDefined();
        expect(media?.example, `${name} ${which} has an example`).toBeDefined();
        const validate = compile(media?.schema as Json);
        expect(validate(media?.example), `${name} ${which}: ${JSON.stringify(validate.errors)}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it("declares 401, 429 and 500 on every operation, with WWW-Authenticate and Retry-After", () => {
    for (const [name, op] of operations(committed).filter(([n]) => !n.includes("StatusChanged"))) {
      expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(["401", "403", "429", "500"]));
      expect(op.responses["401"]?.headers, name).toHaveProperty("WWW-Authenticate");
      expect(op.responses["429"]?.headers, name).toHaveProperty("Retry-After");
    }
  });

  it("states the enums the SDK knows", () => {
    const s = committed.components.schemas;
    expect(s.Payin.properties.status.enum).toEqual([...PAYIN_STATUSES]);
    expect(s.Payout.properties.status.enum).toEqual([...PAYOUT_STATUSES]);
    expect(s.Payin.properties.paymentMethod.enum).toEqual([...PAYMENT_METHODS]);
    expect(s.Payout.properties.pixKeyType.enum).toEqual([...PIX_KEY_TYPES]);
    const codes = new Set<string>();
    walk(committed.paths, (obj) => {
      const code = (obj.properties as Json | undefined)?.code as { enum?: string[] } | undefined;
      for (const c of code?.enum ?? []) codes.add(c);
    });
    // METHOD_NOT_ALLOWED answers a method no operation has, so no operation declares it; the error
    // body's vocabulary holds every code, it included.
    expect([...codes].sort()).toEqual(ERROR_CODES.filter((c) => c !== "METHOD_NOT_ALLOWED").sort());
    expect(s.ErrorBody.properties.code.enum).toEqual([...ERROR_CODES]);
    expect(s.ErrorBody.properties.code.enum).toContain("METHOD_NOT_ALLOWED");
  });
});

const lintTimeout = 120_000;
const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const docPath = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
const offline = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  NO_COLOR: "1",
};

describe("third-party linters", () => {
  it(
    "Spectral (spectral:oas) reports 0 errors and 0 warnings",
    () => {
      const out = execFileSync(
        bin("spectral"),
        [
          "lint",
          "--ruleset",
          fileURLToPath(new URL("../.spectral.yaml", import.meta.url)),
          "-f",
          "json",
          "--quiet",
          docPath,
        ],
        { encoding: "utf8", env: offline },
      );
      const problems = JSON.parse(out || "[]") as Array<{ severity: number; message: string }>;
      console.log(
        `spectral: ${problems.filter((p) => p.severity === 0).length} errors, ${problems.filter((p) => p.severity === 1).length} warnings`,
      );
      expect(problems).toEqual([]);
    },
    lintTimeout,
  );

  it(
    "Redocly (recommended) reports 0 errors and 0 warnings",
    () => {
      const out = execFileSync(
        bin("redocly"),
        ["lint", "--extends", "recommended", "--format", "json", docPath],
        {
          encoding: "utf8",
          env: offline,
        },
      );
      const { totals } = JSON.parse(out.slice(out.indexOf("{"))) as {
        totals: { errors: number; warnings: number };
      };
      console.log(`redocly: ${totals.errors} errors, ${totals.warnings} warnings`);
      expect(totals).toMatchObject({ errors: 0, warnings: 0 });
    },
    lintTimeout,
  );
});
