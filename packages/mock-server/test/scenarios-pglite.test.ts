// The scenario suite (scenarios.suite.ts) over the mock over node:http with its state in PGlite (--data-dir).
import { scenarioSuite } from "./scenarios.suite.js";

scenarioSuite("pglite");
