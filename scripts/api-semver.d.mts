/** What a change between two API reports asks for. */
export interface ReportChange {
  bump: "none" | "minor" | "major";
  removed: string[];
  added: string[];
}
/** The API change of a package since its last release. */
export interface RequiredBump {
  name: string;
  released: boolean;
  bump: "none" | "minor" | "major";
  changes: Array<ReportChange & { file: string }>;
}
export const PUBLISHED: string[];
export function atLeast(a: string, b: string): boolean;
export function apiLines(report: string): string[];
export function classify(before: string | null, after: string | null): ReportChange;
export function releasedFolder(packageDir: string): string;
export function requiredBump(packageDir: string): RequiredBump;
export function plannedBumps(
  cwd?: string,
): Promise<{ bumps: Map<string, string>; changesets: Map<string, string[]> }>;
export function checkChangesetKinds(packageDirs: string[], cwd?: string): Promise<string[]>;
