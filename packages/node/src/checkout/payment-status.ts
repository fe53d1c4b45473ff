import { PAYIN_ID_PREFIX } from "@paykit/contract/rules";
import type { WebhookEvent } from "@paykit/webhooks";
import type { Paykit } from "../client.js";
import { PaykitConfigError } from "../errors/validation-error.js";
import { DEFAULT_POLL_SCHEDULE, type PollSchedule, retryAfterOf } from "../resources/poll-schedule.js";
import { statusHubOf } from "../resources/status-hub.js";
import { acceptsEventStream } from "./accept.js";
import { GuardedStore } from "./guarded-store.js";
import { memoryStatusStore } from "./memory-store.js";
import {
  checkFields,
  type PublicPayinField,
  type PublicPaymentStatus,
  publicStatus,
} from "./public-status.js";
import {
  json,
  methodNotAllowed,
  missingId,
  notFound,
  providerError,
  SSE_HEADERS,
  unavailable,
  withoutBody,
} from "./responses.js";
import { StatusStream } from "./sse.js";
import { isFinalStatus } from "./status-codec.js";
import type { PaymentStatus, PaymentStatusStore } from "./store.js";
import { Watchers } from "./watchers.js";

/**
 * Decides whether the shopper making `request` may see payin `payinId`, e.g. the order in their
 * session owns it. Refused, the answer is 404, exactly as for an id that does not exist.
 */
export type AuthorizePaymentStatus = (request: Request, payinId: string) => boolean | Promise<boolean>;

/** Options of {@link createPaymentStatus}. */
export interface PaymentStatusOptions {
  /** The merchant's client: the endpoint reads payins with it when no webhook said anything lately. */
  paykit: Paykit;
  /**
   * Required: may this shopper see this payin? A payin id is not a secret (it travels in URLs and
   * logs), so without a check anyone could follow anyone's payment. Throwing rejects the handler's
   * promise (your framework answers 500).
   */
  authorize: AuthorizePaymentStatus;
  /**
   * Where instances share statuses, live updates and the polling work.
   * @default memoryStatusStore() — this process only
   */
  store?: PaymentStatusStore;
  /**
   * The first interval between two reads of a watched payin from the service, in ms; it grows by half
   * each time up to `maxPollIntervalMs`. A fresh webhook (`notify`) spares the fleet its polls.
   * @default 2000
   */
  pollIntervalMs?: number;
  /** The longest interval between two reads of a watched payin, in ms. @default 10000 */
  maxPollIntervalMs?: number;
  /**
   * The most status streams this instance holds open; one more is answered 503 with `Retry-After`.
   * The default keeps the streams of one instance within about 512 MB (see docs/checkout.md, "Open
   * streams and memory").
   * @default 5000
   */
  maxStreams?: number;
  /** Payin fields added to `{ id, status, paymentMethod, updatedAt }` for the page. @default [] */
  fields?: readonly PublicPayinField[];
  /** The `retry:` of every stream: how long a page's EventSource waits before reconnecting, in ms. @default 3000 */
  retryMs?: number;
  /** The interval of the `: keep-alive` comment on every open stream, in ms. @default 15000 */
  keepAliveMs?: number;
  /**
   * How long a call to the status store may take before the endpoint goes on without it, in ms: it
   * then reads the service itself, polls for itself, and keeps a status it could not share for the
   * streams it holds (each reported to `onError`). A store that hangs never hangs a page.
   * @default 2000
   */
  storeTimeoutMs?: number;
  /**
   * Called with failures the endpoint survives: a status store that cannot be reached or answers too
   * late (the endpoint then reads the service itself) or a poll that failed (the next one tries
   * again). What it throws is ignored.
   * @default ignores them
   */
  onError?: (error: unknown) => void;
}

/** What an instance's status endpoint holds right now (for metrics and tests). */
export interface PaymentStatusStats {
  /** Status streams open on this instance. */
  openStreams: number;
  /** Payins with at least one open stream here; each has one poll timer. */
  watchedPayins: number;
}

/** The payment-status endpoint of one instance: see {@link createPaymentStatus}. */
export interface PaymentStatusEndpoint {
  /**
   * Answers `GET <url>?id=pi_…`: the payin's public status as JSON, or with `Accept:
   * text/event-stream` a stream of server-sent events that ends after the final status. Web-standard,
   * so it mounts as is in Hono, Next.js route handlers, Bun and Workers, and in Express, Fastify and
   * NestJS through `toNodeListener`.
   */
  handler(request: Request): Promise<Response>;
  /**
   * Hands a verified webhook event to every page watching its payin, on every instance that shares
   * the store, and spares the fleet the polls of that id for a while. Payout events are ignored.
   * The status in the event is shown to pages as it is: pass only what `paykit.webhooks.parse`
   * (which verifies the signature) returned, never a body you did not verify. Anything that is not
   * a parsed event (a raw body, say) is refused with a `TypeError`; a store that fails is reported
   * to `onError`, and the pages of this instance get the status all the same.
   */
  notify(event: WebhookEvent): Promise<void>;
  /** Ends every open stream, stops polling, and closes the default store (a store you passed stays yours to close). */
  close(): Promise<void>;
  /** Open streams and watched payins on this instance. */
  stats(): PaymentStatusStats;
}

/** The default `maxStreams`: what one instance holds open before answering 503. */
export const DEFAULT_MAX_STREAMS = 5_000;
const MAX_TIMER_MS = 2_147_483_647;
// Ids are `pi_` and a ULID; anything far from that is answered 404 without asking the service.
const PAYIN_ID = new RegExp(`^${PAYIN_ID_PREFIX}[A-Za-z0-9_-]{1,100}$`);

function fail(message: string): never {
  throw new PaykitConfigError("INVALID_OPTION", `createPaymentStatus: ${message}`);
}

function integer(name: string, value: unknown, fallback: number, max = MAX_TIMER_MS): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    fail(`${name} must be an integer from 1 to ${max}.`);
  }
  return value;
}

/**
 * The account the client's keys open, by its public key: the endpoint keeps its statuses under it in a
 * shared store, so the store never answers for a payin these keys cannot read.
 */
function accountOf(paykit: Paykit): string {
  const publicKey = (paykit as { toJSON?: () => { publicKey?: unknown } }).toJSON?.().publicKey;
  return typeof publicKey === "string" && publicKey !== ""
    ? publicKey
    : fail("paykit must be a Paykit client.");
}

function isNotFound(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === "NotFoundError";
}

/**
 * The payin a webhook event reports, checked to be one: a raw body, a payout's body or a half-built
 * object reaching `notify` is a mistake to say out loud, not a status to show the pages.
 */
function payinOfEvent(event: WebhookEvent): WebhookEvent["data"] & PaymentStatus {
  const { kind, data } = (event ?? {}) as {
    kind?: unknown;
    data?: Partial<Record<keyof PaymentStatus, unknown>>;
  };
  if (
    kind !== "payin" ||
    typeof data !== "object" ||
    data === null ||
    typeof data.id !== "string" ||
    !PAYIN_ID.test(data.id) ||
    typeof data.status !== "string" ||
    typeof data.paymentMethod !== "string" ||
    typeof data.updatedAt !== "string" ||
    !Number.isFinite(Date.parse(data.updatedAt))
  ) {
    throw new TypeError(
      "createPaymentStatus: notify takes the payin event paykit.webhooks.parse returned (verified), not a raw body or a hand-made object.",
    );
  }
  return data as WebhookEvent["data"] & PaymentStatus;
}

/**
 * The payment-status endpoint a checkout page watches until its payin is final: `handler` answers the
 * page (JSON, or server-sent events), `notify` takes each verified webhook event, `close` ends it.
 * Every instance polls the service for a watched payin only when the store says no other instance
 * did and no webhook arrived lately. The page's side is `@paykit/browser`'s checkout watcher.
 *
 * @example
 * ```ts
 * import { createPaymentStatus } from "@paykit/node/checkout";
 *
 * const paymentStatus = createPaymentStatus({
 *   paykit,
 *   authorize: async (request, payinId) => (await sessionOf(request)).payinIds.includes(payinId),
 * });
 * app.get("/payment-status", (c) => paymentStatus.handler(c.req.raw)); // Hono
 * // in the webhook receiver, after verifying: await paymentStatus.notify(event);
 * ```
 */
export function createPaymentStatus(options: PaymentStatusOptions): PaymentStatusEndpoint {
  const { paykit, authorize } = options ?? ({} as PaymentStatusOptions);
  if (typeof authorize !== "function") {
    fail("authorize is required: (request, payinId) => boolean, true when this shopper may see this payin.");
  }
  if (typeof paykit?.payins?.retrieve !== "function") fail("paykit must be a Paykit client.");
  const fields = checkFields(options.fields) ?? fail(`fields may name only "amount" and "referenceId".`);
  const initialMs = integer("pollIntervalMs", options.pollIntervalMs, DEFAULT_POLL_SCHEDULE.initialMs);
  const maxMs = integer("maxPollIntervalMs", options.maxPollIntervalMs, DEFAULT_POLL_SCHEDULE.maxMs);
  const schedule: PollSchedule = { initialMs, maxMs: Math.max(initialMs, maxMs) };
  const maxStreams = integer("maxStreams", options.maxStreams, DEFAULT_MAX_STREAMS, 1_000_000);
  const retryMs = integer("retryMs", options.retryMs, 3_000);
  const keepAliveMs = integer("keepAliveMs", options.keepAliveMs, 15_000);
  const storeTimeoutMs = integer("storeTimeoutMs", options.storeTimeoutMs, 2_000);
  const ownStore = options.store === undefined;
  const merchantStore = options.store ?? memoryStatusStore();
  const onError = options.onError ?? (() => undefined);
  /** Tells the merchant; a logger that throws must not fail a page or a poll. */
  const report = (error: unknown): void => {
    try {
      onError(error);
    } catch {
      // ignored, as documented
    }
  };
  const store = new GuardedStore(merchantStore, {
    scope: `${accountOf(paykit)}:`,
    timeoutMs: storeTimeoutMs,
    report,
    listener: (status) => announce(publicStatus(status, fields)),
  });
  const hub = statusHubOf(paykit.payins);
  const retryAfterSeconds = Math.max(1, Math.ceil(retryMs / 1000));
  /** The reads of the service in flight, by payin id: pages opening together share one. */
  const reads = new Map<string, Promise<PublicPaymentStatus>>();
  let closed = false;

  const watchers = new Watchers({ schedule, keepAliveMs, poll: pollPayin });

  /** A status for the pages here and the client's `waitForFinal`s, from any source. */
  function announce(status: PublicPaymentStatus): void {
    watchers.deliver(status);
    hub.publish(status);
  }

  /**
   * Reads the payin from the service (one read per id at a time on this instance) and shares what it
   * says: here at once, other instances through the store (this one again too: streams skip repeats).
   */
  function readPayin(id: string): Promise<PublicPaymentStatus> {
    let read = reads.get(id);
    if (read === undefined) {
      read = paykit.payins
        .retrieve(id)
        .then((payin) => {
          const status = publicStatus(payin, fields);
          announce(status);
          void store.publish(status, {}); // bounded, and a failure only skips sharing (reported)
          return status;
        })
        .finally(() => reads.delete(id));
      reads.set(id, read);
    }
    return read;
  }

  /** One poll of a watched payin, when the store gives this instance the turn; a `Retry-After` comes back. */
  async function pollPayin(id: string, intervalMs: number): Promise<number | undefined> {
    // A store that is down or slow gives every instance the turn: each polls for itself rather than nobody.
    const turn = await store.claimPoll(id, intervalMs);
    if (!turn || closed) return undefined;
    try {
      await readPayin(id);
      return undefined;
    } catch (error) {
      report(error);
      return retryAfterOf(error);
    }
  }

  /** The status to answer a JSON request with: the shared one while fresh, else one read (per window). */
  async function currentStatus(id: string): Promise<PublicPaymentStatus> {
    const known = await store.latest(id);
    if (known && isFinalStatus(known.status)) return publicStatus(known, fields);
    if (known && !(await store.claimPoll(id, schedule.initialMs))) return publicStatus(known, fields);
    try {
      return await readPayin(id);
    } catch (error) {
      if (known && !isNotFound(error)) return publicStatus(known, fields);
      throw error;
    }
  }

  async function openStream(request: Request, id: string): Promise<Response> {
    // Updates from the other instances; without them (a store down) the polls keep the stream going.
    await store.listen();
    // Checked again after the awaits: many pages may have passed the first check together.
    if (closed || watchers.openStreams >= maxStreams) return unavailable(retryAfterSeconds);
    const { signal } = request;
    const onAbort = () => stream.close();
    const stream = new StatusStream(id, {
      retryMs,
      lastEventId: request.headers.get("last-event-id"),
      onClose: (ended) => {
        signal.removeEventListener("abort", onAbort);
        watchers.remove(ended);
      },
    });
    // Watched before the first read, so a status published meanwhile is not missed.
    watchers.add(stream);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) stream.close();
    if (stream.closed) return new Response(stream.body, { status: 200, headers: SSE_HEADERS }); // the page left already
    const known = await store.latest(id);
    try {
      stream.offer(known ? publicStatus(known, fields) : await readPayin(id));
    } catch (error) {
      if (isNotFound(error)) {
        stream.close();
        return notFound();
      }
      // The service failed: the stream stays open and the polls go on.
      report(error);
    }
    return new Response(stream.body, { status: 200, headers: SSE_HEADERS });
  }

  async function handler(request: Request): Promise<Response> {
    const method = request.method.toUpperCase();
    if (method !== "GET" && method !== "HEAD") return methodNotAllowed();
    if (closed) return unavailable(retryAfterSeconds);
    // Exactly one id: with two, what authorize was asked about and what is answered could differ.
    const ids = new URL(request.url).searchParams.getAll("id");
    const id = ids.length === 1 ? ids[0] : undefined;
    if (!id) return missingId();
    const stream = method === "GET" && acceptsEventStream(request.headers.get("accept"));
    if (stream && watchers.openStreams >= maxStreams) return unavailable(retryAfterSeconds);
    if (!PAYIN_ID.test(id) || !(await authorize(request, id))) return notFound();
    if (stream) return openStream(request, id);
    let response: Response;
    try {
      response = json(await currentStatus(id));
    } catch (error) {
      response = isNotFound(error) ? notFound() : providerError();
      if (!isNotFound(error)) report(error);
    }
    return method === "HEAD" ? withoutBody(response) : response;
  }

  async function notify(event: WebhookEvent): Promise<void> {
    if ((event as { kind?: unknown } | null)?.kind === "payout") return;
    const status = publicStatus(payinOfEvent(event), fields);
    announce(status);
    // Fresh for the longest poll interval: no instance polls this id meanwhile.
    await store.publish(status, { fresh: true, pollIntervalMs: schedule.maxMs });
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    watchers.closeAll();
    await store.close();
    if (ownStore) await merchantStore.close();
  }

  return {
    handler,
    notify,
    close,
    stats: () => ({ openStreams: watchers.openStreams, watchedPayins: watchers.watchedPayins }),
  };
}
