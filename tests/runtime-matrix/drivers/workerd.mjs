// Runs the bundled worker module (argv[2]) in workerd through miniflare, with the scenario's config as
// a binding, and prints the worker's answer. Run by a Node >= 22 from the registry (miniflare needs it).
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";

const [script] = process.argv.slice(2);
const mf = new Miniflare({
  modules: true,
  script: readFileSync(script, "utf8"),
  compatibilityDate: "2025-09-01",
  bindings: { CONFIG: process.env.PAYKIT_MATRIX_CONFIG },
});
try {
  const response = await mf.dispatchFetch("http://worker.test/");
  const text = await response.text();
  if (response.status !== 200) throw new Error(`worker answered ${response.status}: ${text}`);
  console.log(`RESULT ${text}`);
} finally {
  await mf.dispose();
}
