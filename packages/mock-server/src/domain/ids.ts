const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const POOL_SIZE = 4096;

let pool = new Uint8Array(0);
let poolAt = 0;

/**
 * Reserves `count` cryptographically random bytes in the pool, refilled one call per 4 KiB; answers
 * where they start in `pool` (no view allocated per id).
 */
function reserveRandom(count: number): number {
  if (poolAt + count > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(Math.max(POOL_SIZE, count)));
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += count;
  return at;
}

/**
 * A random string over `alphabet` (its length must divide 256 for no bias, or be close: 62 → rejection),
 * after `prefix`, built as one flat string (appending char by char would leave a rope of short strings).
 */
export function randomString(length: number, alphabet: string = ALPHANUMERIC, prefix = ""): string {
  const codes: number[] = [];
  for (let i = 0; i < prefix.length; i++) codes.push(prefix.charCodeAt(i));
  const end = prefix.length + length;
  const limit = 256 - (256 % alphabet.length);
  while (codes.length < end) {
    const count = end - codes.length + 8;
    const at = reserveRandom(count);
    for (let i = at; i < at + count && codes.length < end; i++) {
      const byte = pool[i]!;
      if (byte < limit) codes.push(alphabet.charCodeAt(byte % alphabet.length));
    }
  }
  return String.fromCharCode.apply(null, codes);
}

/** An unguessable token for customer-facing pages and 3DS sessions (190 bits). */
export function randomToken(): string {
  return randomString(32);
}

const ULID_TIME_CHARS = 10;
const ULID_RANDOM_CHARS = 16;

/**
 * Time-ordered ids (docs/decisions/ids.md): a ULID-like 26-character Crockford base32 string whose
 * first 10 characters are the mock-clock time, monotonic within one millisecond.
 */
export class UlidFactory {
  #lastTime = -1;
  // The last id's random part as base-32 digits, incremented within one millisecond, and the
  // character codes of the id being built (one flat string per id, no rope of short pieces).
  readonly #random = new Uint8Array(ULID_RANDOM_CHARS);
  readonly #time: number[] = [];
  readonly #codes: number[] = [];

  /** The next id after `prefix` (`pi_`, `po_`…): the prefix and 26 characters. */
  next(timeMs: number, prefix = ""): string {
    const random = this.#random;
    if (timeMs === this.#lastTime) {
      for (let i = ULID_RANDOM_CHARS - 1; i >= 0; i--) {
        random[i] = random[i]! < 31 ? random[i]! + 1 : 0;
        if (random[i] !== 0) break;
      }
    } else {
      let t = Math.max(0, Math.floor(timeMs));
      for (let i = ULID_TIME_CHARS - 1; i >= 0; i--) {
        this.#time[i] = CROCKFORD.charCodeAt(t % 32);
        t = Math.floor(t / 32);
      }
      const at = reserveRandom(ULID_RANDOM_CHARS);
      for (let i = 0; i < ULID_RANDOM_CHARS; i++) {
        // Headroom in the first random digit: increments within one millisecond never wrap.
        random[i] = pool[at + i]! & (i === 0 ? 15 : 31);
      }
      this.#lastTime = timeMs;
    }
    const codes = this.#codes;
    codes.length = 0;
    for (let i = 0; i < prefix.length; i++) codes.push(prefix.charCodeAt(i));
    for (let i = 0; i < ULID_TIME_CHARS; i++) codes.push(this.#time[i]!);
    for (let i = 0; i < ULID_RANDOM_CHARS; i++) codes.push(CROCKFORD.charCodeAt(random[i]!));
    return String.fromCharCode.apply(null, codes);
  }
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/**
 * A PIX end-to-end id: `E` + the sending institution's 8-digit ISPB + `yyyyMMddHHmm` (UTC) + 11
 * alphanumerics, 32 characters (docs/decisions/ids.md).
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
