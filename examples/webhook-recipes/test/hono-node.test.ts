import { describe } from "vitest";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const { name, start } = recipe("Hono on Node (@hono/node-server)");
describe(name, () => smokeTest(start, { inProcess: true }));
