/** The release record of the CDN files: the version and each file's SRI hash. */
export interface CdnRecord {
  version: string;
  files: Record<string, string>;
}
export const PAGES: string[];
export const SCRIPTS: Array<{ file: string; what: string; exportName: string }>;
export function integrity(bytes: Uint8Array | string): string;
export function readRecord(root?: string): CdnRecord | null;
export function renderBlock(record: CdnRecord | null): string;
export function replaceBlock(text: string, block: string, page: string): string;
export function pageBlocks(root?: string): Array<{ page: string; block: string | null }>;
export function writeRecord(root?: string): CdnRecord;
export function checkPages(root?: string): string[];
