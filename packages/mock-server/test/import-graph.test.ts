// The mock's modules never depend on each other in a circle (issue 15: the payins and state modules
// did, through expiry), and its rooms keep their direction: the domain imports no other room. Imports are read with the TypeScript compiler's own scanner,
// type-only imports and re-exports included: a cycle of types is still a cycle of design.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return path.endsWith(".ts") && !path.endsWith(".test.ts") ? [path] : [];
  });
}

/** Each source file's relative imports, resolved to source files. */
function importGraph(): Map<string, string[]> {
  const files = sources(src);
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      const deps = importedFiles
        .map((f) => f.fileName)
        .filter((name) => name.startsWith("."))
        .map((name) => resolve(dirname(file), name.replace(/\.js$/, ".ts")))
        .filter((path) => known.has(path));
      return [file, deps];
    }),
  );
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    if (path.includes(file)) {
      found.push([...path.slice(path.indexOf(file)), file].map((f) => relative(src, f)));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const dep of graph.get(file) ?? []) visit(dep);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

describe("the mock's import graph", () => {
  it("reads the imports of every module (the scanner is not fooled into an empty graph)", () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get(join(src, "http", "engine.ts"))).toContain(join(src, "domain", "control.ts"));
  });

  it("has no cycle, type-only imports included", () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it("would report a cycle such as the turn and the payins modules would form", () => {
    const graph = importGraph();
    const turn = join(src, "domain", "turn.ts");
    const payins = join(src, "domain", "payins.ts");
    graph.set(turn, [...(graph.get(turn) ?? []), payins]);
    expect(cycles(graph).map((c) => c.join(" -> "))).toContain(
      "domain/payins.ts -> domain/turn.ts -> domain/payins.ts",
    );
  });
});

/** The room of a source file: its first folder under src/ (a file directly in src/ is an entry). */
function roomOf(file: string): string {
  const parts = relative(src, file).split(/[\\/]/);
  return parts.length === 1 ? "entry" : (parts[0] as string);
}

// Which rooms each room may import. `internal` holds general data structures (heap, lane, delivery
// slots, JSON text) that know nothing of payments, and imports nothing else; every room may use it.
// The domain (accounts, payins, payouts, outbox, clock, schedule) is the state machine and knows nothing
// of HTTP, transports, pages or storage engines (it names the repository it is run on: domain/repository.ts);
// `stores` implement that repository (memory, PGlite, PostgreSQL); `work` is an engine's background work
// (due work, webhook attempts, listeners' polls) over a store; `control` is the control API as one table over the
// domain's operations, from which the HTTP routes and both `MockControl`s are derived; `scenarios` are the
// `trigger` command's scenarios as data, played through the control table and the merchant API; `mcp` is
// the MCP server for coding agents over the same; `listen` is the `listen` command's loop (long polls
// through the control table, posts to the local receiver), refusing what `trigger` refuses; HTTP routing may
// render pages; transports adapt the HTTP engine to node:http and msw; the entries (src/*.ts) and the
// doctor tool sit on top.
const ALLOWED: Record<string, string[]> = {
  internal: ["internal"],
  domain: ["domain", "internal"],
  control: ["control", "domain", "internal"],
  scenarios: ["scenarios", "control", "domain", "internal"],
  mcp: ["mcp", "scenarios", "control", "domain", "doctor", "internal"],
  listen: ["listen", "scenarios", "control", "domain", "internal"],
  stores: ["stores", "domain", "internal"],
  work: ["work", "domain", "internal"],
  pages: ["pages", "internal"],
  http: ["http", "control", "domain", "pages", "work", "stores", "internal"],
  transports: [
    "transports",
    "http",
    "control",
    "scenarios",
    "mcp",
    "listen",
    "domain",
    "stores",
    "work",
    "doctor",
    "internal",
  ],
  doctor: ["doctor", "domain", "internal"],
  entry: [
    "entry",
    "transports",
    "http",
    "control",
    "scenarios",
    "mcp",
    "listen",
    "domain",
    "stores",
    "work",
    "pages",
    "doctor",
    "internal",
  ],
};

describe("the mock's rooms", () => {
  it("has only the rooms the layout names", () => {
    const rooms = new Set([...importGraph().keys()].map(roomOf));
    for (const room of rooms) expect(Object.keys(ALLOWED)).toContain(room);
    expect([...rooms].sort()).toEqual(
      expect.arrayContaining(["control", "domain", "http", "pages", "stores", "transports"]),
    );
  });

  it("imports only along the allowed directions (the domain imports no other room)", () => {
    const wrong: string[] = [];
    for (const [file, deps] of importGraph()) {
      for (const dep of deps) {
        if (!ALLOWED[roomOf(file)]?.includes(roomOf(dep)))
          wrong.push(`${relative(src, file)} -> ${relative(src, dep)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("would report internal/ importing the domain (internal knows nothing of payments)", () => {
    const graph = importGraph();
    const heap = join(src, "internal", "heap.ts");
    graph.set(heap, [...(graph.get(heap) ?? []), join(src, "domain", "turn.ts")]);
    const wrong = [...graph].flatMap(([file, deps]) =>
      deps
        .filter((dep) => !ALLOWED[roomOf(file)]?.includes(roomOf(dep)))
        .map((dep) => `${relative(src, file)} -> ${relative(src, dep)}`),
    );
    expect(wrong).toEqual(["internal/heap.ts -> domain/turn.ts"]);
  });
});
