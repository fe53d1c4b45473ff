import { scriptJson } from "./html.js";

/** The message tag both sides of the challenge check before trusting a message. */
export const THREE_DS_MESSAGE_SOURCE = "paykit-mock-3ds";

/**
 * The codes the challenge page reports when its challenge is not open; the script rejects the challenge
 * with an error carrying one, which `@paykit/browser` turns into its own error code.
 */
export const CLOSED_CODES = ["CHALLENGE_UNAVAILABLE", "CHALLENGE_EXPIRED"] as const;

/**
 * The mock acquirer's 3DS script served at `/_mock/acquirer/three-ds.js` (docs/decisions/three-ds.md): plain
 * ES2018, no build step. It defines `globalThis.AcquirerThreeDS = { init({ session }) }`; the
 * session's `challenge()` opens the mock's challenge page in an iframe (inside `container`, or a modal
 * overlay it creates) and talks to it by `postMessage`, accepting messages only from the mock's origin
 * and that iframe. Card data never leaves the page: only the last four digits reach the iframe.
 * A challenge the page reports closed rejects with an error whose `code` is `CHALLENGE_UNAVAILABLE` or
 * `CHALLENGE_EXPIRED`; `options.signal` aborting removes the challenge and rejects with its reason.
 * Every way out removes the iframe (and the overlay) and its message listener.
 *
 * @param mockOrigin - The mock's origin, the only origin whose messages are trusted.
 * @param base - The mock's base URL (origin plus any path prefix).
 */
export function threeDSScript(mockOrigin: string, base: string): string {
  return `/* Paykit mock acquirer 3DS SDK */
(function () {
  "use strict";
  var MOCK_ORIGIN = ${scriptJson(mockOrigin)};
  var BASE = ${scriptJson(base)};
  var SOURCE = ${scriptJson(THREE_DS_MESSAGE_SOURCE)};
  var CLOSED = ${scriptJson(CLOSED_CODES)};

  function lastFour(card) {
    if (!card || typeof card.number !== "string") return "";
    return card.number.replace(/\\D/g, "").slice(-4);
  }

  function challenge(sessionToken, options) {
    return new Promise(function (resolve, reject) {
      var doc = globalThis.document;
      if (!options || typeof options.transactionId !== "string" || !options.transactionId) {
        reject(new Error("challenge needs a transactionId"));
        return;
      }
      if (!doc || !doc.body) {
        reject(new Error("the 3DS challenge needs a browser document"));
        return;
      }
      var signal = options.signal;
      if (signal && signal.aborted) {
        reject(signal.reason);
        return;
      }
      var overlay = null;
      var host = options.container;
      if (!host) {
        overlay = doc.createElement("div");
        overlay.setAttribute("data-paykit-mock-3ds", "overlay");
        overlay.style.cssText = "position:fixed;top:0;left:0;right:0;bottom:0;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center;z-index:2147483647";
        doc.body.appendChild(overlay);
        host = overlay;
      }
      var iframe = doc.createElement("iframe");
      iframe.title = "3-D Secure";
      iframe.setAttribute("data-paykit-mock-3ds", "challenge");
      iframe.style.cssText = "width:420px;max-width:100%;height:480px;border:0;background:#fff;border-radius:8px";
      iframe.src = BASE + "/_mock/acquirer/challenge?tx=" + encodeURIComponent(options.transactionId) +
        "&origin=" + encodeURIComponent(globalThis.location.origin);
      var details = {
        source: SOURCE,
        type: "session",
        session: sessionToken,
        transactionId: options.transactionId,
        amount: typeof options.amount === "number" ? options.amount : null,
        installments: typeof options.installments === "number" ? options.installments : null,
        last4: lastFour(options.card)
      };

      function cleanup() {
        globalThis.removeEventListener("message", onMessage);
        if (signal) signal.removeEventListener("abort", onAbort);
        if (iframe.parentNode) iframe.parentNode.removeChild(iframe);
        if (overlay && overlay.parentNode) overlay.parentNode.removeChild(overlay);
      }

      function onMessage(event) {
        if (event.origin !== MOCK_ORIGIN || event.source !== iframe.contentWindow) return;
        var data = event.data;
        if (!data || typeof data !== "object" || data.source !== SOURCE) return;
        if (data.type === "ready") {
          iframe.contentWindow.postMessage(details, MOCK_ORIGIN);
        } else if (data.type === "result") {
          cleanup();
          if (data.outcome === "AUTHENTICATED" || data.outcome === "REJECTED" || data.outcome === "CANCELED") {
            resolve({ outcome: data.outcome });
          } else {
            reject(new Error("the challenge answered an unknown outcome"));
          }
        } else if (data.type === "error") {
          cleanup();
          var error = new Error(typeof data.message === "string" ? data.message : "the 3DS challenge failed");
          if (CLOSED.indexOf(data.code) >= 0) error.code = data.code;
          reject(error);
        }
      }

      // The checkout gave up (its timeout, or the page's own signal): the challenge leaves the page.
      function onAbort() {
        cleanup();
        reject(signal.reason);
      }

      globalThis.addEventListener("message", onMessage);
      if (signal) signal.addEventListener("abort", onAbort);
      host.appendChild(iframe);
    });
  }

  globalThis.AcquirerThreeDS = {
    version: "paykit-mock-1",
    init: function (options) {
      if (!options || typeof options.session !== "string" || !options.session) {
        return Promise.reject(new Error("init needs { session }"));
      }
      var token = options.session;
      return Promise.resolve({
        challenge: function (challengeOptions) {
          return challenge(token, challengeOptions);
        }
      });
    }
  };
})();
`;
}
