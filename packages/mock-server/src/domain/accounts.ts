import {
  DEFAULT_FEES,
  DEFAULT_PAYOUT_LIMITS,
  type FeeSchedule,
  type KnownPayoutStatus,
  type PayinFeeRule,
  type PaymentMethod,
  type PayoutLimits,
} from "@paykit/contract";
import { ApiError } from "./errors.js";
import { constantTimeEqual, randomString } from "./ids.js";
import { PixCharge } from "./pix-charge.js";
import type { PixDirectoryMode } from "./pix-directory.js";
import type { PayoutRecord } from "./records.js";

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

/** A merchant account of the mock: keys, settings and running balance totals. */
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
  /** The account's clock minus the sandbox clock, in ms (docs/decisions/time-and-the-mock-clock.md). */
  clockOffsetMs = 0;

  // Running totals, so the balance check of a payout never scans (docs/decisions/balance.md).
  openingBalance: number;
  approvedNet = 0;
  reserved = 0;
  debited = 0;
  inFlight = 0;
  /** The account's payouts: the total of `GET /payout` without reading them. */
  payoutCount = 0;
  /** The account's payouts by status: the total of `GET /payout?status=` without reading them. */
  payoutStatusCounts: Record<string, number> = {};

  constructor(
    readonly id: string,
    readonly publicKey: string,
    /** The SHA-256 of the secret key, hex: a store keeps no secret key (docs/decisions/secret-keys-hashed.md). */
    readonly secretKeyHash: string,
    /** What the account was created with (no key): its reset goes back to it. */
    readonly created: CreateAccountParams,
    /** The account's own PIX key (an EVP), which its payins' BR Codes pay into. */
    readonly merchantPixKey: string = crypto.randomUUID(),
  ) {
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

  /** The BR Codes of the account's PIX payins, made on first use. */
  get pixCharge(): PixCharge {
    this.#pixCharge ??= new PixCharge(this.merchantPixKey);
    return this.#pixCharge;
  }
  #pixCharge: PixCharge | undefined;

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
    const counts = this.payoutStatusCounts;
    if (from !== null) {
      counts[from] = (counts[from] ?? 1) - 1;
      if (DEBITING.has(from)) this.debited -= payout.amount;
      if (IN_FLIGHT.has(from)) this.inFlight -= payout.amount;
    }
    counts[to] = (counts[to] ?? 0) + 1;
    if (DEBITING.has(to)) this.debited += payout.amount;
    if (IN_FLIGHT.has(to)) this.inFlight += payout.amount;
  }

  /** A fresh account of the same id, keys and webhook secrets, as created (its reset). */
  recreated(): Account {
    const fresh = new Account(this.id, this.publicKey, this.secretKeyHash, this.created, this.merchantPixKey);
    fresh.webhookSecret = this.webhookSecret;
    fresh.previousWebhookSecret = this.previousWebhookSecret;
    fresh.previousSecretUntil = this.previousSecretUntil;
    return fresh;
  }
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

/**
 * The SHA-256 of a secret key as hex: what a store keeps instead of the key
 * (docs/decisions/secret-keys-hashed.md). The service shows a secret key once, when it is made.
 */
export async function hashSecretKey(secretKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secretKey));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** Most `Authorization` headers remembered (parsed, the secret hashed) before the memory starts over. */
const REMEMBERED_HEADERS = 256;
/** A presented key pair: the public key, and the hash of the secret (compared with the stored one). */
interface Presented {
  readonly publicKey: string;
  readonly hash: Promise<string>;
  /** The hash once worked out: a request then awaits nothing for it. */
  hashed?: string;
}
const presented = new Map<string, Presented | null>();

/**
 * The credentials an `Authorization` header presents, remembered per header (a test suite sends one
 * header for hours): only a hash of the secret is kept, as in the store.
 */
export function presentedCredentials(header: string | undefined): Presented | null {
  if (header === undefined) return null;
  let found = presented.get(header);
  if (found === undefined) {
    const credentials = parseBasicAuth(header);
    if (credentials === null) found = null;
    else {
      const entry: Presented = {
        publicKey: credentials.publicKey,
        hash: hashSecretKey(credentials.secretKey),
      };
      entry.hash.then(
        (hash) => {
          entry.hashed = hash;
        },
        () => {},
      );
      found = entry;
    }
    if (presented.size >= REMEMBERED_HEADERS) presented.clear();
    presented.set(header, found);
  }
  return found;
}

/** A dummy hash compared against when the public key opens no account (timing tells nothing). */
const UNKNOWN_ACCOUNT_HASH = "0".repeat(64);

/** Finds the account a public key opens (the store's read: locked or not). */
export type AccountFinder = (publicKey: string) => Promise<Account | null>;

/**
 * The account whose key pair a request's `Authorization: Basic` credentials are; 401 UNAUTHORIZED
 * otherwise, 403 KYC_NOT_APPROVED for an account whose KYC is not approved
 * (docs/decisions/authentication.md). Keys are compared in constant time, as hashes.
 */
export async function authenticate(header: string | undefined, find: AccountFinder): Promise<Account> {
  const account = await credentialsAccount(header, find);
  if (account === null) {
    throw new ApiError(
      "UNAUTHORIZED",
      "invalid or missing credentials: send Authorization: Basic base64(publicKey:secretKey)",
    );
  }
  if (!account.kycApproved) {
    throw new ApiError(
      "KYC_NOT_APPROVED",
      "the account's KYC is not approved; no request is accepted until it is",
    );
  }
  return account;
}

/** The account a request's credentials belong to, or null (never throws; KYC not checked). */
export async function credentialsAccount(
  header: string | undefined,
  find: AccountFinder,
): Promise<Account | null> {
  const credentials = presentedCredentials(header);
  if (credentials === null) return null;
  const account = await find(credentials.publicKey);
  const hash = credentials.hashed ?? (await credentials.hash);
  const ok = constantTimeEqual(hash, account?.secretKeyHash ?? UNKNOWN_ACCOUNT_HASH);
  return ok && account !== null ? account : null;
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
