import { describe, expect, it } from "vitest";
import {
  DEFAULT_POLL_SCHEDULE,
  isTransientReadError,
  pollDelay,
  retryAfterOf,
} from "../../src/resources/poll-schedule.js";

describe("the status poll schedule", () => {
  it("grows by half from 2 s and stays at 10 s", () => {
    const delays = Array.from({ length: 8 }, (_, attempt) => pollDelay(attempt, DEFAULT_POLL_SCHEDULE));
    expect(delays).toEqual([2_000, 3_000, 4_500, 6_750, 10_000, 10_000, 10_000, 10_000]);
  });

  it.each([
    ["no answer", { name: "PaykitConnectionError" }, true],
    ["an attempt timed out", { name: "PaykitTimeoutError" }, true],
    ["429", { name: "RateLimitError", status: 429 }, true],
    ["408", { name: "PaykitApiError", status: 408 }, true],
    ["500", { name: "PaykitApiError", status: 500 }, true],
    ["503", { name: "ProviderError", status: 503 }, true],
    ["501: will not change", { name: "PaykitApiError", status: 501 }, false],
    ["404: another account's id", { name: "NotFoundError", status: 404 }, false],
    ["401: the keys", { name: "AuthenticationError", status: 401 }, false],
    ["403", { name: "PermissionError", status: 403 }, false],
    ["a bug", new TypeError("x is undefined"), false],
  ])("a read failing with %s is worth repeating: %s", (_name, error, transient) => {
    expect(isTransientReadError(error)).toBe(transient);
  });

  it.each([
    [{ retryAfterMs: 1_000 }, 1_000],
    [{ retryAfterMs: 0 }, 0],
    [{ retryAfterMs: undefined }, undefined],
    [{ retryAfterMs: -5 }, undefined],
    [null, undefined],
  ])("the delay %j asks for is %s", (error, delay) => {
    expect(retryAfterOf(error)).toBe(delay);
  });
});
