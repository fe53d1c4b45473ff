import { describe, expect, it } from "vitest";
import { isStorableText, unstorableTextPaths } from "./storable-text.js";

describe("isStorableText: what a text field may hold", () => {
  it.each([
    ["", true],
    ["order-1", true],
    ["São Paulo, e\u0301", true],
    ["emoji 😀 and 👩‍👩‍👧", true],
    ["astral 𝄞 at the end 😀", true],
    ['quotes " and \\ backslash', true],
    ["other controls \u0001\u001f\u007f are text", true],
    ["\ufffd replacement character", true],
    ["NUL \u0000 inside", false],
    ["\u0000", false],
    ["lone high \ud83d", false],
    ["\ud83d lone high first", false],
    ["lone low \ude00", false],
    ["reversed pair \ude00\ud83d", false],
    ["two highs \ud83d\ud83d\ude00", false],
  ])("%j → %s", (value, storable) => {
    expect(isStorableText(value)).toBe(storable);
  });
});

describe("unstorableTextPaths: every bad string and key inside opaque JSON", () => {
  it.each<[unknown, { path: PropertyKey[]; key: boolean }[]]>([
    [{ a: "ok", b: [1, "😀", null, { c: "fine" }] }, []],
    ["\u0000", [{ path: [], key: false }]],
    [
      [{ note: "a\ud800" }, { ok: "x", list: ["y", "\udc00"] }],
      [
        { path: [0, "note"], key: false },
        { path: [1, "list", 1], key: false },
      ],
    ],
    [
      { "k\u0000": "v", fine: "\ud83d" },
      [
        { path: [], key: true },
        { path: ["fine"], key: false },
      ],
    ],
  ])("%j", (value, found) => {
    expect(unstorableTextPaths(value)).toEqual(found);
  });

  it("walks deep nesting without overflowing the stack", () => {
    let value: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(unstorableTextPaths(value)).toHaveLength(1);
  });
});
