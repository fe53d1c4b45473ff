// Hono on Deno: the real Deno (the `deno` npm package's binary) runs src/deno.ts as a merchant would,
// its packages from node_modules, its store from PAYKIT_REDIS_URL.
import { describe } from "vitest";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const { name, start } = recipe("Hono on Deno");
describe(name, () => smokeTest(start));
