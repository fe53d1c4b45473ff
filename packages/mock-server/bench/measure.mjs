// What the mock's benches share: pinning a process to a core, and the median of repeated rounds.
import { execFileSync } from "node:child_process";

/** Pins a process to one core with taskset; answers whether it could (taskset may be missing). */
export function pin(pid, core) {
  try {
    execFileSync("taskset", ["-p", "-c", String(core), String(pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
