import { testProject } from "../support/vitest.shared.js";

// The property test caps its requests at 45 s, but first generates its bodies from the schemas (seconds
// of CPU alone): inside a full `npm test` on 2 cores, started with every other suite, it ran past 90 s.
export default testProject({ name: "openapi", include: ["*.test.ts"], testTimeout: 240_000 });
