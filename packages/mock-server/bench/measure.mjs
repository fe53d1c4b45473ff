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

/**
 * A memory-mode engine's µs per POST /payin (a PIX, no webhook URL) when loaded, as a ratio to one that
 * is not: `rounds` rounds in turn, each `requests` requests after a warm-up of 5,000, on engines that
 * `post` a body as their default account. Prints each round and the median (target <= 1.1).
 */
export async function comparePayinTimes({
  empty,
  loaded,
  samplePayin,
  requests,
  rounds,
  without,
  with: withLoad,
}) {
  const body = JSON.stringify(samplePayin("PIX", { referenceId: "bench" }));
  const time = async ({ post }) => {
    for (let i = 0; i < 5_000; i++) await post(body);
    const t = performance.now();
    for (let i = 0; i < requests; i++) await post(body);
    return ((performance.now() - t) * 1000) / requests;
  };
  const ratios = [];
  for (let round = 1; round <= rounds; round++) {
    const none = await time(empty);
    const many = await time(loaded);
    ratios.push(many / none);
    console.log(
      `#${round}: ${none.toFixed(1)} µs per POST /payin ${without}, ${many.toFixed(1)} µs ${withLoad}`,
    );
  }
  console.log(
    `POST /payin time ${withLoad} / ${without}: median ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(", ")}; target <= 1.1)`,
  );
}
