// The scenario suite (scenarios.suite.ts) over two mock servers on one PostgreSQL store, the tests talking to the second.
import { scenarioSuite } from "./scenarios.suite.js";

scenarioSuite("cluster");
