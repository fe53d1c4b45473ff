import { describe, expect, it } from "vitest";
import { isPaykitThreeDSError, PaykitThreeDSError } from "./errors.js";

describe("PaykitThreeDSError", () => {
  it("carries name, code, message and cause", () => {
    const cause = new Event("error");
    const error = new PaykitThreeDSError("SCRIPT_LOAD_FAILED", "3DS script failed to load", { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "PaykitThreeDSError", code: "SCRIPT_LOAD_FAILED", cause });
    expect(String(error)).toBe("PaykitThreeDSError: 3DS script failed to load");
  });

  it.each([
    ["a PaykitThreeDSError", new PaykitThreeDSError("ABORTED", "aborted"), true],
    [
      "one from another bundle or frame (same name and a code)",
      { name: "PaykitThreeDSError", code: "NOT_PENDING" },
      true,
    ],
    ["a plain Error", new Error("boom"), false],
    [
      "an error named alike without a code",
      Object.assign(new Error("x"), { name: "PaykitThreeDSError" }),
      false,
    ],
    ["null", null, false],
    ["a string", "PaykitThreeDSError", false],
  ])("isPaykitThreeDSError(%s) is %s", (_, value, expected) => {
    expect(isPaykitThreeDSError(value)).toBe(expected);
  });
});
