// The scenario suite (scenarios.suite.ts) over the mock over node:http with its state in PostgreSQL (--store).
import { scenarioSuite } from "./scenarios.suite.js";

scenarioSuite("postgres");
