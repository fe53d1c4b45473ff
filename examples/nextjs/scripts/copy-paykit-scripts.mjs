// Copies the two <script> builds of @paykit/browser into public/vendor/, where Next.js serves them as
// static files: /vendor/paykit-checkout.js (the payment screen, <paykit-payment>) and
// /vendor/paykit-browser.js (window.Paykit.handlePendingThreeDS). Run before `next build` and `next dev`
// (package.json), so the files always match the installed package. Resolved through the package's
// exports here, outside the bundler: a route handler's `require.resolve` is rewritten by Next's bundler.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const vendor = new URL("../public/vendor/", import.meta.url);
mkdirSync(vendor, { recursive: true });
copyFileSync(require.resolve("@paykit/browser/checkout/iife"), new URL("paykit-checkout.js", vendor));
copyFileSync(require.resolve("@paykit/browser/iife"), new URL("paykit-browser.js", vendor));
