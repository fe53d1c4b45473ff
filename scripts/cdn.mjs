#!/usr/bin/env node
// The CDN URLs of @paykit/browser's two `<script>` builds, with their Subresource Integrity hashes, as the
// docs show them. `pnpm release` runs `node scripts/cdn.mjs --write` after its build: it hashes the built
// files (the bytes the release publishes), records them in packages/browser/etc/cdn.json and rewrites
// the generated block of every page in PAGES. Without --write it checks that every page's block is the
// one the record gives (tests/release runs that check). docs/decisions/cdn.md says why.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const defaultRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The pages that show the block, relative to the repository root. */
export const PAGES = ["docs/checkout.md", "docs/three-ds.md", "packages/browser/README.md"];

/** The `<script>` builds: the package's file, what it defines, and its `exports` name. */
export const SCRIPTS = [
  {
    file: "dist/paykit-checkout.global.js",
    what: "the payment screen: <paykit-payment> and window.PaykitCheckout",
    exportName: "@paykit/browser/checkout/iife",
  },
  {
    file: "dist/paykit-browser.global.js",
    what: "post-order 3DS: window.Paykit.handlePendingThreeDS",
    exportName: "@paykit/browser/iife",
  },
];

const BEGIN =
  "<!-- cdn:begin: written by `pnpm release` (scripts/cdn.mjs) from the files it published; do not edit -->";
const END = "<!-- cdn:end -->";

/** The SRI value (`sha384-…`) of some bytes. */
export function integrity(bytes) {
  return `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
}

const recordPath = (root) => join(root, "packages/browser/etc/cdn.json");

/** The release record: `{ version, files: { [file]: integrity } }`, or null before the first release. */
export function readRecord(root = defaultRoot) {
  const path = recordPath(root);
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : null;
}

/** The block's markdown for a record (null: not published yet), markers included. */
export function renderBlock(record) {
  if (record === null) {
    return `${BEGIN}\nNot published yet: the first \`pnpm release\` writes here the CDN URLs of the exact version it\npublishes, each with its SRI hash.\n${END}`;
  }
  const tags = SCRIPTS.map(({ file, what }) => {
    const url = `https://cdn.jsdelivr.net/npm/@paykit/browser@${record.version}/${file}`;
    return `<!-- ${what} -->\n<script src="${url}"\n        integrity="${record.files[file]}" crossorigin="anonymous"></script>`;
  });
  return [
    BEGIN,
    `From a CDN, pin the exact version and its Subresource Integrity hash: the browser refuses a file that is`,
    `not the one published as ${record.version}. unpkg serves the same paths (\`https://unpkg.com/@paykit/browser@${record.version}/dist/…\`),`,
    "and both CDNs serve the payment screen at the bare package URL (the `unpkg` and `jsdelivr` fields). Your",
    "Content-Security-Policy then lists the CDN's origin in `script-src`.",
    "",
    "```",
    tags.join("\n"),
    "```",
    END,
  ].join("\n");
}

/** Replaces the block between the markers of `text` (a page) with `block`; throws when it has none. */
export function replaceBlock(text, block, page) {
  const start = text.indexOf("<!-- cdn:begin");
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${page} has no <!-- cdn:begin … --> … ${END} block`);
  return text.slice(0, start) + block + text.slice(end + END.length);
}

/** The block each page has now: `[{ page, block }]`. */
export function pageBlocks(root = defaultRoot) {
  return PAGES.map((page) => {
    const text = readFileSync(join(root, page), "utf8");
    const start = text.indexOf("<!-- cdn:begin");
    const end = text.indexOf(END);
    return { page, block: start < 0 || end < start ? null : text.slice(start, end + END.length) };
  });
}

/**
 * Hashes the built `<script>` files of packages/browser, records them with the package's version and
 * rewrites every page's block. Answers the record.
 */
export function writeRecord(root = defaultRoot) {
  const browser = join(root, "packages/browser");
  const { version } = JSON.parse(readFileSync(join(browser, "package.json"), "utf8"));
  const files = {};
  for (const { file } of SCRIPTS) files[file] = integrity(readFileSync(join(browser, file)));
  const record = { version, files };
  writeFileSync(recordPath(root), `${JSON.stringify(record, null, 2)}\n`);
  const block = renderBlock(record);
  for (const page of PAGES) {
    const path = join(root, page);
    writeFileSync(path, replaceBlock(readFileSync(path, "utf8"), block, page));
  }
  return record;
}

/**
 * The pages whose block is not the one the record gives, and a record whose version is not the
 * package's (a release that did not run this script): answers the problems, empty when all agree.
 */
export function checkPages(root = defaultRoot) {
  const record = readRecord(root);
  const expected = renderBlock(record);
  const problems = [];
  const { version } = JSON.parse(readFileSync(join(root, "packages/browser/package.json"), "utf8"));
  if (record !== null && record.version !== version) {
    problems.push(
      `packages/browser/etc/cdn.json records ${record.version}, the package is ${version}: run node scripts/cdn.mjs --write after building the release`,
    );
  }
  for (const { page, block } of pageBlocks(root)) {
    if (block !== expected) {
      problems.push(
        `${page}: its CDN block is not the one packages/browser/etc/cdn.json gives (node scripts/cdn.mjs --write)`,
      );
    }
  }
  return problems;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  if (process.argv.includes("--write")) {
    const record = writeRecord();
    console.log(`CDN block written for @paykit/browser@${record.version}:`);
    for (const [file, hash] of Object.entries(record.files)) console.log(`  ${file} ${hash}`);
  } else {
    const problems = checkPages();
    if (problems.length > 0) {
      console.error(problems.join("\n"));
      process.exit(1);
    }
    console.log(
      `The CDN blocks agree with ${readRecord() ? "packages/browser/etc/cdn.json" : "no release yet"}`,
    );
  }
}
