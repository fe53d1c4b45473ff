// A retention period as the CLI (`--retention 30d`) and the engine's `retention` option take it.

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A retention as ms: a number of ms, or `"30d"`, `"12h"`, `"90m"`, `"45s"`; `0`, `"0"` and `"off"`
 * are 0 (keep every account). Throws a RangeError naming the accepted forms otherwise.
 */
export function retentionMs(value: number | string | undefined): number {
  if (value === undefined || value === "off" || value === "0" || value === 0) return 0;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value > 0) return value;
  } else {
    const match = /^(\d+)([smhd])$/.exec(value.trim());
    if (match) {
      const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
      if (Number.isSafeInteger(ms) && ms > 0) return ms;
    }
  }
  throw new RangeError(
    `retention must be a duration such as 30d, 12h, 90m or 45s (or ms, or 0/off to keep every account), got ${String(value)}`,
  );
}
