// Compiles the document's component schemas with Ajv in JSON Schema 2020-12 mode, strict. Shared by
// the contract's document test and tests/openapi's property test against the mock.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;
const BASE = "https://paykit.invalid/openapi/";

/** Rewrites `#/components/schemas/X` to an absolute id so each component compiles on its own. */
function absolute(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absolute);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string"
        ? value.replace("#/components/schemas/", BASE)
        : absolute(value),
    ]),
  );
}

/** An Ajv 2020 instance holding every component schema of `doc`, and a compiler for any schema in it. */
export function schemaValidator(doc: Json) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addKeyword("x-paykit-rule");
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  for (const [name, schema] of Object.entries(schemas)) ajv.addSchema(absolute(schema) as Json, BASE + name);
  // the property test compiles each response schema once, however many answers it checks
  const compiled = new Map<Json, ValidateFunction>();
  return {
    ajv,
    names: Object.keys(schemas),
    compile: (schema: Json): ValidateFunction => {
      const cached = compiled.get(schema);
      if (cached) return cached;
      const validate = ajv.compile(absolute(schema) as Json);
      compiled.set(schema, validate);
      return validate;
    },
    component: (name: string): ValidateFunction => ajv.getSchema(BASE + name) as ValidateFunction,
  };
}
