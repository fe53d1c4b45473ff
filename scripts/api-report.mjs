#!/usr/bin/env node
// The public API of every entry point of a published package, as API Extractor reports it from the built
// declaration files: `packages/<pkg>/etc/<entry>.api.md`, committed (docs/decisions/api-reports.md).
// Checks that the committed reports are the API the build has (the default), or rewrites them (--update).
// Usage:
//   node scripts/api-report.mjs [--update] [package dir…]   from the repository root (default: every published package)
//   node ../../scripts/api-report.mjs [--update]             from a package's directory (that package)
// The packages must be built first (`pnpm build`): the reports are read from dist/, what users compile against.
// `pnpm api:update` builds and runs it with --update for every package.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The directories under packages/ of the published packages, in dependency order. */
export const PUBLISHED = ["contract", "webhooks", "node", "mock-server", "browser", "react"];

/** The report's file name for an `exports` key: "." is `index`, "./checkout/redis" is `checkout-redis`. */
export function reportName(exportKey) {
  return exportKey === "." ? "index" : exportKey.replace(/^\.\//, "").replaceAll("/", "-");
}

/**
 * The entry points of a package that have types: `[{ key, name, types }]`, `types` the ESM declaration
 * file under dist/ (the CJS one has the same declarations). Files without types (the browser IIFEs, CSS)
 * and `./package.json` have no API report.
 */
export function entryPoints(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const entries = [];
  for (const [key, target] of Object.entries(manifest.exports ?? {})) {
    const types = typeof target === "object" ? target.import?.types : undefined;
    if (types) entries.push({ key, name: reportName(key), types: resolve(packageDir, types) });
  }
  return { name: manifest.name, entries };
}

/** The folder of a package's committed reports. */
export const reportFolder = (packageDir) => join(packageDir, "etc");

// The declaration files are compiled as a merchant's project compiles them: Node's module resolution
// with `exports`, without the workspace's `@paykit/source` condition (so other @paykit packages are
// their dist/ too), strict, and with the libraries the packages' own types name.
const COMPILER_OPTIONS = {
  target: "es2022",
  module: "nodenext",
  moduleResolution: "nodenext",
  lib: ["es2023", "esnext.disposable", "dom", "dom.iterable"],
  strict: true,
  skipLibCheck: true,
  types: ["node"],
  jsx: "react-jsx",
};

// What API Extractor says besides the report. The report is the point; these are noise for a package
// whose exports are documented by typedoc (`pnpm run docs`): release tags (we publish one API, no
// @beta/@internal), TSDoc syntax (typedoc's rules apply), and types reachable but not exported (the
// report still prints the declarations that use them).
const MESSAGES = {
  compilerMessageReporting: { default: { logLevel: "warning" } },
  extractorMessageReporting: {
    default: { logLevel: "warning" },
    "ae-missing-release-tag": { logLevel: "none", addToApiReportFile: false },
    "ae-forgotten-export": { logLevel: "none", addToApiReportFile: false },
    "ae-unresolved-link": { logLevel: "none", addToApiReportFile: false },
    "ae-internal-missing-underscore": { logLevel: "none", addToApiReportFile: false },
    "ae-undocumented": { logLevel: "none", addToApiReportFile: false },
    // tsup puts the imports above an entry's `@packageDocumentation` comment; typedoc reads it there
    "ae-misplaced-package-tag": { logLevel: "none", addToApiReportFile: false },
  },
  tsdocMessageReporting: { default: { logLevel: "none", addToApiReportFile: false } },
};

function prepare(packageDir, entry, tempFolder) {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: packageDir,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: { compilerOptions: COMPILER_OPTIONS, files: [entry.types] },
        skipLibCheck: true,
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.name,
        reportFolder: tempFolder,
        reportTempFolder: join(tempFolder, "temp"),
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: "lf",
      messages: MESSAGES,
    },
    configObjectFullPath: join(packageDir, "api-extractor.json"),
    packageJsonFullPath: join(packageDir, "package.json"),
  });
}

/**
 * Writes the report of every entry point of the package in `packageDir` into a temporary folder and
 * answers `{ name, reports: [{ entry, file, text }], problems }`, `file` the committed report's path.
 * One TypeScript program serves all the package's entry points.
 */
export function generateReports(packageDir) {
  const { name, entries } = entryPoints(packageDir);
  const problems = [];
  const missing = entries.filter((entry) => !existsSync(entry.types));
  if (missing.length > 0) {
    const list = missing.map((entry) => relative(root, entry.types)).join(", ");
    return { name, reports: [], problems: [`${name}: ${list} missing: build first (pnpm build)`] };
  }
  const tempFolder = mkdtempSync(join(tmpdir(), "paykit-api-report-"));
  try {
    const configs = entries.map((entry) => prepare(packageDir, entry, tempFolder));
    let compilerState;
    const reports = entries.map((entry, index) => {
      const config = configs[index];
      compilerState ??= CompilerState.create(config, {
        additionalEntryPoints: entries.map((other) => other.types),
      });
      const result = Extractor.invoke(config, {
        localBuild: true,
        compilerState,
        messageCallback(message) {
          message.handled = true;
          // `console-…` messages are API Extractor telling what it did with the report file (here a
          // temporary one): the comparison below is what counts.
          if (message.messageId.startsWith("console-")) return;
          if (message.logLevel === "error" || message.logLevel === "warning") {
            problems.push(`${name} (${entry.key}): ${message.formatMessageWithLocation(packageDir)}`);
          }
        },
      });
      if (!result.succeeded) problems.push(`${name} (${entry.key}): API Extractor failed`);
      const text = readFileSync(join(tempFolder, `${entry.name}.api.md`), "utf8");
      return { entry, file: join(reportFolder(packageDir), `${entry.name}.api.md`), text };
    });
    return { name, reports, problems };
  } finally {
    rmSync(tempFolder, { recursive: true, force: true });
  }
}

/** The committed reports of a package that no entry point has any more (a removed entry point). */
function staleReports(packageDir, reports) {
  const folder = reportFolder(packageDir);
  if (!existsSync(folder)) return [];
  const current = new Set(reports.map((report) => basename(report.file)));
  return readdirSync(folder)
    .filter((file) => file.endsWith(".api.md") && !current.has(file))
    .map((file) => join(folder, file));
}

/** A short line diff of two reports, for the failure message: the lines only one of them has. */
function lineDiff(before, after) {
  const count = (text) => {
    const map = new Map();
    for (const line of text.split("\n")) map.set(line, (map.get(line) ?? 0) + 1);
    return map;
  };
  const [a, b] = [count(before), count(after)];
  const out = [];
  for (const [line, n] of a) if (n > (b.get(line) ?? 0)) out.push(`  - ${line.trim()}`);
  for (const [line, n] of b) if (n > (a.get(line) ?? 0)) out.push(`  + ${line.trim()}`);
  return out.slice(0, 20).join("\n") + (out.length > 20 ? `\n  … ${out.length - 20} more lines` : "");
}

/**
 * Checks (or, with `update`, rewrites) the committed reports of the packages in `packageDirs`. Answers
 * the list of problems, each naming the report and what to do; empty when every report is the API.
 */
export function checkReports(packageDirs, { update = false } = {}) {
  const problems = [];
  for (const packageDir of packageDirs) {
    const { name, reports, problems: found } = generateReports(packageDir);
    problems.push(...found);
    for (const { file, text } of reports) {
      const committed = existsSync(file) ? readFileSync(file, "utf8") : null;
      if (committed === text) continue;
      if (update) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
        console.log(`${relative(root, file)}: ${committed === null ? "written" : "updated"}`);
      } else if (committed === null) {
        problems.push(`${name}: ${relative(root, file)} is missing (a new entry point?)`);
      } else {
        problems.push(`${name}: the API differs from ${relative(root, file)}:\n${lineDiff(committed, text)}`);
      }
    }
    for (const file of staleReports(packageDir, reports)) {
      if (update) {
        rmSync(file);
        console.log(`${relative(root, file)}: removed (its entry point is gone)`);
      } else {
        problems.push(`${name}: ${relative(root, file)} reports an entry point the package no longer has`);
      }
    }
  }
  return problems;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const update = args.includes("--update");
  const named = args.filter((arg) => !arg.startsWith("--"));
  const cwd = process.cwd();
  const inPackage = dirname(cwd) === join(root, "packages") && existsSync(join(cwd, "package.json"));
  const packageDirs =
    named.length > 0
      ? named.map((dir) => resolve(dir))
      : inPackage
        ? [cwd]
        : PUBLISHED.map((dir) => join(root, "packages", dir));
  const problems = checkReports(packageDirs, { update });
  if (problems.length > 0) {
    console.error(problems.join("\n\n"));
    if (!update) {
      console.error(
        "\nThe API reports (packages/*/etc/*.api.md) must be the packages' public API. If the change is meant," +
          " run `pnpm api:update` (it builds, then rewrites the reports), commit them, and add a changeset of" +
          " the right kind: a minor for additions, a major for a removal or a changed signature" +
          " (docs/decisions/api-reports.md).",
      );
    }
    process.exit(1);
  }
  if (!update) console.log(`API reports match: ${packageDirs.map((dir) => relative(root, dir)).join(", ")}`);
}
