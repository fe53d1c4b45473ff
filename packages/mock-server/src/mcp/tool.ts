// What an MCP tool of `paykit-mock mcp` is: a name, a description, the JSON Schema of its arguments
// (generated from a zod schema of the contract or the control table, never written by hand) and what
// it does on the sandbox. A refusal is a ToolError (tool-error.ts).
import { validate } from "@paykit/contract";
import * as z from "zod/mini";
import type { Sandbox } from "./sandbox.js";
import { ToolError } from "./tool-error.js";

/** A JSON object (a JSON Schema, a tool's arguments). */
export type JsonObject = Record<string, unknown>;

/** One tool an agent may call. */
export interface McpTool {
  readonly name: string;
  /** What the tool does, in payment terms, for the agent choosing it. */
  readonly description: string;
  /** The JSON Schema (2020-12) of the arguments: an object at the root, as MCP requires. */
  readonly inputSchema: JsonObject;
  /** Runs the tool; its answer is shown to the agent as JSON once secrets are withheld. */
  run(args: JsonObject, sandbox: Sandbox): Promise<unknown>;
}

/** A zod schema as the JSON Schema (2020-12) of what a caller sends. */
export function jsonSchemaOf(schema: z.ZodMiniType): JsonObject {
  return z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as JsonObject;
}

/**
 * A tool's input schema from a zod schema: MCP wants `type: "object"` at the root, which a union of
 * objects (a payin request, one shape per method) states only in its branches.
 */
export function toolInputSchema(schema: z.ZodMiniType): JsonObject {
  const json = jsonSchemaOf(schema);
  return json.type === "object" ? json : { ...json, type: "object" };
}

/** Checks a tool's arguments against a schema here, with the service's messages: INVALID_DATA otherwise. */
export function checked<S extends z.ZodMiniType>(schema: S, args: JsonObject): z.output<S> {
  const result = validate(schema, args);
  if (!result.success) throw new ToolError(result.code, result.message, { details: result.details });
  return result.data as z.output<S>;
}
