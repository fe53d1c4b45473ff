// The id of one HTTP attempt (docs/decisions/request-ids.md): `req_` and 26 Crockford base32 characters,
// 10 of the time in ms and 16 random (80 bits), the shape of the service's `pi_`/`po_` ids. Within one
// millisecond the random part counts up, so one process's ids sort in the order its attempts were made.

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const RANDOM_CHARS = 16;
const POOL_SIZE = 4096;
// Every pair of base-32 digits as its two characters: an id is 13 lookups joined in one expression.
const PAIRS: string[] = [];
for (let i = 0; i < 1024; i++) PAIRS.push((CROCKFORD[i >> 5] as string) + CROCKFORD[i & 31]);

let pool = new Uint8Array(0);
let poolAt = POOL_SIZE;
let lastTime = -1;
let lastTimeText = "";
// The random part as base-32 digits: drawn afresh each millisecond, incremented within one.
const random = new Uint8Array(RANDOM_CHARS);

/** Fresh random digits; the pool is refilled once per 256 ids, not once per id. */
function drawRandom(): void {
  if (poolAt + RANDOM_CHARS > pool.length) {
    // Made on first use, not at import: a process that never sends a request never asks for entropy.
    pool = crypto.getRandomValues(new Uint8Array(POOL_SIZE));
    poolAt = 0;
  }
  for (let i = 0; i < RANDOM_CHARS; i++) random[i] = (pool[poolAt + i] as number) & 31;
  poolAt += RANDOM_CHARS;
}

/** The random part plus one; on the (2^-80) overflow, fresh digits. */
function incrementRandom(): void {
  for (let i = RANDOM_CHARS - 1; i >= 0; i--) {
    if ((random[i] as number) < 31) {
      random[i] = (random[i] as number) + 1;
      return;
    }
    random[i] = 0;
  }
  drawRandom();
}

/** The 48-bit time in ms as 10 base-32 digits (bitwise operators hold 32 bits: it is split at 2^30). */
function timeText(ms: number): string {
  const high = Math.floor(ms / 2 ** 30);
  const low = ms % 2 ** 30;
  return (
    (PAIRS[(high >> 10) & 1023] as string) +
    PAIRS[high & 1023] +
    PAIRS[(low >> 20) & 1023] +
    PAIRS[(low >> 10) & 1023] +
    PAIRS[low & 1023]
  );
}

/** Digits `i` and `i + 1` of the random part. */
const pair = (i: number) => PAIRS[((random[i] as number) << 5) | (random[i + 1] as number)] as string;

/** A new request id, e.g. `req_01KAV3M5Q7WJ8Z2X9C4N6B1D3F`; never the same twice in a process. */
export function newRequestId(): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    lastTimeText = timeText(now);
    drawRandom();
  } else {
    // The same millisecond (or a clock stepped back): keep the last time so the order still holds.
    incrementRandom();
  }
  return (
    `req_${lastTimeText}` + pair(0) + pair(2) + pair(4) + pair(6) + pair(8) + pair(10) + pair(12) + pair(14)
  );
}
