// The scenario suite (scenarios.suite.ts) over two mock servers on one PostgreSQL store, the tests talking to the follower.
import { scenarioSuite } from "./scenarios.suite.js";

scenarioSuite("cluster");
