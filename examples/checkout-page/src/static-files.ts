// The page's files: its own (public/) and the built ES modules of the Paykit packages it imports
// (@paykit/browser's checkout screen and 3DS flow, @paykit/contract's shopper messages), all served from
// this origin so the page runs under a Content-Security-Policy without 'unsafe-inline'.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PUBLIC_DIR = fileURLToPath(new URL("../public/", import.meta.url));
const PAGE_FILES: Record<string, string> = {
  "/favicon.svg": "favicon.svg",
  "/": "index.html",
  "/checkout.css": "checkout.css",
  "/checkout.js": "checkout.js",
  "/payouts.js": "payouts.js",
};
const TYPES: Record<string, string> = {
  svg: "image/svg+xml",
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
};

/** The `exports` entry of each package whose ES module build the page imports. */
const VENDOR_ENTRY: Record<string, [pkg: string, entry: string]> = {
  browser: ["@paykit/browser", "./checkout"],
  contract: ["@paykit/contract", "./messages"],
};
// Entry files and the chunks they import by relative path (`./checkout-ABC123.js`); nothing else.
const VENDOR_PATH = /^\/vendor\/@paykit\/(browser|contract)\/([\w-]+\.(?:js|css))$/;

async function file(path: string, type: string, headers: Record<string, string> = {}): Promise<Response> {
  try {
    return new Response(await readFile(path), {
      headers: { "content-type": type, "cache-control": "no-store", ...headers },
    });
  } catch {
    return missing(path);
  }
}

/**
 * The folder of a package's ES module build: where its `exports` entry's `import` file lives. Read from
 * its package.json rather than resolved, which would give src/ under the workspace's `@paykit/source`
 * condition (the tests run with it).
 */
async function buildDir(pkg: string, entry: string): Promise<string> {
  const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  const target = JSON.parse(await readFile(manifest, "utf8")).exports[entry];
  return join(dirname(manifest), dirname(typeof target === "string" ? target : target.import.default));
}

function missing(what: string): Response {
  return Response.json(
    { code: "NOT_FOUND", message: `${what} is missing (run \`pnpm build\` for the packages' builds)` },
    { status: 404 },
  );
}

/**
 * The page's Content-Security-Policy: scripts, styles and requests from this origin only, no inline
 * script or style; `threeDSOrigins` (the card issuer's 3DS script and challenge frame) are the only
 * others allowed to run a script or show a frame.
 */
export function contentSecurityPolicy(threeDSOrigins: readonly string[]): string {
  const others = threeDSOrigins.map((url) => new URL(url).origin);
  return [
    "default-src 'self'",
    `script-src 'self' ${others.join(" ")}`.trim(),
    `frame-src ${others.length > 0 ? others.join(" ") : "'none'"}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * Answers a GET for one of the page's files or a file of a package build under
 * `/vendor/@paykit/<browser|contract>/`; `undefined` when the path is neither. HTML goes out with `csp`.
 */
export function staticFile(pathname: string, csp: string): Promise<Response> | undefined {
  const own = PAGE_FILES[pathname];
  if (own) {
    const type = TYPES[own.split(".").pop()!]!;
    return file(
      PUBLIC_DIR + own,
      type,
      type.startsWith("text/html") ? { "content-security-policy": csp } : {},
    );
  }
  const vendor = VENDOR_PATH.exec(pathname);
  if (!vendor) return undefined;
  const [, folder, name] = vendor as unknown as [string, string, string];
  const [pkg, entry] = VENDOR_ENTRY[folder]!;
  return buildDir(pkg, entry).then((dir) => file(join(dir, name), TYPES[name.split(".").pop()!]!));
}
