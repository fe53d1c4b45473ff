import type { AttemptEffect } from "./retry-policy.js";

/**
 * What the client knows, when a call fails for good, about whether it took effect on the service.
 * The core works it out from the attempts and lookups; the endpoint says what it means for the caller
 * (`Endpoint.explain`), so no message is ever searched for what happened.
 *
 * - `answered`: nothing to add: the answer says what happened (a refusal, a documented provider
 *   error), or nothing was sent.
 * - `took-effect`: it succeeded, but the answer could not be read.
 * - `unknown`: it may have taken effect and nothing could check (a payin has no lookup).
 * - `lookup-failed`: it may have taken effect, and the lookup that would tell failed.
 * - `absent`: a lookup found nothing after an answered failure: nothing was created.
 * - `absent-but-in-flight`: a lookup found nothing, but an attempt that got no answer may still be
 *   processed by the service.
 */
export type Fate =
  | "answered"
  | "took-effect"
  | "unknown"
  | "lookup-failed"
  | "absent"
  | "absent-but-in-flight";

/** The fate of an attempt with this effect, when nothing was looked up. */
export function fateOf(effect: AttemptEffect): Fate {
  switch (effect) {
    case "none":
    case "answered":
      return "answered";
    case "took-effect":
      return "took-effect";
    default:
      return "unknown";
  }
}

/**
 * The fate of a whole call: a lookup's answer is the last word on the attempts it covered, but an
 * attempt still in flight on the service may create the record after any later answer.
 */
export function finalFate(last: Fate, inFlightEarlier: boolean): Fate {
  if (!inFlightEarlier || last === "lookup-failed" || last === "took-effect") return last;
  return "absent-but-in-flight";
}
