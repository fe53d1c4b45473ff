import { describe, expect, it } from "vitest";
import { classifyNetworkError } from "../../src/core/network-error.js";
import { fetchFailed } from "../support/fake-fetch.js";

describe("classifyNetworkError: did the request certainly never reach the service?", () => {
  it.each([
    ["ECONNREFUSED", fetchFailed("ECONNREFUSED"), { code: "CONNECTION_REFUSED", sent: "no" }],
    ["ENOTFOUND", fetchFailed("ENOTFOUND"), { code: "DNS_FAILURE", sent: "no" }],
    ["EAI_AGAIN", fetchFailed("EAI_AGAIN"), { code: "DNS_FAILURE", sent: "no" }],
    [
      "UND_ERR_CONNECT_TIMEOUT",
      fetchFailed("UND_ERR_CONNECT_TIMEOUT"),
      { code: "CONNECTION_REFUSED", sent: "no" },
    ],
    [
      "an AggregateError of refusals (IPv4 and IPv6)",
      new TypeError("fetch failed", {
        cause: Object.assign(
          new AggregateError([fetchFailed("ECONNREFUSED").cause, fetchFailed("ECONNREFUSED").cause]),
          {
            code: "ECONNREFUSED",
          },
        ),
      }),
      { code: "CONNECTION_REFUSED", sent: "no" },
    ],
    ["ECONNRESET", fetchFailed("ECONNRESET"), { code: "CONNECTION_RESET", sent: "maybe" }],
    [
      "UND_ERR_SOCKET (other side closed)",
      fetchFailed("UND_ERR_SOCKET"),
      { code: "CONNECTION_RESET", sent: "maybe" },
    ],
    [
      "a refusal mixed with a reset",
      new TypeError("fetch failed", {
        cause: new AggregateError([fetchFailed("ECONNREFUSED").cause, fetchFailed("ECONNRESET").cause]),
      }),
      { code: "CONNECTION_RESET", sent: "maybe" },
    ],
    [
      "a bare TypeError (browsers, Deno)",
      new TypeError("Failed to fetch"),
      { code: "NETWORK_ERROR", sent: "maybe" },
    ],
    ["a non-error", "boom", { code: "NETWORK_ERROR", sent: "maybe" }],
  ])("%s", (_label, error, expected) => {
    expect(classifyNetworkError(error)).toEqual(expected);
  });
});
