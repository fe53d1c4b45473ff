import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { createMockServer } from "../src/index.js";

it("serves the service's OpenAPI document at GET /openapi.json, without credentials", async () => {
  await using mock = await createMockServer({ autoAdvance: false });
  const res = await fetch(`${mock.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const committed = JSON.parse(readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8"));
  const served = await res.json();
  // info.version is the contract package's version, which only `pnpm openapi` writes into the file.
  expect({ ...served, info: { ...served.info, version: committed.info.version } }).toEqual(committed);
});
