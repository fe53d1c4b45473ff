import { INSPECT_CUSTOM } from "../errors/paykit-error.js";

/**
 * The answer a call's result was read from, kept by the core as it returns the result: the id of the
 * attempt that got it, and the runtime's `Response` (its body already read into `text`).
 */
export class AnswerSlot {
  requestId: string | undefined = undefined;
  /** The URL the attempt addressed (a test double's `Response` may have none of its own). */
  url = "";
  response: Response | undefined = undefined;
  text = "";

  /** What `console.log` shows of a call's promise: the request id, not the answer's body. */
  [INSPECT_CUSTOM](): string {
    return `Answer ${this.requestId ?? "(none yet)"}`;
  }
}

/** What `withResponse()` resolves: the typed record, the HTTP answer it was read from, and its request id. */
export interface WithResponse<T> {
  /** The typed record, exactly what awaiting the call gives. */
  data: T;
  /**
   * The HTTP answer the record was read from, as `fetch` gave it: status, status text, headers, URL.
   * Its body was read by the client to make `data` (`bodyUsed` is true): read `data`, or ask
   * `asResponse()` for a copy whose body reads. Never the request's headers (no `Authorization`).
   */
  response: Response;
  /**
   * The client-made id of the attempt that got this answer (`req_…`), sent as `X-Request-Id`: quote it in a
   * support ticket, search for it in your logs (every hook event and span carries it).
   */
  requestId: string;
}

/** The statuses whose answer cannot have a body (the `Response` constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

// The answer behind a call's promise: a property of its own under a symbol nobody else holds.
const ANSWER = Symbol("paykit.answer");

/**
 * The promise every Paykit call returns: await it for the typed record, as always, or ask for the HTTP
 * answer behind it with {@link PaykitPromise.withResponse} or {@link PaykitPromise.asResponse}. The
 * call starts when the method is called (a payment is never left unsent because nobody awaited it),
 * and asking for its answer costs nothing more (`asResponse()` builds its copy only when called).
 *
 * @example
 * ```ts
 * const { data: payin, response, requestId } = await paykit.payins.retrieve(id).withResponse();
 * log.info({ requestId, status: response.status, payinStatus: payin.status });
 * ```
 */
export interface PaykitPromise<T> extends Promise<T> {
  /**
   * Resolves `{ data, response, requestId }`: the record, the HTTP answer it was read from (status and
   * headers; its body already read into `data`), and the client-made id of the request that got it.
   * Rejects as the call does. Costs nothing the call did not already do.
   * For a call made of several requests, `response` is the one whose answer the record came from:
   * the poll that saw a payin final (`waitForFinal`), the lookup that found a payout after its POST's
   * answer was lost, the page that held a confirmed payout.
   */
  withResponse(): Promise<WithResponse<T>>;
  /**
   * Resolves the HTTP answer the record was read from as a new web `Response` whose body reads (the
   * text the client received, for logging or your own parsing), with the answer's status, headers and
   * URL. Each call makes its own copy. Rejects as the call does: an error answer is a
   * `PaykitApiError`, which carries its status, headers, body and `requestId`.
   */
  asResponse(): Promise<Response>;
}

type Answered<T> = PaykitPromise<T> & { [ANSWER]: AnswerSlot };

function withResponse<T>(this: Answered<T>): Promise<WithResponse<T>> {
  const slot = this[ANSWER];
  // The runtime's own Response: building a copy with a readable body costs more than the request did.
  return this.then((data) => ({
    data,
    response: slot.response ?? responseOf(slot),
    requestId: slot.requestId as string,
  }));
}

function asResponse<T>(this: Answered<T>): Promise<Response> {
  const slot = this[ANSWER];
  return this.then(() => responseOf(slot));
}

/**
 * The promise of a call whose answer the core keeps in `slot`: the call's own promise, given the two
 * methods and the slot as properties. Not a subclass of Promise: awaiting a native promise stays on the
 * runtime's fast path (a subclass costs about a microsecond a call, which `pnpm bench` measures), and
 * `then` gives ordinary promises.
 */
export function answered<T>(outcome: Promise<T>, slot: AnswerSlot): PaykitPromise<T> {
  const promise = outcome as Answered<T>;
  promise[ANSWER] = slot;
  promise.withResponse = withResponse;
  promise.asResponse = asResponse;
  return promise;
}

/** A fresh slot, filled in by the core when the call returns. */
export function newAnswerSlot(): AnswerSlot {
  return new AnswerSlot();
}

/**
 * The answer behind another call's promise, for calls made of other calls (`webhooks.confirm`); an
 * empty one for a promise the core did not make (a test's stand-in).
 */
export function answerOf(promise: Promise<unknown>): AnswerSlot {
  return (promise as Partial<Answered<unknown>>)[ANSWER] ?? newAnswerSlot();
}

/** Fills `to` with the answer held by `from`. */
export function copyAnswer(to: AnswerSlot, from: AnswerSlot): void {
  to.requestId = from.requestId;
  to.url = from.url;
  to.response = from.response;
  to.text = from.text;
}

/** Awaits another call's promise and keeps its answer in `slot` (the composite's answer so far). */
export async function readInto<T>(slot: AnswerSlot, promise: Promise<T>): Promise<T> {
  const value = await promise;
  copyAnswer(slot, answerOf(promise));
  return value;
}

/** A call made of other calls: `run` fills `slot` with the answer its result came from. */
export function composite<T>(run: (slot: AnswerSlot) => Promise<T>): PaykitPromise<T> {
  const slot = newAnswerSlot();
  return answered(run(slot), slot);
}

/**
 * A `Response` with the answer's status, status text, headers and body text, made anew for each
 * caller (a body reads once). The headers are a copy of the answer's: the request's are never there.
 * Only `asResponse()` makes one: Node's `Response` with a body costs tens of microseconds to build.
 */
function responseOf(slot: AnswerSlot): Response {
  const original = slot.response;
  const status = original?.status ?? 200;
  const response = new Response(NULL_BODY.has(status) ? null : slot.text, {
    status,
    statusText: original?.statusText ?? "",
    headers: new Headers(original?.headers),
  });
  // A constructed Response has no URL; the answer's own (or the one requested) is what a log wants.
  Object.defineProperty(response, "url", { value: original?.url || slot.url, enumerable: true });
  return response;
}
