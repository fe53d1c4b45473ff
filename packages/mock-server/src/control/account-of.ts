import type { AccountView } from "../domain/accounts.js";
import type { MockControl } from "./mock-control.js";

/**
 * The account whose public key is `publicKey`, read through a control client (`trigger`, `listen`);
 * undefined when the mock has none. On a shared sandbox an account's own keys list that account alone.
 */
export async function accountOf(control: MockControl, publicKey: string): Promise<AccountView | undefined> {
  for await (const view of control.listAll("accounts")) if (view.publicKey === publicKey) return view;
  return undefined;
}
