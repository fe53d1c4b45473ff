import { isPaykitThreeDSError } from "./errors.js";
import { handlePendingThreeDS } from "./three-ds.js";

// Entry of the IIFE build (dist/paykit-browser.global.js) for a plain `<script>` tag. Assigning the global
// here, rather than through esbuild's `globalName`, keeps esbuild's module helpers out of the byte budget.
(globalThis as { Paykit?: object }).Paykit = { handlePendingThreeDS, isPaykitThreeDSError };
