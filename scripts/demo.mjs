#!/usr/bin/env node
// The main job. Until the mock server lands this prints the contract's OpenAPI summary.
import { buildOpenApiDocument } from "@paykit/contract";

const doc = buildOpenApiDocument();
console.log(`${doc.info.title} (OpenAPI ${doc.openapi})`);
for (const [path, ops] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(ops))
    console.log(`  ${method.toUpperCase().padEnd(5)} ${path}  ${op.summary}`);
}
console.log(`  ${Object.keys(doc.components.schemas).length} schemas`);
