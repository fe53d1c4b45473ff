// The account a trigger scenario runs on: the caller's, found by its keys and checked against what the
// scenario needs, or a fresh one opened for the run with those settings.
import { accountOf } from "../control/account-of.js";
import { createHttpControl } from "../control/http-client.js";
import { type MockControl, MockControlError } from "../control/mock-control.js";
import type { TriggerScenario } from "./scenario.js";
import { type TriggerKeys, TriggerRefusedError } from "./target.js";

/** The opening balance of an account a run opens, in cents: enough for every payout scenario. */
const FRESH_BALANCE = 1_000_000;

/** The account a run played on, as its outcome shows it (no secret). */
export interface RunAccount {
  accountId: string;
  publicKey: string;
  /** The run opened this account (no keys were given). */
  opened: boolean;
  /** Whether its deliveries are signed (it has a webhook secret). */
  signed: boolean;
}

/**
 * The account of a run: the caller's (found by its keys), or one opened with what the scenario needs;
 * a {@link TriggerRefusedError} when the mock refuses, the keys are unknown, or the account is unfit.
 */
export async function accountFor(
  scenario: TriggerScenario,
  url: string,
  options: {
    keys?: TriggerKeys | undefined;
    adminToken?: string | undefined;
    webhookSecret?: string | undefined;
  },
  doFetch: typeof fetch,
): Promise<{
  account: RunAccount;
  keys: TriggerKeys;
  control: MockControl;
  autoAdvance: boolean;
}> {
  const reach = { url, fetch: doFetch, ...(options.adminToken ? { adminToken: options.adminToken } : {}) };
  if (options.keys === undefined) {
    const opened = await refusedUnless("open an account", () =>
      createHttpControl(reach).createAccount({
        balance: FRESH_BALANCE,
        // every step is the scenario's own: the mock moves nothing of this account by itself
        autoAdvance: false,
        ...scenario.account,
        ...(options.webhookSecret === undefined ? {} : { webhookSecret: options.webhookSecret }),
      }),
    );
    const keys = { publicKey: opened.publicKey, secretKey: opened.secretKey };
    return {
      account: {
        accountId: opened.accountId,
        publicKey: opened.publicKey,
        opened: true,
        signed: opened.webhookSecret !== undefined,
      },
      keys,
      control: createHttpControl({ ...reach, credentials: keys }),
      autoAdvance: false,
    };
  }
  const keys = options.keys;
  const control = createHttpControl({ ...reach, credentials: keys });
  const view = await refusedUnless("read the account", () => accountOf({ url, fetch: doFetch }, keys));
  if (view === undefined)
    throw new TriggerRefusedError(
      `no account of the mock at ${url} has the public key ${keys.publicKey} with that secret key`,
    );
  const needed = scenario.account?.payoutApproval;
  if (needed !== undefined && view.payoutApproval !== needed) {
    throw new TriggerRefusedError(
      `${scenario.name} needs an account whose payouts are approved ${needed === "manual" ? "in the dashboard (payoutApproval: manual)" : "at once (payoutApproval: automatic)"}; ` +
        `account ${view.accountId} has payoutApproval: ${view.payoutApproval}. Run it without keys to use a fresh account, ` +
        `or change the setting (POST /_mock/accounts/${view.accountId}/settings)`,
    );
  }
  return {
    account: {
      accountId: view.accountId,
      publicKey: view.publicKey,
      opened: false,
      signed: view.webhookSigned,
    },
    keys,
    control,
    autoAdvance: view.autoAdvance,
  };
}

/** A control call made before the scenario acts: a refusal of the mock is the run's refusal. */
export async function refusedUnless<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof MockControlError)) throw error;
    const hint =
      error.status === 401 || error.status === 403
        ? ": give the mock's admin token (--admin-token or PAYKIT_MOCK_ADMIN_TOKEN), or on a shared sandbox the account's keys"
        : "";
    throw new TriggerRefusedError(
      `the mock refused to ${what} (${error.status} ${error.code}: ${error.message})${hint}`,
    );
  }
}
