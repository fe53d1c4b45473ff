// Evaluates the bundled scenario script (argv[2]) in Vercel's edge-runtime sandbox and prints what
// the scenario resolved to. The script leaves its promise on globalThis.__paykitMatrix.
import { readFileSync } from "node:fs";
import { EdgeRuntime } from "edge-runtime";

const [script] = process.argv.slice(2);
const config = process.env.PAYKIT_MATRIX_CONFIG;
const runtime = new EdgeRuntime({
  initialCode: `globalThis.PAYKIT_MATRIX_CONFIG = ${JSON.stringify(config)};\n${readFileSync(script, "utf8")}`,
});
const result = await runtime.evaluate("globalThis.__paykitMatrix");
console.log(`RESULT ${JSON.stringify(result)}`);
