// What a published package's tarball may carry: the manifest, README, LICENSE, CHANGELOG and llms.txt
// (docs/decisions/llms-txt-in-packages.md); the build
// (code, declarations, their source maps, CSS); the sources the maps point at; the bin. Never tests, type
// tests, fixtures, benches or anything else of the repository. `package:check` (scripts/package-check.mjs)
// and `pnpm release` (scripts/release.mjs) check every tarball with it.

const PUBLISHED_FILES = [
  /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|llms\.txt)$/,
  /^dist\/[\w./-]+\.(js|cjs|d\.ts|d\.cts|js\.map|cjs\.map|css)$/,
  /^src\/[\w./-]+\.tsx?$/,
  /^bin\/[\w.-]+\.js$/,
];
const NEVER =
  /(^|\/)(test|tests|__tests__|fixtures?|bench|benches|test-results)\/|\.(test|spec|bench)(-d)?\.[cm]?[jt]sx?(\.map)?$/;

/** The paths of a tarball (as `pnpm pack --json` lists them) that are not published files. */
export function unpublishable(paths) {
  return paths.filter((path) => NEVER.test(path) || !PUBLISHED_FILES.some((allowed) => allowed.test(path)));
}
