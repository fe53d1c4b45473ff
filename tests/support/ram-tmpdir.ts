// The tests' temporary files in RAM. They write and remove a lot: PGlite and PostgreSQL data directories
// (40 MB and more each, dozens of them), the packed tarballs installed with npm (110 MB a project, three
// projects), Chromium profiles. On a disk that costs CPU twice over, in the tests (ext4's unlink and
// copy) and in the kernel's writeback, on the 2 cores the tests need: the packaging suite took 28 CPU-s
// with its temporary files in tmpfs against 33-41 on the disk, the mock server's PGlite files about 10 %
// less. Nothing a test checks depends on where they are (a kill -9 loses no page-cache data either way).
import { chmodSync, mkdirSync, mkdtempSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { removeOnExit } from "../../scripts/processes.mjs";

const SHM = "/dev/shm";
const TMPFS_MAGIC = 0x01021994;
/** Less room than this (a container's default /dev/shm is 64 MB) keeps the system's temporary directory. */
const MIN_FREE_BYTES = 4 * 1024 ** 3;
/** Set to the run's directory once this process chose it (a config evaluated twice chooses once). */
const CHOSEN = "PAYKIT_TEST_RAM_TMPDIR";

/**
 * Points `TMPDIR` (what `os.tmpdir()` answers, in this process and in every process it starts) at a
 * directory of its own on the machine's tmpfs, when there is one with room and `TMPDIR` is not set
 * already. The directory goes when this process ends, however it ends (scripts/processes.mjs), with
 * whatever a test left in it: RAM is not a disk to fill run after run. Answers the directory, if any.
 */
export function useRamTmpdir(): string | undefined {
  if (process.env[CHOSEN]) return process.env[CHOSEN];
  if (process.env.TMPDIR || process.platform !== "linux") return undefined;
  try {
    const fs = statfsSync(SHM);
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < MIN_FREE_BYTES) return undefined;
    const parent = join(SHM, `paykit-tests-${process.getuid?.() ?? "user"}`);
    mkdirSync(parent, { recursive: true });
    const run = removeOnExit(mkdtempSync(join(parent, "run-")));
    // Others may enter but not write: PostgreSQL runs as the `postgres` user (it refuses root) in a
    // directory made for it in here (scripts/services.mjs).
    chmodSync(parent, 0o755);
    chmodSync(run, 0o755);
    process.env.TMPDIR = run;
    process.env[CHOSEN] = run;
    return run;
  } catch {
    return undefined;
  }
}
