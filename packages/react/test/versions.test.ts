// The suite runs twice: here with React 19, and from tests/react18 with React 18. Each project names the major
// version it means to test, so an alias that silently fell back to the other React fails here.
import { version as react } from "react";
import { version as reactDom } from "react-dom";
import { version as reactDomServer } from "react-dom/server";
import { describe, expect, it } from "vitest";

describe("the React under test", () => {
  it("is the major version this project tests, for react, react-dom and react-dom/server alike", () => {
    const major = process.env.PAYKIT_REACT_MAJOR;
    expect(major).toMatch(/^(18|19)$/);
    expect([react, reactDom, reactDomServer].map((v) => v.split(".")[0])).toEqual([major, major, major]);
  });
});
