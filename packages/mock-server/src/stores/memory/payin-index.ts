import type { PayinRecord } from "../../domain/records.js";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** ULID characters: 10 of time, then 16 of randomness, at the end of every payin id. */
const ULID_LENGTH = 26;
const ULID_TIME_CHARS = 10;

// The value of each Crockford base32 digit by character code; -1 for anything else.
const DIGIT_VALUE = /* @__PURE__ */ (() => {
  const values = new Int8Array(128).fill(-1);
  for (let i = 0; i < CROCKFORD.length; i++) values[CROCKFORD.charCodeAt(i)] = i;
  return values;
})();

/** The millisecond an id's ULID encodes; -1 when the id has no well-formed ULID time. */
function idTime(id: string): number {
  const start = id.length - ULID_LENGTH;
  if (start < 0) return -1;
  let time = 0;
  for (let i = start; i < start + ULID_TIME_CHARS; i++) {
    const code = id.charCodeAt(i);
    const digit = code < 128 ? DIGIT_VALUE[code]! : -1;
    if (digit < 0) return -1;
    time = time * 32 + digit;
  }
  return time;
}

/**
 * Every payin of the mock by id. A payin id is time-ordered (docs/decisions/ids.md), so payins are
 * grouped by the millisecond their id encodes: under load a few dozen payins share one entry, and a
 * new payin is appended to the entry of the moment rather than inserted into a hash table of every
 * payin (an insert into a table of 100,000 entries misses the CPU caches several times). A lookup
 * reads the id's time, then compares the ids of that millisecond.
 */
export class PayinIndex {
  readonly #byTime = new Map<number, PayinRecord | PayinRecord[]>();
  #lastTime = -1;
  #lastGroup: PayinRecord[] | null = null;

  /** Adds a new payin (ids are unique: a ULID is never issued twice). */
  add(payin: PayinRecord): void {
    const time = idTime(payin.id);
    if (time === this.#lastTime && this.#lastGroup !== null) {
      this.#lastGroup.push(payin);
      return;
    }
    const entry = this.#byTime.get(time);
    if (entry === undefined) {
      this.#byTime.set(time, payin);
      this.#lastTime = -1;
      this.#lastGroup = null;
      return;
    }
    const group = Array.isArray(entry) ? entry : [entry];
    if (group !== entry) this.#byTime.set(time, group);
    group.push(payin);
    this.#lastTime = time;
    this.#lastGroup = group;
  }

  /** The payin with this id, if any. */
  get(id: string): PayinRecord | undefined {
    const entry = this.#byTime.get(idTime(id));
    if (entry === undefined) return undefined;
    if (!Array.isArray(entry)) return entry.id === id ? entry : undefined;
    for (const payin of entry) if (payin.id === id) return payin;
    return undefined;
  }

  /** Forgets one payin (the retention limit dropped it). */
  delete(id: string): void {
    const time = idTime(id);
    const entry = this.#byTime.get(time);
    if (entry === undefined) return;
    if (!Array.isArray(entry)) {
      if (entry.id === id) this.#byTime.delete(time);
      return;
    }
    const at = entry.findIndex((payin) => payin.id === id);
    if (at >= 0) entry.splice(at, 1);
    if (entry.length === 0) {
      this.#byTime.delete(time);
      if (this.#lastGroup === entry) {
        this.#lastTime = -1;
        this.#lastGroup = null;
      }
    }
  }

  /** Forgets every payin (a reset). */
  clear(): void {
    this.#byTime.clear();
    this.#lastTime = -1;
    this.#lastGroup = null;
  }
}
