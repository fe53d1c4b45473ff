// The registry of the release test has no uplink: the fresh project must still install zod, msw, the MCP
// SDK and everything under them. They are published into it first, from the copies this workspace
// installed (pnpm's node_modules, the versions the lockfile pins and every other suite tests), so the
// test never reaches the public registry (docs/decisions/release-registry-test.md). A package is packed
// again from its installed files: the same files, another tarball (its integrity is the local one).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** One installed package: its directory and manifest. */
interface Installed {
  dir: string;
  manifest: {
    name: string;
    version: string;
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
}

/** Where Node finds `name` from a package in `dir`: its own node_modules, then each parent's. */
function locate(name: string, dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name, "package.json");
    if (existsSync(candidate)) return realpathSync(dirname(candidate));
    if (dirname(at) === at) return null;
  }
}

const read = (dir: string): Installed => ({
  dir,
  manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")),
});

/**
 * Every package npm installs for `wanted` (`[name, the directory it resolves from]`), found the way Node
 * resolves them in this workspace: dependencies, the optional ones that are installed, and the peers that
 * are not optional (npm installs those). `@paykit/*` packages are not followed: the release publishes them.
 */
export function closure(wanted: Array<[string, string]>): Installed[] {
  const found = new Map<string, Installed>();
  const queue = [...wanted];
  while (queue.length > 0) {
    const [name, from] = queue.shift() as [string, string];
    const dir = locate(name, from);
    if (dir === null) throw new Error(`${name} is not installed near ${from}`);
    const installed = read(dir);
    const key = `${installed.manifest.name}@${installed.manifest.version}`;
    if (found.has(key)) continue;
    if (!name.startsWith("@paykit/")) found.set(key, installed);
    const { dependencies = {}, optionalDependencies = {}, peerDependencies = {} } = installed.manifest;
    const meta = installed.manifest.peerDependenciesMeta ?? {};
    for (const dep of Object.keys(dependencies)) queue.push([dep, dir]);
    for (const dep of Object.keys(optionalDependencies)) if (locate(dep, dir)) queue.push([dep, dir]);
    for (const dep of Object.keys(peerDependencies)) if (!meta[dep]?.optional) queue.push([dep, dir]);
  }
  return [...found.values()];
}

const numeric = (version: string) => version.split(/[.+-]/).map((part) => Number(part) || 0);
function byVersion(a: Installed, b: Installed): number {
  const [x, y] = [numeric(a.manifest.version), numeric(b.manifest.version)];
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/**
 * Packs each package of {@link closure} from its installed files and publishes it to the registry at `url`
 * with `token` (npm's publish request: the version's manifest and the tarball). Versions of one name go in
 * ascending order, so `latest` is the highest, as on the public registry. Answers how many were published.
 */
export async function seedRegistry(url: string, token: string, packages: Installed[]): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), "paykit-seed-"));
  try {
    const ordered = [...packages].sort(
      (a, b) => a.manifest.name.localeCompare(b.manifest.name) || byVersion(a, b),
    );
    for (const [index, { dir, manifest }] of ordered.entries()) {
      const file = join(work, `${index}.tgz`);
      // `package/` is the tarball's root, as npm packs it; a package's own node_modules (bundled ones) stays
      // out. gzip -1: these tarballs live for one test.
      const packed = spawnSync(
        "tar",
        [
          "-c",
          "--hard-dereference",
          "-I",
          "gzip -1",
          "-f",
          file,
          "-C",
          dir,
          "--exclude=./node_modules",
          "--transform",
          "s,^\\.,package,",
          ".",
        ],
        { encoding: "utf8" },
      );
      if (packed.status !== 0) throw new Error(`tar of ${manifest.name}: ${packed.stderr}`);
      const tarball = readFileSync(file);
      const base = manifest.name.split("/").pop() as string;
      const attachment = `${base}-${manifest.version}.tgz`;
      const body = {
        _id: manifest.name,
        name: manifest.name,
        "dist-tags": { latest: manifest.version },
        versions: {
          [manifest.version]: {
            ...manifest,
            _id: `${manifest.name}@${manifest.version}`,
            dist: {
              shasum: createHash("sha1").update(tarball).digest("hex"),
              integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
              tarball: `${url}/${manifest.name}/-/${attachment}`,
            },
          },
        },
        _attachments: {
          [attachment]: {
            content_type: "application/octet-stream",
            data: tarball.toString("base64"),
            length: tarball.length,
          },
        },
      };
      const answer = await fetch(`${url}/${manifest.name.replace("/", "%2f")}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!answer.ok)
        throw new Error(
          `publishing ${manifest.name}@${manifest.version}: ${answer.status} ${await answer.text()}`,
        );
    }
    return ordered.length;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
