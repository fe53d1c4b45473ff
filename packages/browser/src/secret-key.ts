import { PaykitThreeDSError } from "./errors.js";

/** Throws when a secret key was handed to the browser package: it must never reach a customer's browser. */
export function refuseSecretKey(options: object): void {
  for (const [name, value] of Object.entries(options)) {
    if (name === "secretKey" || (typeof value === "string" && value.startsWith("sk_"))) {
      throw new PaykitThreeDSError(
        "SECRET_KEY_IN_BROWSER",
        "A secret key must never reach the browser: remove it from the page and roll it in the dashboard.",
      );
    }
  }
}
