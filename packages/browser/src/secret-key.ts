import { PaykitThreeDSError } from "./errors.js";

/**
 * Throws when a secret key was handed to the browser package, at any depth of the options (a
 * `secretKey` field or an `sk_…` string: `{ acquirer: { auth: { secretKey } } }`, `{ keys: ["sk_live_…"] }`):
 * it must never reach a customer's browser.
 */
export function refuseSecretKey(options: object): void {
  // JSON.stringify walks every nested field for almost no bytes of the <script> build. A DOM node (the
  // challenge's `container`) is not walked; options it cannot serialise (a cycle) are not checked.
  let text = "";
  try {
    text = JSON.stringify(options, (_, value) => (value?.nodeType ? 0 : value));
  } catch {}
  if (/"(secretKey|sk_)/.test(text)) {
    throw new PaykitThreeDSError(
      "SECRET_KEY_IN_BROWSER",
      "A secret key reached the browser: remove it and roll it.",
    );
  }
}
