import { describe } from "vitest";
import { smokeTest } from "./harness.js";
import { recipe } from "./recipes.js";

const { name, start } = recipe("Express (express.raw on the route)");
describe(name, () => smokeTest(start, { inProcess: true }));
