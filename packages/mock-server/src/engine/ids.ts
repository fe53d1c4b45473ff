const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const POOL_SIZE = 4096;

let pool = new Uint8Array(0);
let poolAt = 0;

/** Cryptographically random bytes, drawn from a refilled pool so that ids cost one call per 4 KiB. */
function randomBytes(count: number): Uint8Array {
  if (poolAt + count > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(Math.max(POOL_SIZE, count)));
    poolAt = 0;
  }
  const bytes = pool.subarray(poolAt, poolAt + count);
  poolAt += count;
  return bytes;
}

/** A random string over `alphabet` (its length must divide 256 for no bias, or be close: 62 → rejection). */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  let out = "";
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    const bytes = randomBytes(length - out.length + 8);
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      const byte = bytes[i]!;
      if (byte < limit) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** An unguessable token for customer-facing pages and 3DS sessions (190 bits). */
export function randomToken(): string {
  return randomString(32);
}

/**
 * Time-ordered ids (DESIGN.md section 2, Ids): a ULID-like 26-character Crockford base32 string whose
 * first 10 characters are the mock-clock time, monotonic within one millisecond.
 */
export class UlidFactory {
  #lastTime = -1;
  #lastRandom: number[] = [];

  next(timeMs: number): string {
    let random: number[];
    if (timeMs === this.#lastTime) {
      random = this.#lastRandom.slice();
      for (let i = random.length - 1; i >= 0; i--) {
        if (random[i]! < 31) {
          random[i]! += 1;
          break;
        }
        random[i] = 0;
      }
    } else {
      const bytes = randomBytes(16);
      random = Array.from(bytes, (b) => b & 31);
      // Keep headroom so increments within one millisecond never wrap.
      random[0] = random[0]! & 15;
    }
    this.#lastTime = timeMs;
    this.#lastRandom = random;
    let time = "";
    let t = Math.max(0, Math.floor(timeMs));
    for (let i = 0; i < 10; i++) {
      time = CROCKFORD[t % 32] + time;
      t = Math.floor(t / 32);
    }
    let suffix = "";
    for (const r of random) suffix += CROCKFORD[r];
    return time + suffix;
  }
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/**
 * A PIX end-to-end id: `E` + the sending institution's 8-digit ISPB + `yyyyMMddHHmm` (UTC) + 11
 * alphanumerics, 32 characters (DESIGN.md section 2, Ids).
 */
export function endToEndId(ispb: string, atMs: number): string {
  const d = new Date(atMs);
  const stamp =
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1, 2) +
    pad(d.getUTCDate(), 2) +
    pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2);
  return `E${ispb}${stamp}${randomString(11)}`;
}

/** Compares two strings in time that depends only on their lengths (for keys and admin tokens). */
export function constantTimeEqual(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i++) {
    diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  }
  return diff === 0;
}
