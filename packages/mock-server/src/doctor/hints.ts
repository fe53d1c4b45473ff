// What the doctor tells a merchant to fix follows what it saw: a 500 is the receiver's own handler
// throwing, a 404 a wrong URL, a refusal of a well-signed delivery a verification problem. A generic
// "verify the signature" under a 500 sends people looking in the wrong place.

/** One answer of the receiver, as the doctor saw it. */
export interface Answer {
  /** The HTTP status, or null when nothing came back. */
  status: number | null;
  ms: number;
  /** Why nothing came back (timeout, refused connection). */
  error: string | null;
  /** The first line of the answer's body (at most 160 characters), empty when it had none. */
  firstLine: string;
}

const FIRST_LINE_MAX = 160;

/** The first non-empty line of a body, without control characters, shortened for one report line. */
export function firstLineOf(body: string): string {
  const line = body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (line === undefined) return "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a receiver's body may carry any byte
  const clean = line.replace(/[\u0000-\u001f\u007f]/g, " ");
  return clean.length > FIRST_LINE_MAX ? `${clean.slice(0, FIRST_LINE_MAX - 1)}…` : clean;
}

/** An answer as a report shows it: `500 in 12 ms: "TypeError: …"`, or why nothing came. */
export function describeAnswer(a: Answer): string {
  if (a.status === null) return a.error ?? "no answer";
  const body = a.firstLine === "" ? "" : `: ${JSON.stringify(a.firstLine)}`;
  return `${a.status} in ${Math.round(a.ms)} ms${body}`;
}

/** Whether the receiver acknowledged the delivery. */
export const is2xx = (a: Answer): boolean => a.status !== null && a.status >= 200 && a.status < 300;
/** Whether the receiver refused the delivery as the sender's fault. */
export const is4xx = (a: Answer): boolean => a.status !== null && a.status >= 400 && a.status < 500;
/** Whether the receiver's own handler failed. */
export const is5xx = (a: Answer): boolean => a.status !== null && a.status >= 500;

/** Said under every failure caused by a throwing handler. */
const THREW = (a: Answer) =>
  `your handler threw (${a.status}${a.firstLine === "" ? "" : `: ${JSON.stringify(a.firstLine)}`})`;

/** What is wrong when nothing, a redirect or a wrong route answered: the same for every case. */
function plumbing(a: Answer, url: string): string | null {
  if (a.status === null) {
    return /within \d+ ms/.test(a.error ?? "")
      ? "answer within the delivery timeout: store the event, answer 2xx, and do slow work afterwards"
      : `nothing answered at ${url} (${a.error}): is the receiver running, and is this its URL?`;
  }
  if (a.status >= 300 && a.status < 400)
    return `the URL redirects (${a.status}): deliveries do not follow redirects, give the final URL`;
  if (a.status === 404 || a.status === 405)
    return `nothing handles POST at ${url} (${a.status}): check the path and the method of the route`;
  return null;
}

/**
 * The fix for a delivery a safe receiver acknowledges (a valid, well-signed event) that was not:
 * `usual` when the answer says nothing more precise.
 */
export function fixForAcknowledged(a: Answer, url: string, usual: string): string {
  const wrongPlace = plumbing(a, url);
  if (wrongPlace !== null) return wrongPlace;
  if (is5xx(a)) {
    return (
      `${THREW(a)}; its log has the stack. The doctor's events name payins and payouts your keys cannot see: a verified event ` +
      "whose resource is not found (NotFoundError from paykit.webhooks.confirm) has nothing to act on, " +
      "acknowledge it instead of answering 500"
    );
  }
  if (a.status === 409)
    return "409 (in progress) for a delivery nobody else is handling: release the webhook-id's claim when the handler ends, and claim per delivery";
  if (is4xx(a))
    return `the receiver refused a correctly signed delivery (${a.status}): verify with the same whsec_ secret the doctor was given, over the raw request bytes; ${usual}`;
  return usual;
}

/**
 * The fix for a delivery a safe receiver refuses with 4xx (forged, unsigned, stale) that was not:
 * `usual` when it was acknowledged.
 */
export function fixForRefused(a: Answer, url: string, usual: string): string {
  const wrongPlace = plumbing(a, url);
  if (wrongPlace !== null) return wrongPlace;
  if (is5xx(a))
    return `${THREW(a)} instead of refusing the delivery: verify first and answer 400 to a failed verification, so it is not retried`;
  return usual;
}

/** The fix when one copy of a delivery sent twice at once was handled and the other got `a`, not 409. */
export function fixForInProgress(a: Answer, url: string, usual: string): string {
  const wrongPlace = plumbing(a, url);
  if (wrongPlace !== null) return wrongPlace;
  if (is5xx(a)) return `${THREW(a)} on the copy that arrived while the first was handled: ${usual}`;
  return `the copy that arrived while the first was handled got ${a.status}: ${usual}`;
}
