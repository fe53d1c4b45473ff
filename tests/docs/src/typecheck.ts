// Type-checks every generated block in ONE tsc program under the repository's strict settings,
// against the BUILT packages (dist types, the way a merchant installs them: no @paykit/source).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** A tsc error, located in its generated file. */
export interface BlockDiagnostic {
  file: string;
  /** 1-based line in the generated file. */
  line: number;
  message: string;
}

/** The repository's compiler options as a merchant's project sees the packages. */
export function compilerOptions(root: string): ts.CompilerOptions {
  const base = JSON.parse(readFileSync(join(root, "tsconfig.base.json"), "utf8")) as {
    compilerOptions: object;
  };
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    {
      ...base.compilerOptions,
      customConditions: [],
      types: ["node"],
      declaration: false,
      jsx: "react-jsx",
      experimentalDecorators: true,
    },
    root,
  );
  if (errors.length > 0) throw new Error(ts.flattenDiagnosticMessageText(errors[0]?.messageText ?? "", "\n"));
  return options;
}

/** Every diagnostic of the program over `files`, by generated file. */
export function typecheck(root: string, files: string[]): Map<string, BlockDiagnostic[]> {
  const program = ts.createProgram({ rootNames: files, options: compilerOptions(root) });
  const byFile = new Map<string, BlockDiagnostic[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file?.fileName ?? "(program)";
    const line =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
        : 0;
    const list = byFile.get(file) ?? [];
    list.push({
      file,
      line,
      message: `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`,
    });
    byFile.set(file, list);
  }
  return byFile;
}
