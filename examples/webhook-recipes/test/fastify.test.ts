import { describe } from "vitest";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const { name, start } = recipe("Fastify (addContentTypeParser, parseAs buffer)");
describe(name, () => smokeTest(start, { inProcess: true }));
