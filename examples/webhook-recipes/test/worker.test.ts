// Hono on Cloudflare Workers: src/worker.ts bundled and run in workerd through Miniflare, listening
// on loopback so the mock delivers to it over HTTP, with the keys, the secret and the Redis REST
// endpoint as bindings.
import { describe } from "vitest";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const { name, start } = recipe("Hono on Workers (Miniflare, workerd)");
describe(name, () => smokeTest(start));
