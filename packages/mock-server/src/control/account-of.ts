import type { AccountView } from "../domain/accounts.js";
import { createHttpControl } from "./http-client.js";
import { MockControlError } from "./mock-control.js";

/**
 * The account whose keys are `keys`, read with those keys (`GET /_mock/account`) on a mock over HTTP
 * (`trigger`, `listen`, `mcp`); undefined when the mock has no account with them. The keys suffice on
 * any mock, a shared sandbox or one guarded by an admin token alike; other refusals reject with the
 * {@link MockControlError}.
 */
export async function accountOf(
  reach: { url: string; fetch?: typeof fetch },
  keys: { publicKey: string; secretKey: string },
): Promise<AccountView | undefined> {
  try {
    return await createHttpControl({ url: reach.url, credentials: keys, fetch: reach.fetch }).ownAccount();
  } catch (error) {
    if (error instanceof MockControlError && error.status === 404) return undefined;
    throw error;
  }
}
