// The state as plain data for a durable store: what each record, account and delivery is saved as,
// and how it is read back. The store keeps these as JSON beside the columns it indexes; nothing here
// knows SQL. Money stays integer cents, times epoch ms on the record's account clock.
import type {
  FeeSchedule,
  KnownPayinStatus,
  KnownPayoutStatus,
  PaymentMethod,
  PayoutLimits,
  PixKeyType,
} from "@paykit/contract";
import { Account, type CreateAccountParams, type PayoutApproval } from "./accounts.js";
import type { SavedDelivery } from "./outbox.js";
import type { PixDirectoryMode, PixKeyEntry } from "./pix-directory.js";
import { PayinRecord, PayoutRecord, type StoredCard, type ThreeDSChallenge } from "./records.js";

/** An account as saved: keys, settings, running totals and its clock's offset. */
export interface SavedAccount {
  id: string;
  publicKey: string;
  secretKey: string;
  created: CreateAccountParams;
  kycApproved: boolean;
  creditCardEnabled: boolean;
  payoutApproval: PayoutApproval;
  autoAdvance: boolean | null;
  pixDirectory: PixDirectoryMode | null;
  webhookSecret: string | null;
  previousWebhookSecret: string | null;
  previousSecretUntil: number;
  webhookDuplicates: boolean;
  webhookOutOfOrder: boolean;
  fees: FeeSchedule;
  limits: PayoutLimits;
  merchantPixKey: string;
  openingBalance: number;
  approvedNet: number;
  reserved: number;
  debited: number;
  inFlight: number;
  clockOffsetMs: number;
}

type Transitions<S> = { status: S; at: number }[] | null;

/** A payin as saved. */
export interface SavedPayin {
  id: string;
  accountId: string;
  externalId: string;
  referenceId: string;
  paymentMethod: PaymentMethod;
  amount: number;
  orderJson: string;
  webhookUrl: string | null;
  createdAt: number;
  status: KnownPayinStatus;
  netAmount: number | null;
  reservedAmount: number | null;
  reserveReleaseAt: number | null;
  threeDS: ThreeDSChallenge | null;
  card: StoredCard | null;
  boletoBarcode: string | null;
  boletoUrl: string | null;
  openFinanceRedirectUrl: string | null;
  installments: number | null;
  transitions: Transitions<KnownPayinStatus>;
}

/** A payout as saved. */
export interface SavedPayout {
  id: string;
  accountId: string;
  amount: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  referenceId: string;
  beneficiaryName: string;
  beneficiaryDocument: string;
  webhookUrl: string | null;
  createdAt: number;
  status: KnownPayoutStatus;
  externalId: string | null;
  feeAmount: number | null;
  netAmount: number | null;
  failureCode: string | null;
  transitions: Transitions<KnownPayoutStatus>;
}

/** The sandbox itself: its clock, the default account, and the PIX keys registered at run time. */
export interface SavedSandbox {
  clockOffsetMs: number;
  boletoSeq: number;
  defaultAccountId: string;
  pixKeys: PixKeyEntry[];
}

/** Everything a durable store holds, as read back at start. */
export interface SavedState {
  sandbox: SavedSandbox;
  accounts: SavedAccount[];
  /** Oldest first (id order). */
  payins: SavedPayin[];
  /** Oldest first (id order). */
  payouts: SavedPayout[];
  /** Oldest first. */
  deliveries: SavedDelivery[];
}

/** One account as saved with its records: what a store reads when a request needs the account. */
export interface SavedAccountRecords {
  account: SavedAccount;
  /** Oldest first (id order). */
  payins: SavedPayin[];
  /** Oldest first (id order). */
  payouts: SavedPayout[];
  /** Oldest first. */
  deliveries: SavedDelivery[];
}

/** What a store reads at start: the sandbox and its default account, no other (they load on use). */
export interface SavedStart {
  sandbox: SavedSandbox;
  /** Null when the store holds no such account (fixed keys no saved account has). */
  defaultAccount: SavedAccountRecords | null;
}

/** An account as saved. */
export function savedAccount(a: Account, clockOffsetMs: number): SavedAccount {
  return {
    id: a.id,
    publicKey: a.publicKey,
    secretKey: a.secretKey,
    created: a.created,
    kycApproved: a.kycApproved,
    creditCardEnabled: a.creditCardEnabled,
    payoutApproval: a.payoutApproval,
    autoAdvance: a.autoAdvance,
    pixDirectory: a.pixDirectory,
    webhookSecret: a.webhookSecret,
    previousWebhookSecret: a.previousWebhookSecret,
    previousSecretUntil: a.previousSecretUntil,
    webhookDuplicates: a.webhookDuplicates,
    webhookOutOfOrder: a.webhookOutOfOrder,
    fees: a.fees,
    limits: a.limits,
    merchantPixKey: a.merchantPixKey,
    openingBalance: a.openingBalance,
    approvedNet: a.approvedNet,
    reserved: a.reserved,
    debited: a.debited,
    inFlight: a.inFlight,
    clockOffsetMs,
  };
}

/** The account a saved one was, without records (they are added as they are read). */
export function accountFrom(s: SavedAccount): Account {
  const account = new Account(s.id, s.publicKey, s.secretKey, s.created, s.merchantPixKey);
  applySavedSettings(account, s);
  return account;
}

/**
 * Sets what may change of an account (its settings, secrets and balance totals) as saved; its id,
 * keys and merchant PIX key stay the account's own.
 */
export function applySavedSettings(account: Account, s: SavedAccount): void {
  account.kycApproved = s.kycApproved;
  account.creditCardEnabled = s.creditCardEnabled;
  account.payoutApproval = s.payoutApproval;
  account.autoAdvance = s.autoAdvance;
  account.pixDirectory = s.pixDirectory;
  account.webhookSecret = s.webhookSecret;
  account.previousWebhookSecret = s.previousWebhookSecret;
  account.previousSecretUntil = s.previousSecretUntil;
  account.webhookDuplicates = s.webhookDuplicates;
  account.webhookOutOfOrder = s.webhookOutOfOrder;
  account.fees = s.fees;
  account.limits = s.limits;
  account.openingBalance = s.openingBalance;
  account.approvedNet = s.approvedNet;
  account.reserved = s.reserved;
  account.debited = s.debited;
  account.inFlight = s.inFlight;
}

/** A payin as saved. */
export function savedPayin(p: PayinRecord): SavedPayin {
  return {
    id: p.id,
    accountId: p.accountId,
    externalId: p.externalId,
    referenceId: p.referenceId,
    paymentMethod: p.paymentMethod,
    amount: p.amount,
    orderJson: p.orderJson,
    webhookUrl: p.webhookUrl,
    createdAt: p.createdAt,
    status: p.status,
    netAmount: p.netAmount,
    reservedAmount: p.reservedAmount,
    reserveReleaseAt: p.reserveReleaseAt,
    threeDS: p.threeDS === null ? null : { ...p.threeDS },
    card: p.card,
    boletoBarcode: p.boletoBarcode,
    boletoUrl: p.boletoUrl,
    openFinanceRedirectUrl: p.openFinanceRedirectUrl,
    installments: p.installments,
    transitions: p.transitions === null ? null : p.transitions.map((t) => ({ ...t })),
  };
}

/** The payin a saved one was; a PIX payin's charges are its account's. */
export function payinFrom(s: SavedPayin, account: Account): PayinRecord {
  const p = new PayinRecord(
    s.id,
    s.accountId,
    s.externalId,
    s.referenceId,
    s.paymentMethod,
    s.amount,
    s.orderJson,
    s.webhookUrl,
    s.createdAt,
    s.status,
  );
  p.netAmount = s.netAmount;
  p.reservedAmount = s.reservedAmount;
  p.reserveReleaseAt = s.reserveReleaseAt;
  p.threeDS = s.threeDS;
  p.card = s.card;
  p.pixCharge = s.paymentMethod === "PIX" ? account.pixCharge : null;
  p.boletoBarcode = s.boletoBarcode;
  p.boletoUrl = s.boletoUrl;
  p.openFinanceRedirectUrl = s.openFinanceRedirectUrl;
  p.installments = s.installments;
  p.transitions = s.transitions;
  return p;
}

/** A payout as saved. */
export function savedPayout(p: PayoutRecord): SavedPayout {
  return {
    id: p.id,
    accountId: p.accountId,
    amount: p.amount,
    pixKey: p.pixKey,
    pixKeyType: p.pixKeyType,
    referenceId: p.referenceId,
    beneficiaryName: p.beneficiaryName,
    beneficiaryDocument: p.beneficiaryDocument,
    webhookUrl: p.webhookUrl,
    createdAt: p.createdAt,
    status: p.status,
    externalId: p.externalId,
    feeAmount: p.feeAmount,
    netAmount: p.netAmount,
    failureCode: p.failureCode,
    transitions: p.transitions === null ? null : p.transitions.map((t) => ({ ...t })),
  };
}

/** The payout a saved one was. */
export function payoutFrom(s: SavedPayout): PayoutRecord {
  const p = new PayoutRecord(
    s.id,
    s.accountId,
    s.amount,
    s.pixKey,
    s.pixKeyType,
    s.referenceId,
    s.beneficiaryName,
    s.beneficiaryDocument,
    s.webhookUrl,
    s.createdAt,
    s.status,
  );
  p.externalId = s.externalId;
  p.feeAmount = s.feeAmount;
  p.netAmount = s.netAmount;
  p.failureCode = s.failureCode;
  p.transitions = s.transitions;
  return p;
}
