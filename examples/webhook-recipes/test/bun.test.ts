// Hono on Bun: the real Bun (the `bun` npm package's binary) runs src/bun.ts as a merchant would,
// its store from PAYKIT_REDIS_URL.
import { describe } from "vitest";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const { name, start } = recipe("Hono on Bun");
describe(name, () => smokeTest(start));
