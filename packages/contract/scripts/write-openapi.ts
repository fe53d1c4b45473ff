// `pnpm openapi`: writes docs/openapi.json from the contract's schemas. A test fails when it is stale.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pkg from "../package.json" with { type: "json" };
import { buildOpenApiDocument } from "../src/openapi.js";

const target = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(pkg.version), null, 2)}\n`);
console.log(`wrote ${target}`);
