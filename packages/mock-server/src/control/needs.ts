// Which accounts a control call needs in memory, derived from its scope in the control table: a store
// that reads accounts on use (docs/decisions/shared-sandbox-accounts-load-on-use.md) reads them before
// the call runs.
import type { AccountNeeds } from "../domain/persistence.js";
import type { ControlScope } from "./call.js";

/** A control call's arguments as far as its accounts go. */
export interface ControlNeedsInput {
  /** The `:id` of its path. */
  id: string;
  /** `?accountId=` or a body's `accountId`, as the scope reads it. */
  accountId: string | undefined;
  /** The key a new account asks for (`POST /_mock/accounts`): its uniqueness is checked in memory. */
  publicKey: string | undefined;
  /** Whether the caller may make calls about every account (the admin token, or none is set). */
  admin: boolean;
}

/** The accounts one call of the control table needs: {@link controlNeeds}, without records when it reads none. */
export function callNeeds(
  call: { scope: ControlScope; readsRecords?: false; readsAllRecords?: true },
  input: ControlNeedsInput,
): AccountNeeds {
  const needs = controlNeeds(call.scope, input);
  if (call.readsAllRecords) return { ...needs, whole: true };
  if (call.readsRecords !== false) return needs;
  const { accountIds, all, ...rest } = needs;
  return {
    ...rest,
    ...(accountIds === undefined ? {} : { bareAccountIds: accountIds }),
    ...(all ? { bareAll: true } : {}),
  };
}

/** The accounts one control call needs (a caller's own keys are added by the transport). */
export function controlNeeds(scope: ControlScope, input: ControlNeedsInput): AccountNeeds {
  switch (scope) {
    case "open":
      return input.publicKey === undefined ? {} : { publicKeys: [input.publicKey] };
    case "allAccounts":
      return input.admin ? { all: true } : {};
    case "caller":
      // the account of the request's keys, which the transport adds
      return {};
    case "account":
      return { accountIds: [input.id] };
    case "payin":
      return { payinIds: [input.id] };
    case "payout":
      return { payoutIds: [input.id] };
    case "delivery":
      return { deliveryIds: [input.id] };
    case "queried":
      // a list or flush about every account reads every account: only for the admin
      if (input.accountId !== undefined) return { accountIds: [input.accountId] };
      return input.admin ? { all: true } : {};
    case "bodyAccount":
      // a fault or PIX key for everyone touches no account's records
      return input.accountId === undefined ? {} : { accountIds: [input.accountId] };
    case "global":
      // the sandbox clock, rate limit and reset act on what is in memory; the store does the rest
      return {};
  }
}
