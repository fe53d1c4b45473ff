// What `paykit-mock trigger` refuses before it sends anything: live-looking keys, and a URL where no
// Paykit mock answers. A scenario creates payins and payouts; aimed at the real service it would
// move real money, so the mock must say what it is first (its control API's OpenAPI title).
import { keyMode } from "@paykit/contract";
import { identifyMock } from "../control/identify.js";

/** A run refused before it sent anything (exit status 2 of the CLI): the message says what to change. */
export class TriggerRefusedError extends Error {
  override readonly name = "TriggerRefusedError";
}

/** A merchant account's key pair. */
export interface TriggerKeys {
  publicKey: string;
  secretKey: string;
}

/** Refuses keys that look live (`pk_live_`/`sk_live_`): the mock never has them, the real service does. */
export function refuseLiveKeys(keys: TriggerKeys | undefined): void {
  if (keys === undefined) return;
  if (keyMode(keys.publicKey, "publicKey") === "live" || keyMode(keys.secretKey, "secretKey") === "live") {
    throw new TriggerRefusedError(
      "these are live keys (pk_live_/sk_live_): trigger only drives a Paykit mock; use the mock account's pk_test_ keys",
    );
  }
}

/**
 * Checks that `url` is a Paykit mock: `GET /_mock/openapi.json` answers the control API's document.
 * Throws a {@link TriggerRefusedError} naming what answered instead.
 */
export async function assertMock(url: string, doFetch: typeof fetch): Promise<void> {
  const identity = await identifyMock(url, doFetch);
  if (identity.kind === "mock") return;
  if (identity.kind === "unreachable")
    throw new TriggerRefusedError(
      `nothing answers at ${url} (${identity.cause}): start the mock (npx paykit-mock --manual) or give --url`,
    );
  const hint = identity.hint ?? "trigger only drives a Paykit mock (it checks GET /_mock/openapi.json)";
  throw new TriggerRefusedError(
    `${url} is not a Paykit mock (${url}/_mock/openapi.json answered ${identity.answer}): ${hint}`,
  );
}
