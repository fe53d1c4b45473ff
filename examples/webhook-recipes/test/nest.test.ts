import { describe } from "vitest";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const { name, start } = recipe("NestJS (rawBody: true)");
describe(name, () => smokeTest(start, { inProcess: true }));
