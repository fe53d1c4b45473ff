// What the shared status stores (Redis, PostgreSQL) agree on: which statuses are final, how a status
// travels as text, and how its `updatedAt` is compared. Kept free of `@paykit/contract` so the store
// subpaths load without zod.
import type { PaymentStatus } from "./store.js";

// The final payin statuses (the contract's PAYIN_TRANSITIONS: no way out of these three).
const FINAL_STATUSES: ReadonlySet<string> = new Set(["APPROVED", "REFUSED", "EXPIRED"]);

/** How long a store remembers a status after its last write. @default 1 hour */
export const DEFAULT_STATUS_TTL_MS = 60 * 60 * 1000;

/** The poll-free window a fresh `publish` holds when the caller names no `pollIntervalMs`. */
export const DEFAULT_FRESH_WINDOW_MS = 2_000;

export function isFinalStatus(status: string): boolean {
  return FINAL_STATUSES.has(status);
}

/** `updatedAt` in epoch milliseconds; a status without a parseable one cannot be ordered: refused. */
export function updatedAtMs(status: PaymentStatus, store: string): number {
  if (status === null || typeof status !== "object" || typeof status.id !== "string" || status.id === "") {
    throw new TypeError(`${store}: publish needs a status with a non-empty string id`);
  }
  const ms = typeof status.updatedAt === "string" ? Date.parse(status.updatedAt) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new TypeError(`${store}: status.updatedAt of ${status.id} must be an ISO 8601 date-time`);
  }
  return ms;
}

/** The status as it travels between instances: its own JSON, nothing added. */
export function encodeStatus(status: PaymentStatus): string {
  return JSON.stringify(status);
}

/** A status read back from the store or a channel, or null when the text is none (another app's message). */
export function decodeStatus(text: string): PaymentStatus | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const status = value as Record<string, unknown>;
  if (typeof status.id !== "string" || typeof status.status !== "string") return null;
  if (typeof status.updatedAt !== "string" || typeof status.paymentMethod !== "string") return null;
  return status as unknown as PaymentStatus;
}

/** Validates a millisecond option: a positive integer, or the default when absent. */
export function positiveMs(value: number | undefined, fallback: number, name: string, store: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`${store}: ${name} must be a positive integer number of milliseconds`);
  }
  return value;
}

/** Calls every listener with `status`; one that throws neither stops the others nor the store. */
export function deliver(
  listeners: Iterable<(status: PaymentStatus) => void>,
  status: PaymentStatus,
  onError: (error: unknown) => void,
): void {
  for (const listener of listeners) {
    try {
      listener(status);
    } catch (error) {
      onError(error);
    }
  }
}
