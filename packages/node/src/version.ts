/**
 * This SDK's version, sent in the user agent. Kept equal to package.json by a unit test; `pnpm release`
 * writes it after `changeset version` (scripts/release.mjs). Typed `string` so that the API report and
 * the declaration files do not change with every release.
 */
export const VERSION: string = "0.1.0";
