import { Paykit, type PaykitOptions, type PayoutLookupEvent, type RetryEvent } from "../../src/index.js";
import { type Step, scriptedFetch } from "./fake-fetch.js";
import { BASE_URL, KEYS } from "./fixtures.js";

/** A client over a scripted fetch, with millisecond backoff, recording retries and payout lookups. */
export function scriptedClient(script: Record<string, Step[]>, options: Partial<PaykitOptions> = {}) {
  const fake = scriptedFetch(script);
  const retries: RetryEvent[] = [];
  const lookups: PayoutLookupEvent[] = [];
  const paykit = new Paykit({
    ...KEYS,
    baseUrl: BASE_URL,
    fetch: fake.fetch,
    retryBackoff: { initialDelayMs: 1, maxDelayMs: 2 },
    ...options,
    hooks: { onRetry: (e) => retries.push(e), onPayoutLookup: (e) => lookups.push(e), ...options.hooks },
  });
  return { paykit, ...fake, retries, lookups };
}
