// How the domain's objects are rows of the SQL stores: each record kept whole as JSON (`record`), its
// shape the domain's (domain/records.ts, from the contract's schemas), beside the columns that the
// store filters, sorts, constrains or claims on. A field added to payouts is stored and read back as
// it is; a column is added here (and in a migration) only when a query needs it.
import { Account, type CreateAccountParams } from "../../domain/accounts.js";
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { PixCharge } from "../../domain/pix-charge.js";
import type { PixKeyEntry } from "../../domain/pix-directory.js";
import type { PayinRecord, PayoutRecord } from "../../domain/records.js";
import type { DueItem, SandboxSettings } from "../../domain/repository.js";

/** A row as the driver answers it. */
export type Row = Record<string, unknown>;

/** The payout columns, each from the record: the one place a payout's column is mapped. */
export const PAYOUT_COLUMNS = {
  id: (p: PayoutRecord) => p.id,
  account_id: (p: PayoutRecord) => p.accountId,
  reference_id: (p: PayoutRecord) => p.referenceId,
  status: (p: PayoutRecord) => p.status,
  amount: (p: PayoutRecord) => p.amount,
  created_ms: (p: PayoutRecord) => p.createdAt,
} as const;

/** The payin columns, each from the record. */
export const PAYIN_COLUMNS = {
  id: (p: PayinRecord) => p.id,
  account_id: (p: PayinRecord) => p.accountId,
  status: (p: PayinRecord) => p.status,
  amount: (p: PayinRecord) => p.amount,
  three_ds_tx: (p: PayinRecord) => p.threeDS?.transactionId ?? null,
} as const;

/** The delivery columns, each from the record (the due time on the sandbox clock: see {@link dueOf}). */
export const DELIVERY_COLUMNS = {
  id: (d: DeliveryRecord) => d.id,
  account_id: (d: DeliveryRecord) => d.accountId,
  resource_id: (d: DeliveryRecord) => d.resourceId,
  state: (d: DeliveryRecord) => d.state,
  hold_until_ms: (d: DeliveryRecord) => d.holdUntil,
  out_of_order: (d: DeliveryRecord) => d.outOfOrder,
} as const;

type Columns<T> = Record<string, (record: T) => unknown>;

/**
 * An INSERT of a record's columns and its JSON, in the record's account's epoch; `extra` columns too.
 * Answers the text and parameters.
 */
export function insertOf<T extends { accountId: string }>(
  table: string,
  columns: Columns<T>,
  record: T,
  json: unknown,
  extra: Record<string, unknown> = {},
): { text: string; params: unknown[] } {
  const names = [...Object.keys(columns), ...Object.keys(extra)];
  const params = [...Object.values(columns).map((column) => column(record)), ...Object.values(extra)];
  const values = names.map((_, i) => `$${i + 1}`);
  params.push(JSON.stringify(json));
  const recordAt = params.length;
  params.push(record.accountId);
  return {
    text: `INSERT INTO ${table} (${names.join(", ")}, record, epoch) SELECT ${values.join(", ")}, $${recordAt}::jsonb, a.epoch FROM paykit_accounts a WHERE a.id = $${recordAt + 1}`,
    params,
  };
}

/** An UPDATE of a record's columns and JSON by id. */
export function updateOf<T extends { id: string }>(
  table: string,
  columns: Columns<T>,
  record: T,
  json: unknown,
  extra: Record<string, unknown> = {},
): { text: string; params: unknown[] } {
  const entries = [
    ...Object.entries(columns)
      .filter(([name]) => name !== "id" && name !== "account_id")
      .map(([name, column]) => [name, column(record)] as const),
    ...Object.entries(extra),
  ];
  const sets = entries.map(([name], i) => `${name} = $${i + 1}`);
  const params = entries.map(([, value]) => value);
  params.push(JSON.stringify(json), record.id);
  return {
    text: `UPDATE ${table} SET ${sets.join(", ")}, record = $${params.length - 1}::jsonb WHERE id = $${params.length}`,
    params,
  };
}

/** A payin as its JSON keeps it: the BR Code's key instead of the shared object that builds it. */
export function payinJsonOf(payin: PayinRecord): unknown {
  const { pixCharge, ...rest } = payin;
  return { ...rest, pixKey: pixCharge?.pixKey ?? null };
}

/** A payin read back. */
export function payinFrom(row: Row): PayinRecord {
  const { pixKey, ...rest } = jsonOf(row.record) as PayinRecord & { pixKey: string | null };
  return { ...rest, pixCharge: pixKey === null ? null : new PixCharge(pixKey) };
}

/** A payout read back: its JSON is the record. */
export function payoutFrom(row: Row): PayoutRecord {
  return jsonOf(row.record) as PayoutRecord;
}

/** A delivery read back, with its queueing order. */
export function deliveryFrom(row: Row): DeliveryRecord {
  return { ...(jsonOf(row.record) as DeliveryRecord), seq: Number(row.seq) };
}

/** A due item read back. */
export function dueFrom(row: Row): DueItem {
  return {
    kind: row.kind as DueItem["kind"],
    accountId: String(row.account_id),
    resourceId: String(row.resource_id),
    at: Number(row.at_ms),
    clock: row.clock as DueItem["clock"],
  };
}

/** What an account keeps besides its columns: its settings, what it was created with, its PIX key. */
interface AccountSettings {
  created: CreateAccountParams;
  merchantPixKey: string;
  kycApproved: boolean;
  creditCardEnabled: boolean;
  payoutApproval: Account["payoutApproval"];
  autoAdvance: boolean | null;
  pixDirectory: Account["pixDirectory"];
  webhookSecret: string | null;
  previousWebhookSecret: string | null;
  previousSecretUntil: number;
  webhookDuplicates: boolean;
  webhookOutOfOrder: boolean;
  fees: Account["fees"];
  limits: Account["limits"];
}

/** An account's settings as its `settings` column keeps them. */
export function settingsOf(a: Account): AccountSettings {
  return {
    created: a.created,
    merchantPixKey: a.merchantPixKey,
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
  };
}

/** The account columns besides its id, keys and settings, each from the account. */
export const ACCOUNT_COLUMNS = {
  clock_offset_ms: (a: Account) => a.clockOffsetMs,
  opening_balance: (a: Account) => a.openingBalance,
  approved_net: (a: Account) => a.approvedNet,
  reserved: (a: Account) => a.reserved,
  debited: (a: Account) => a.debited,
  in_flight: (a: Account) => a.inFlight,
  payout_count: (a: Account) => a.payoutCount,
  payout_status_counts: (a: Account) => JSON.stringify(a.payoutStatusCounts),
} as const;

/** An account read back. */
export function accountFrom(row: Row): Account {
  const settings = jsonOf(row.settings) as AccountSettings;
  const account = new Account(
    String(row.id),
    String(row.public_key),
    String(row.secret_key_hash),
    settings.created,
    settings.merchantPixKey,
  );
  account.kycApproved = settings.kycApproved;
  account.creditCardEnabled = settings.creditCardEnabled;
  account.payoutApproval = settings.payoutApproval;
  account.autoAdvance = settings.autoAdvance;
  account.pixDirectory = settings.pixDirectory;
  account.webhookSecret = settings.webhookSecret;
  account.previousWebhookSecret = settings.previousWebhookSecret;
  account.previousSecretUntil = settings.previousSecretUntil;
  account.webhookDuplicates = settings.webhookDuplicates;
  account.webhookOutOfOrder = settings.webhookOutOfOrder;
  account.fees = settings.fees;
  account.limits = settings.limits;
  account.clockOffsetMs = Number(row.clock_offset_ms);
  account.openingBalance = Number(row.opening_balance);
  account.approvedNet = Number(row.approved_net);
  account.reserved = Number(row.reserved);
  account.debited = Number(row.debited);
  account.inFlight = Number(row.in_flight);
  account.payoutCount = Number(row.payout_count);
  account.payoutStatusCounts = jsonOf(row.payout_status_counts) as Record<string, number>;
  return account;
}

/** The sandbox row read back. */
export function sandboxFrom(row: Row): SandboxSettings {
  return {
    clockOffsetMs: Number(row.clock_offset_ms),
    defaultAccountId: row.default_account_id === null ? null : String(row.default_account_id),
    rateLimit: (jsonOf(row.rate_limit) as SandboxSettings["rateLimit"]) ?? null,
    faultsArmed: row.faults_armed === true,
  };
}

/** A PIX key read back. */
export function pixKeyFrom(row: Row): PixKeyEntry {
  return jsonOf(row.entry) as PixKeyEntry;
}

/** JSON as the drivers answer it: parsed already (jsonb), or text. */
export function jsonOf(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}
