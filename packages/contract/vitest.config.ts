import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({
  name: "contract",
  // Property tests run thousands of cases: on a loaded 2-core CI machine they took over 30 s, though
  // they need ~1 s alone.
  testTimeout: 60_000,
});
