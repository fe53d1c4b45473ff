// Prints the byte figures of the built package (run `pnpm build` first), as a bundler keeps them with React
// external (the page has React anyway): this package's own code alone, and with what it pulls from
// @paykit/browser, for a page that imports everything, only <PaykitPayment>, only usePaymentStatus, or only
// useThreeDS.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
const { build } = createRequire(require.resolve("tsup"))("esbuild");
const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;

async function size(names, external) {
  const result = await build({
    stdin: { contents: `export { ${names} } from "./index.js";`, resolveDir: dist, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    minify: true,
    write: false,
    external,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].contents;
  return `${code.length} B minified, ${gzip(code)} B minified+gzip`;
}

const react = ["react", "react-dom", "react/jsx-runtime"];
const all = "PaykitPayment, usePaymentStatus, useThreeDS";
console.log(
  `@paykit/react alone (@paykit/browser external too): ${await size(all, [...react, "@paykit/browser*"])}`,
);
for (const names of [all, "PaykitPayment", "usePaymentStatus", "useThreeDS"]) {
  console.log(`importing ${names}, with @paykit/browser bundled: ${await size(names, react)}`);
}
