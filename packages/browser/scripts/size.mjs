// Prints the byte figures of the built package (run `pnpm build` first): the IIFE for a <script> tag, and what a
// bundler keeps of the ESM entry for a page that imports only loadScript or only handlePendingThreeDS.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
const { build } = createRequire(require.resolve("tsup"))("esbuild");
const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;

const iife = readFileSync(`${dist}paykit-browser.global.js`);
console.log(
  `dist/paykit-browser.global.js: ${iife.length} B minified, ${gzip(iife)} B minified+gzip (level 9; budget 1900)`,
);

for (const name of ["loadScript", "handlePendingThreeDS"]) {
  const result = await build({
    stdin: { contents: `export { ${name} } from "./index.js";`, resolveDir: dist, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    minify: true,
    write: false,
  });
  const code = result.outputFiles[0].contents;
  console.log(`ESM, importing only ${name}: ${code.length} B minified, ${gzip(code)} B minified+gzip`);
}

// The checkout entry as a bundler keeps it whole (with its QR encoder), and its IIFE.
const checkout = await build({
  stdin: { contents: `export * from "./checkout.js";`, resolveDir: dist, loader: "js" },
  bundle: true,
  format: "esm",
  platform: "browser",
  minify: true,
  write: false,
});
const entry = checkout.outputFiles[0].contents;
console.log(
  `ESM, the whole checkout entry: ${entry.length} B minified, ${gzip(entry)} B minified+gzip (budget 9216)`,
);
const checkoutIife = readFileSync(`${dist}paykit-checkout.global.js`);
console.log(
  `dist/paykit-checkout.global.js: ${checkoutIife.length} B minified, ${gzip(checkoutIife)} B minified+gzip`,
);
