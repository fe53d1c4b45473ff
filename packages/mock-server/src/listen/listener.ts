// The loop of `paykit-mock listen`: long-polls the sandbox for one account's webhook attempts
// (`POST /_mock/accounts/{id}/listen`), posts each to the developer's local receiver in the order the
// sandbox handed them out, and acknowledges the local answers with the next poll, which the sandbox
// records as those attempts. Long polling rather than server-sent events: each poll is one ordinary
// request, so it goes through every mock process of a shared sandbox, any proxy and the shared sandbox's
// access rules as they are, and a poll whose answer is lost loses nothing (the sandbox hands an
// unanswered attempt out again). See docs/decisions/mock-listen.md.
import { randomUUID } from "node:crypto";
import { accountOf } from "../control/account-of.js";
import { createHttpControl } from "../control/http-client.js";
import { MockControlError } from "../control/mock-control.js";
import { type ListenAck, type ListenAttempt, MAX_LISTEN_WAIT_MS } from "../domain/listeners.js";
import { assertMock, refuseLiveKeys, type TriggerKeys, TriggerRefusedError } from "../scenarios/target.js";
import { FORWARD_TIMEOUT_MS, forwardAttempt } from "./forward.js";

/** What `paykit-mock listen` runs with. */
export interface ListenOptions {
  /** The sandbox (a mock, or any process of a shared sandbox). */
  url: string;
  /** The account's keys: its own deliveries are the only ones it gets. */
  keys: TriggerKeys;
  /** The mock's admin token, when its control API needs one and the keys do not authorize (not `--shared`). */
  adminToken?: string;
  /** The local receiver each delivery is posted to. */
  forwardTo: string;
  /** Only these events (`payin.approved`, `payout.*`); the others go to their URL as without a listener. */
  events?: string[];
  /** HTTP client. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Stops the loop: the sandbox is told, and the account's deliveries go to their URL again. */
  signal?: AbortSignal;
  /** How long the local receiver has to answer, in ms. @default 10000 */
  forwardTimeoutMs?: number;
  /** How long one poll waits for an attempt, in ms. @default 25000 */
  waitMs?: number;
  /** Reads the account's webhook signing secret at start, for `ready` (`--print-secret`). */
  withSecret?: boolean;
}

/** One delivery posted to the local receiver. */
export interface ListenedDelivery {
  /** Real time of the answer, ISO 8601. */
  at: string;
  event: string;
  resourceId: string;
  /** The resource status the event reports. */
  status: string;
  webhookId: string;
  deliveryId: string;
  /** The local receiver's HTTP status; null when none came. */
  statusCode: number | null;
  /** Why no status came; null otherwise. */
  error: string | null;
  latencyMs: number;
}

/** What the loop reports as it goes. */
export interface ListenReport {
  /**
   * Attached: from now on the account's deliveries come to this listener. `webhookSecret` with
   * `withSecret` (null: the account's deliveries are unsigned).
   */
  ready(info: { accountId: string; listener: string; webhookSecret?: string | null }): void;
  /** A delivery posted to the local receiver. */
  delivery(delivery: ListenedDelivery): void;
  /** The sandbox could not be reached (once per outage), or was reached again. */
  connection(state: "lost" | "back", detail: string): void;
}

/** The listener stopped for good: another listener took the account over, or its account is gone. */
export class ListenStoppedError extends Error {
  override readonly name = "ListenStoppedError";
}

/** How much longer than its wait a poll may take before it is given up, in ms. */
const POLL_GRACE_MS = 20_000;
/** How long the goodbye to the sandbox may take when the listener stops, in ms. */
const DETACH_TIMEOUT_MS = 3_000;
/** Pause between two polls that failed, growing to the last one. */
const BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000];
/** Attempts remembered once forwarded, so one handed out again (a lost answer) is not posted twice. */
const REMEMBERED = 1_000;

/**
 * Runs the listener until `signal` aborts (resolves) or it is stopped for good (rejects with
 * {@link ListenStoppedError}, or {@link TriggerRefusedError} when the sandbox or keys are refused at start).
 */
export async function runListener(options: ListenOptions, report: ListenReport): Promise<void> {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const url = options.url.replace(/\/$/, "");
  refuseLiveKeys(options.keys);
  await assertMock(url, doFetch);
  const signal = options.signal;
  const waitMs = options.waitMs ?? MAX_LISTEN_WAIT_MS;
  const reach = {
    url,
    credentials: options.keys,
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
  };
  // A poll is cut when the listener stops, and when no answer came long after its wait (a sandbox
  // stopped with SIGSTOP answers nothing, and its socket stays open).
  const control = createHttpControl({
    ...reach,
    fetch: (input, init) =>
      doFetch(input, {
        ...init,
        signal: AbortSignal.any([
          AbortSignal.timeout(waitMs + POLL_GRACE_MS),
          ...(signal === undefined ? [] : [signal]),
        ]),
      }),
  });
  const accountId = await findAccount({ url, fetch: doFetch }, options.keys);
  const listener = `lst_${randomUUID().replaceAll("-", "")}`;
  const webhookSecret = options.withSecret
    ? (await control.webhookSecret(accountId)).webhookSecret
    : undefined;

  let acks: ListenAck[] = [];
  const forwarded = new Map<string, ListenAck>();
  // Attempts being posted now, by id. They are posted side by side, each answer acknowledged in the
  // next poll, which goes at once: the sandbox gives an attempt the receiver's timeout from the moment
  // it hands it out, so an answer must not wait for the rest of its batch. Side by side keeps each
  // resource's order: the sandbox hands out a resource's next event only once this one is answered.
  const posting = new Map<string, Promise<void>>();
  let answered: () => void = () => {};
  signal?.addEventListener("abort", () => answered(), { once: true });
  let failures = 0;
  let attached = false;
  while (!signal?.aborted) {
    let attempts: ListenAttempt[];
    const sending = acks.length;
    try {
      const answer = await control.listen(accountId, {
        listener,
        acks: acks.slice(0, sending),
        ...(options.events ? { events: options.events } : {}),
        // the first poll attaches and answers at once, so `ready` means deliveries come here; while
        // answers are due, a poll only takes what came meanwhile
        waitMs: attached && posting.size === 0 ? waitMs : 0,
      });
      if (!attached) {
        attached = true;
        report.ready({ accountId, listener, ...(webhookSecret === undefined ? {} : { webhookSecret }) });
      }
      // the answers that came during this poll go with the next one
      acks = acks.slice(sending);
      if (failures > 0) report.connection("back", url);
      failures = 0;
      if (answer.takenOver)
        throw new ListenStoppedError(
          `another paykit-mock listen took over account ${accountId}'s deliveries: one listener per account at a time`,
        );
      attempts = answer.attempts;
    } catch (error) {
      if (signal?.aborted) break;
      if (error instanceof ListenStoppedError) throw error;
      if (error instanceof MockControlError && error.status === 404)
        throw new ListenStoppedError(`account ${accountId} no longer exists on ${url}`);
      if (error instanceof MockControlError && (error.status === 401 || error.status === 403))
        throw new ListenStoppedError(
          `the sandbox refused these keys for account ${accountId}: ${error.message}`,
        );
      // the sandbox is restarting, failing over, or out of reach: the acks are kept for the next poll
      if (failures === 0) report.connection("lost", describe(error));
      failures += 1;
      await pause(BACKOFF_MS[Math.min(failures, BACKOFF_MS.length) - 1] ?? 5_000, signal);
      continue;
    }
    for (const attempt of attempts) {
      const known = forwarded.get(attempt.attemptId);
      if (known !== undefined) {
        acks.push(known);
        continue;
      }
      if (posting.has(attempt.attemptId)) continue;
      const post = forwardAttempt(
        attempt,
        options.forwardTo,
        doFetch,
        options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS,
      ).then(({ ack, latencyMs }) => {
        posting.delete(attempt.attemptId);
        acks.push(ack);
        remember(forwarded, ack);
        report.delivery({
          at: new Date().toISOString(),
          event: attempt.event,
          resourceId: attempt.resourceId,
          status: attempt.status,
          webhookId: attempt.webhookId,
          deliveryId: attempt.deliveryId,
          statusCode: ack.statusCode,
          error: ack.error,
          latencyMs,
        });
        answered();
      });
      posting.set(attempt.attemptId, post);
    }
    // nothing to acknowledge yet: the next poll goes with the first answer
    if (acks.length === 0 && posting.size > 0 && !signal?.aborted)
      await new Promise<void>((resolve) => {
        answered = resolve;
      });
  }
  // the answers under way are recorded too (each is bounded by the receiver's timeout)
  await Promise.all(posting.values());
  // Stopped: the last answers are recorded, and the account's deliveries go to their URL again.
  const last = createHttpControl({
    ...reach,
    fetch: (input, init) => doFetch(input, { ...init, signal: AbortSignal.timeout(DETACH_TIMEOUT_MS) }),
  });
  await last.listen(accountId, { listener, acks, detach: true }).catch(() => {});
}

async function findAccount(
  reach: { url: string; fetch: typeof fetch },
  keys: ListenOptions["keys"],
): Promise<string> {
  try {
    const view = await accountOf(reach, keys);
    if (view === undefined)
      throw new TriggerRefusedError(
        `no account of the mock at ${reach.url} has the public key ${keys.publicKey} with that secret key`,
      );
    return view.accountId;
  } catch (error) {
    if (error instanceof MockControlError)
      throw new TriggerRefusedError(
        `the mock at ${reach.url} refused to read the account of these keys (${error.status} ${error.code}: ${error.message})`,
      );
    throw error;
  }
}

function remember(forwarded: Map<string, ListenAck>, ack: ListenAck): void {
  forwarded.set(ack.attemptId, ack);
  if (forwarded.size > REMEMBERED) forwarded.delete(forwarded.keys().next().value as string);
}

function describe(error: unknown): string {
  if (error instanceof MockControlError) return `${error.status} ${error.code}: ${error.message}`;
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return cause ?? (error instanceof Error ? error.message : String(error));
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
