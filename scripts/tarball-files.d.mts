/** The paths of a tarball (as `pnpm pack --json` lists them) that are not published files. */
export function unpublishable(paths: string[]): string[];
