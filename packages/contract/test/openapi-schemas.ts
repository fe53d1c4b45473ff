// Compiles the document's component schemas with Ajv in JSON Schema 2020-12 mode, strict.
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
  return {
    ajv,
    names: Object.keys(schemas),
    compile: (schema: Json): ValidateFunction => ajv.compile(absolute(schema) as Json),
    component: (name: string): ValidateFunction => ajv.getSchema(BASE + name) as ValidateFunction,
  };
}
