// The workspace's packages packed as they would be published (`pnpm pack`: workspace: ranges become
// versions), for the suites that install them into a project of their own (tests/packaging,
// tests/runtime-matrix). All six at once: each is a short process that mostly reads and compresses
// files, and one after the other, each waiting for its share of two busy cores, the six took about a
// minute of a full `npm test` before those suites could install anything.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runGroup } from "../../scripts/processes.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The directories under packages/ of every published package. */
export const PUBLISHED = ["contract", "webhooks", "node", "mock-server", "browser", "react"] as const;

/** Packs every published package into `destination`; rejects with pnpm's output if one fails. */
export async function packWorkspace(destination: string): Promise<void> {
  await Promise.all(
    PUBLISHED.map(async (dir) => {
      const packed = await runGroup("pnpm", ["pack", "--pack-destination", destination], {
        cwd: join(root, "packages", dir),
        timeoutMs: 240_000,
      });
      if (packed.code !== 0)
        throw new Error(
          `pnpm pack of packages/${dir} ${packed.timedOut ? "did not end in 240 s" : "failed"}:\n${packed.stdout}${packed.stderr}`,
        );
    }),
  );
}
