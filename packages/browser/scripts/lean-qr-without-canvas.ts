import { readFile } from "node:fs/promises";

// lean-qr/nano's bitmap carries two drawing methods, `toCanvas` and the `toImageData` behind it (minified to
// `u`). The checkout draws the QR code as SVG from `get` and `size` and never hands the bitmap out, so they are
// dead code in every build; being methods of an object literal, no minifier can drop them. Cut here, their
// bytes go back to the checkout entry's budget (docs/decisions/checkout-budget.md).
const CANVAS_METHODS = /,u\(o,\{on:[\s\S]*?,toCanvas\(t,o\)\{[^}]*putImageData\(e,0,0\)\}/g;

// The same for what the screen's one call, `generate(text, { minCorrectionLevel })` from src/checkout/qr.ts with a
// string, and its reads `get(x, y)` with x and y from 0, never use: the `minVersion` option (always 1), the error
// for a missing text, and the test for a negative column (docs/decisions/checkout-budget-renew.md). Each
// `[text, replacement]` must be found exactly once.
const UNUSED_CHECKS: Array<[string, string]> = [
  ["m=(t=n(1),{minCorrectionLevel:r=0,minVersion:l=1}={})=>{", "m=(t,{minCorrectionLevel:r=0}={})=>{"],
  ["for(let e=l;e<41;++e)", "for(let e=1;e<41;++e)"],
  ["get:(o,e)=>o>=0&&o<t&&", "get:(o,e)=>o<t&&"],
];

/** What `esbuildPlugins` of tsup takes (esbuild's Plugin, without importing esbuild's types here). */
interface LoadPlugin {
  name: string;
  setup(build: {
    onLoad(
      options: { filter: RegExp },
      callback: (args: { path: string }) => Promise<{ contents: string; loader: "js" }>,
    ): void;
  }): void;
}

/**
 * Removes the canvas drawing, and the option and checks the screen's calls never need, of lean-qr/nano from the
 * checkout builds. The text is lean-qr 2.7.4's (pinned in package.json): another build fails here, loudly, rather
 * than shipping the dead code or a broken encoder.
 */
export const leanQrWithoutCanvas: LoadPlugin = {
  name: "paykit-lean-qr-without-canvas",
  setup(build) {
    build.onLoad({ filter: /[\\/]lean-qr[\\/]nano\.mjs$/ }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      let contents = source.replace(CANVAS_METHODS, "");
      const cuts = source.match(CANVAS_METHODS)?.length ?? 0;
      const found = UNUSED_CHECKS.every(([text]) => source.split(text).length === 2);
      for (const [text, replacement] of UNUSED_CHECKS) contents = contents.replace(text, replacement);
      if (cuts !== 1 || !found || /ImageData|getContext|this\.u\(|minVersion/.test(contents)) {
        throw new Error(
          `${path} is not the lean-qr 2.7.4 build that scripts/lean-qr-without-canvas.ts knows: update the pattern there.`,
        );
      }
      return { contents, loader: "js" };
    });
  },
};
