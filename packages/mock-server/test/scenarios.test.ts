// The scenario suite (scenarios.suite.ts) over the three transports: the engine (no port), node:http, msw.
import { TRANSPORTS } from "./fixtures.js";
import { scenarioSuite } from "./scenarios.suite.js";

for (const transport of TRANSPORTS) scenarioSuite(transport);
