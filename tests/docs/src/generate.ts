// Turns each block into a module under .gen/ that tsc checks and vitest imports. A block with
// `context=NAME` gets two prelude lines that destructure the context's names (minus the names the
// block declares itself); every file gets two prelude lines, so a diagnostic's line maps back to
// the page by a fixed offset.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { CONTEXT_NAMES, type ContextName } from "./contexts.js";
import type { DocBlock } from "./extract.js";

/** Prelude lines before the block's first line in every generated file. */
export const PRELUDE_LINES = 2;

/** A block with its generated module. */
export interface GeneratedBlock {
  block: DocBlock;
  /** Absolute path of the generated module (ts blocks only). */
  file?: string;
}

/** Names a block declares at its top level (imports, const/let/var, functions, classes). */
export function declaredNames(code: string): Set<string> {
  const source = ts.createSourceFile("block.tsx", code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  const names = new Set<string>();
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
      names.add(statement.name.text);
    } else if (ts.isImportDeclaration(statement) && statement.importClause) {
      const clause = statement.importClause;
      if (clause.name) names.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.add(e.name.text);
    }
  }
  return names;
}

function slug(page: string): string {
  return page.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-");
}

/** Writes every ts-like block as a module under `genDir` (emptied first). */
export function generate(blocks: DocBlock[], genDir: string, srcDir: string): GeneratedBlock[] {
  rmSync(genDir, { recursive: true, force: true });
  mkdirSync(genDir, { recursive: true });
  // Vite's transform reads the nearest tsconfig.json (legacy decorators for the NestJS recipe; tsx
  // blocks with React's automatic runtime, as typecheck.ts checks them)
  const tsconfig = {
    compilerOptions: { experimentalDecorators: true, useDefineForClassFields: false, jsx: "react-jsx" },
    include: ["**/*"],
  };
  writeFileSync(join(genDir, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return blocks.map((block) => {
    if (block.lang === "html") return { block };
    const dir = join(genDir, slug(block.page));
    mkdirSync(dir, { recursive: true });
    const ext = block.lang === "tsx" ? "tsx" : "ts";
    const file = join(dir, block.attrs.file ?? `line-${block.line}.${ext}`);
    const prelude = ["", ""];
    const context = block.attrs.context;
    if (context !== undefined) {
      if (!(context in CONTEXT_NAMES)) {
        throw new Error(
          `${block.page}:${block.line}: unknown context "${context}" (known: ${Object.keys(CONTEXT_NAMES).join(", ")})`,
        );
      }
      const own = declaredNames(block.code);
      const names = CONTEXT_NAMES[context as ContextName].filter((name) => !own.has(name));
      const from = relative(dir, join(srcDir, "contexts.js")).replaceAll("\\", "/");
      prelude[0] = `import { contexts as __docsContexts } from "${from.startsWith(".") ? from : `./${from}`}";`;
      prelude[1] = `const { ${names.join(", ")} } = await __docsContexts[${JSON.stringify(context)}]();`;
    }
    writeFileSync(file, `${prelude.join("\n")}\n${block.code}export {};\n`);
    return { block, file };
  });
}
