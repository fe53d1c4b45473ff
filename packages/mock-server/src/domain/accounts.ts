import {
  DEFAULT_FEES,
  DEFAULT_PAYOUT_LIMITS,
  type FeeSchedule,
  isFinalPayinStatus,
  isFinalPayoutStatus,
  type KnownPayoutStatus,
  type PayinFeeRule,
  type PaymentMethod,
  type PayoutLimits,
} from "@paykit/contract";
import { ApiError } from "./errors.js";
import { constantTimeEqual, randomString } from "./ids.js";
import { PixCharge } from "./pix-charge.js";
import type { PixDirectoryMode } from "./pix-directory.js";
import type { PayinRecord, PayoutRecord } from "./records.js";

/** How an account's payouts are approved: at once, or in the merchant dashboard (the control API). */
export type PayoutApproval = "automatic" | "manual";

/** Fee schedule overrides of an account: any field, and any method's payin rule. */
export type FeeOverrides = Omit<Partial<FeeSchedule>, "payin"> & {
  payin?: Partial<Record<PaymentMethod, PayinFeeRule>>;
};

/**
 * Options of a new mock account (`POST /_mock/accounts`, docs/decisions/mock-control-api.md).
 */
export interface CreateAccountParams {
  /** Whether the merchant's KYC is approved; without it every request is 403. @default true */
  kycApproved?: boolean;
  /** Whether card payins are enabled (the extra KYC). @default true */
  creditCardEnabled?: boolean;
  /** How payouts are approved. @default "automatic" */
  payoutApproval?: PayoutApproval;
  /** Whether payouts move one step per second on their own; defaults to the server's mode. */
  autoAdvance?: boolean;
  /** Opening balance in cents, available at once. @default 0 */
  balance?: number;
  /** A Standard Webhooks secret (`whsec_…`); deliveries are signed when set. */
  webhookSecret?: string;
  /** Fee schedule overrides. @default DEFAULT_FEES */
  fees?: FeeOverrides;
  /** Payout limit overrides, in cents. @default DEFAULT_PAYOUT_LIMITS */
  limits?: Partial<PayoutLimits>;
  /**
   * How the PIX key directory answers this account's payouts: `open` finds every well-formed key except
   * `notfound@bank.test`, `strict` only the seeded and registered keys. Defaults to the server's mode
   * (`open`, or `strict` with `--strict-pix-directory`).
   */
  pixDirectory?: PixDirectoryMode;
  /** Test mode: every webhook is delivered twice (same `webhook-id`). @default false */
  webhookDuplicates?: boolean;
  /** Test mode: webhooks are held briefly and delivered newest first. @default false */
  webhookOutOfOrder?: boolean;
  /** Fixed public key (`pk_test_…`); random when absent. */
  publicKey?: string;
  /** Fixed secret key (`sk_test_…`); random when absent. */
  secretKey?: string;
}

/** Settings that `updateAccount` may change on an existing account. */
export type UpdateAccountParams = Omit<CreateAccountParams, "balance" | "publicKey" | "secretKey">;

/** The key pair of a mock account, as `POST /_mock/accounts` answers it. */
export interface AccountKeys {
  accountId: string;
  publicKey: string;
  secretKey: string;
  /** The webhook signing secret (`whsec_…`) when the account has one: receivers verify with it. */
  webhookSecret?: string;
}

/** What a webhook secret rotation answers (`POST /_mock/accounts/{id}/webhook-secret`). */
export interface RotatedWebhookSecret {
  /** The new signing secret: every later delivery is signed with it, retries of earlier events included. */
  webhookSecret: string;
  /** Until when (ISO 8601, mock clock) deliveries also carry the previous secret's signature; null without one. */
  previousSecretExpiresAt: string | null;
}

/** How long deliveries stay signed with the previous secret after a rotation: 24 h of mock time. */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** The balance of an account in cents (docs/decisions/balance.md). */
export interface AccountBalance {
  /** What a payout may take now: approved net − unreleased reserves − payouts still debited. */
  available: number;
  /** Card reserves not yet released. */
  reserved: number;
  /** Payouts in AWAITING_APPROVAL, APPROVED, PENDING or PROCESSING. */
  pending: number;
}

/** An account's settings and balance, as `GET /_mock/accounts/{id}` answers them. */
export interface AccountView {
  accountId: string;
  publicKey: string;
  kycApproved: boolean;
  creditCardEnabled: boolean;
  payoutApproval: PayoutApproval;
  autoAdvance: boolean;
  /** Whether deliveries are signed; the secret itself is never echoed. */
  webhookSigned: boolean;
  /** How the PIX key directory answers this account's payouts. */
  pixDirectory: PixDirectoryMode;
  webhookDuplicates: boolean;
  webhookOutOfOrder: boolean;
  fees: FeeSchedule;
  limits: PayoutLimits;
  balance: AccountBalance;
}

const IN_FLIGHT: ReadonlySet<string> = new Set<KnownPayoutStatus>([
  "AWAITING_APPROVAL",
  "APPROVED",
  "PENDING",
  "PROCESSING",
]);
const DEBITING: ReadonlySet<string> = new Set<KnownPayoutStatus>([
  ...IN_FLIGHT,
  "COMPLETED",
] as KnownPayoutStatus[]);

/** A merchant account of the mock: keys, settings, running balance totals and its payouts. */
export class Account {
  kycApproved: boolean;
  creditCardEnabled: boolean;
  payoutApproval: PayoutApproval;
  autoAdvance: boolean | null;
  /** The account's own directory mode; null follows the server's. */
  pixDirectory: PixDirectoryMode | null;
  webhookSecret: string | null;
  /** The secret before the last rotation, still signing deliveries until {@link previousSecretUntil}. */
  previousWebhookSecret: string | null = null;
  /** End of the rotation's grace period, in mock-clock ms. */
  previousSecretUntil = 0;
  webhookDuplicates: boolean;
  webhookOutOfOrder: boolean;
  fees: FeeSchedule;
  limits: PayoutLimits;
  /** Builds the BR Codes of the account's PIX payins. */
  readonly pixCharge: PixCharge;

  // Running totals, so the balance check of a payout never scans (docs/decisions/balance.md).
  openingBalance: number;
  approvedNet = 0;
  reserved = 0;
  debited = 0;
  inFlight = 0;

  /** Payins sorted by id, which is time-ordered: newest last (the dashboard's list). */
  readonly payins: PayinRecord[] = [];
  /** Payouts sorted by id, which is time-ordered: newest last. */
  readonly payouts: PayoutRecord[] = [];
  readonly payoutsById = new Map<string, PayoutRecord>();
  readonly payoutsByReference = new Map<string, PayoutRecord>();
  readonly payoutStatusCounts = new Map<string, number>();
  /**
   * When a request last used the account, in real epoch ms (not the mock clock, which tests move);
   * 0 when not known in this process (read back from a store, whose own stamp then decides).
   */
  lastUsedAt = 0;

  constructor(
    readonly id: string,
    readonly publicKey: string,
    readonly secretKey: string,
    /** What the account was created with: its reset (`POST /_mock/accounts/{id}/reset`) goes back to it. */
    readonly created: CreateAccountParams,
    /** The account's own PIX key (an EVP), which its payins' BR Codes pay into. */
    readonly merchantPixKey: string = crypto.randomUUID(),
  ) {
    this.pixCharge = new PixCharge(merchantPixKey);
    const params = created;
    this.kycApproved = params.kycApproved ?? true;
    this.creditCardEnabled = params.creditCardEnabled ?? true;
    this.payoutApproval = params.payoutApproval ?? "automatic";
    this.autoAdvance = params.autoAdvance ?? null;
    this.pixDirectory = params.pixDirectory ?? null;
    this.webhookSecret = params.webhookSecret ?? null;
    this.webhookDuplicates = params.webhookDuplicates ?? false;
    this.webhookOutOfOrder = params.webhookOutOfOrder ?? false;
    this.fees = mergeFees(DEFAULT_FEES, params.fees);
    this.limits = { ...DEFAULT_PAYOUT_LIMITS, ...params.limits };
    this.openingBalance = params.balance ?? 0;
  }

  /** Applies changed settings. */
  update(params: UpdateAccountParams): void {
    if (params.kycApproved !== undefined) this.kycApproved = params.kycApproved;
    if (params.creditCardEnabled !== undefined) this.creditCardEnabled = params.creditCardEnabled;
    if (params.payoutApproval !== undefined) this.payoutApproval = params.payoutApproval;
    if (params.autoAdvance !== undefined) this.autoAdvance = params.autoAdvance;
    if (params.pixDirectory !== undefined) this.pixDirectory = params.pixDirectory;
    if (params.webhookSecret !== undefined) {
      // Setting a secret outright is not a rotation: no grace for the old one.
      this.webhookSecret = params.webhookSecret;
      this.previousWebhookSecret = null;
    }
    if (params.webhookDuplicates !== undefined) this.webhookDuplicates = params.webhookDuplicates;
    if (params.webhookOutOfOrder !== undefined) this.webhookOutOfOrder = params.webhookOutOfOrder;
    if (params.fees !== undefined) this.fees = mergeFees(this.fees, params.fees);
    if (params.limits !== undefined) this.limits = { ...this.limits, ...params.limits };
  }

  /**
   * Replaces the webhook secret by a new random one; the old one keeps signing (a second `v1,`
   * signature, as Standard Webhooks allows) until `nowMs + graceMs`, so receivers can switch over.
   */
  rotateWebhookSecret(nowMs: number, graceMs: number): RotatedWebhookSecret {
    const next = newWebhookSecret();
    if (this.webhookSecret !== null && graceMs > 0) {
      this.previousWebhookSecret = this.webhookSecret;
      this.previousSecretUntil = nowMs + graceMs;
    } else {
      this.previousWebhookSecret = null;
      this.previousSecretUntil = 0;
    }
    this.webhookSecret = next;
    return {
      webhookSecret: next,
      previousSecretExpiresAt:
        this.previousWebhookSecret === null ? null : new Date(this.previousSecretUntil).toISOString(),
    };
  }

  /** The secrets a delivery sent at `nowMs` is signed with: the current one, and the previous during its grace. */
  signingSecrets(nowMs: number): string[] {
    if (this.webhookSecret === null) return [];
    if (this.previousWebhookSecret !== null && nowMs < this.previousSecretUntil) {
      return [this.webhookSecret, this.previousWebhookSecret];
    }
    return [this.webhookSecret];
  }

  /** The balance now. */
  balance(): AccountBalance {
    return {
      available: this.openingBalance + this.approvedNet - this.reserved - this.debited,
      reserved: this.reserved,
      pending: this.inFlight,
    };
  }

  /** Books a payout's move between statuses: debits, gives back, and keeps the status counts. */
  bookPayoutStatus(payout: PayoutRecord, from: KnownPayoutStatus | null, to: KnownPayoutStatus): void {
    if (from !== null) {
      this.payoutStatusCounts.set(from, (this.payoutStatusCounts.get(from) ?? 1) - 1);
      if (DEBITING.has(from)) this.debited -= payout.amount;
      if (IN_FLIGHT.has(from)) this.inFlight -= payout.amount;
    }
    this.payoutStatusCounts.set(to, (this.payoutStatusCounts.get(to) ?? 0) + 1);
    if (DEBITING.has(to)) this.debited += payout.amount;
    if (IN_FLIGHT.has(to)) this.inFlight += payout.amount;
  }

  /** Adds a payin in id order. */
  insertPayin(payin: PayinRecord): void {
    insertById(this.payins, payin);
  }

  /**
   * Drops the oldest payin in a final status and the oldest payout in a final status or COMPLETED (a
   * refund is the only way out of it, and a bound that kept every COMPLETED payout would bound
   * nothing) while there are more than `max` of each (the retention limit); answers the records dropped, for the engine's own indexes and store. Balances keep
   * their running totals: a dropped record's money stays booked.
   */
  retain(max: number): { payins: PayinRecord[]; payouts: PayoutRecord[] } {
    const droppedPayins: PayinRecord[] = [];
    const droppedPayouts: PayoutRecord[] = [];
    while (this.payins.length > max) {
      const at = this.payins.findIndex((p) => isFinalPayinStatus(p.status));
      if (at < 0) break;
      droppedPayins.push(...this.payins.splice(at, 1));
    }
    while (this.payouts.length > max) {
      const at = this.payouts.findIndex((p) => isFinalPayoutStatus(p.status) || p.status === "COMPLETED");
      if (at < 0) break;
      const [payout] = this.payouts.splice(at, 1);
      if (payout === undefined) break;
      droppedPayouts.push(payout);
      this.payoutsById.delete(payout.id);
      if (this.payoutsByReference.get(payout.referenceId) === payout)
        this.payoutsByReference.delete(payout.referenceId);
      this.payoutStatusCounts.set(payout.status, (this.payoutStatusCounts.get(payout.status) ?? 1) - 1);
    }
    return { payins: droppedPayins, payouts: droppedPayouts };
  }

  /** Adds a payout in id order. */
  insertPayout(payout: PayoutRecord): void {
    insertById(this.payouts, payout);
    this.payoutsById.set(payout.id, payout);
    this.payoutsByReference.set(payout.referenceId, payout);
  }
}

/** Inserts a record into an id-sorted list: an append unless the mock clock was set back. */
function insertById<T extends { id: string }>(list: T[], record: T): void {
  const last = list[list.length - 1];
  if (last === undefined || last.id < record.id) {
    list.push(record);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.id < record.id) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, record);
}

function mergeFees(base: FeeSchedule, patch: FeeOverrides | undefined): FeeSchedule {
  const payin = { ...base.payin };
  for (const [method, rule] of Object.entries(patch?.payin ?? {}))
    if (rule) payin[method as PaymentMethod] = rule;
  return { ...base, ...patch, payin };
}

/** A new mock key pair: `pk_test_`/`sk_test_`, never `_live_` (docs/decisions/authentication.md). */
export function newKeyPair(): { publicKey: string; secretKey: string } {
  return { publicKey: `pk_test_${randomString(24)}`, secretKey: `sk_test_${randomString(32)}` };
}

/** Reads `Authorization: Basic base64(pk:sk)`; null when absent or malformed. */
export function parseBasicAuth(header: string | undefined): { publicKey: string; secretKey: string } | null {
  if (header === undefined || header.length > 1024) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) return null;
  let decoded: string;
  try {
    decoded = atob(match[1]);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0) return null;
  return { publicKey: decoded.slice(0, colon), secretKey: decoded.slice(colon + 1) };
}

/** The account whose key pair a request's credentials are; 401 UNAUTHORIZED otherwise. */
function verifyCredentials(header: string | undefined, byPublicKey: ReadonlyMap<string, Account>): Account {
  const credentials = parseBasicAuth(header);
  const account = credentials ? byPublicKey.get(credentials.publicKey) : undefined;
  // Compare against a dummy when the public key is unknown, so timing does not tell which part failed.
  const ok = constantTimeEqual(
    credentials?.secretKey ?? "",
    account?.secretKey ?? "sk_test_unknown_account_key",
  );
  if (!credentials || !account || !ok) {
    throw new ApiError(
      "UNAUTHORIZED",
      "invalid or missing credentials: send Authorization: Basic base64(publicKey:secretKey)",
    );
  }
  return account;
}

/** Most accepted `Authorization` headers an {@link Authenticator} remembers before it starts over. */
const REMEMBERED_HEADERS = 64;

/**
 * The merchant API's Basic auth (docs/decisions/authentication.md). A test suite sends one header
 * on every request, so each exact header that was accepted is remembered with its account and not
 * parsed and compared again. Only accepted headers are kept: every refused or new one still takes the
 * constant-time path. A remembered account counts only while it is still the one its public key opens
 * (a reset opens new accounts, and keys never change), and KYC is checked on every request.
 */
export class Authenticator {
  readonly #byPublicKey: ReadonlyMap<string, Account>;
  readonly #accepted = new Map<string, Account>();

  constructor(byPublicKey: ReadonlyMap<string, Account>) {
    this.#byPublicKey = byPublicKey;
  }

  /** The account a request's credentials belong to; 401 UNAUTHORIZED / 403 KYC_NOT_APPROVED otherwise. */
  authenticate(header: string | undefined): Account {
    const remembered = header === undefined ? undefined : this.#accepted.get(header);
    let account: Account;
    if (remembered !== undefined && this.#byPublicKey.get(remembered.publicKey) === remembered) {
      account = remembered;
    } else {
      account = verifyCredentials(header, this.#byPublicKey);
      if (this.#accepted.size >= REMEMBERED_HEADERS) this.#accepted.clear();
      this.#accepted.set(header as string, account);
    }
    if (!account.kycApproved) {
      throw new ApiError(
        "KYC_NOT_APPROVED",
        "the account's KYC is not approved; no request is accepted until it is",
      );
    }
    return account;
  }

  /**
   * The id of the account whose credentials `header` carries, or null: for keying the rate limit
   * before the handler runs. Never throws, and takes the same constant-time path as `authenticate`.
   */
  accountIdOf(header: string | undefined): string | null {
    if (header === undefined) return null;
    const remembered = this.#accepted.get(header);
    if (remembered !== undefined && this.#byPublicKey.get(remembered.publicKey) === remembered)
      return remembered.id;
    try {
      return verifyCredentials(header, this.#byPublicKey).id;
    } catch {
      return null;
    }
  }

  /** Forgets every remembered header (a reset). */
  clear(): void {
    this.#accepted.clear();
  }
}

/** A fresh Standard Webhooks secret: `whsec_` and the base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `whsec_${btoa(binary)}`;
}

/** The settings and balance of an account, as the control API shows them. */
export function accountView(
  account: Account,
  serverAutoAdvance: boolean,
  serverPixDirectory: PixDirectoryMode = "open",
): AccountView {
  return {
    accountId: account.id,
    publicKey: account.publicKey,
    kycApproved: account.kycApproved,
    creditCardEnabled: account.creditCardEnabled,
    payoutApproval: account.payoutApproval,
    autoAdvance: account.autoAdvance ?? serverAutoAdvance,
    webhookSigned: account.webhookSecret !== null,
    pixDirectory: account.pixDirectory ?? serverPixDirectory,
    webhookDuplicates: account.webhookDuplicates,
    webhookOutOfOrder: account.webhookOutOfOrder,
    fees: account.fees,
    limits: account.limits,
    balance: account.balance(),
  };
}
