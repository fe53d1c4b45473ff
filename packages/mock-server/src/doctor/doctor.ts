import {
  PayinWebhookBody,
  PayoutWebhookBody,
  WEBHOOK_HEADERS,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_TOLERANCE_SECONDS,
} from "@paykit/contract";
import { Webhook } from "standardwebhooks";
import * as z from "zod/mini";
import { UlidFactory } from "../domain/ids.js";

/** One case of the webhook doctor's battery and its verdict. */
export interface DoctorCase {
  /** The case name (`valid-payin`, `tampered-body`…). */
  name: string;
  /** Whether the case counts toward the exit status; informative cases never fail the run. */
  required: boolean;
  /** Whether the receiver behaved as expected (informative cases: as far as could be told). */
  passed: boolean;
  /** What a safe receiver answers. */
  expected: string;
  /** What came back. */
  got: string;
  /** How to fix the receiver when the case fails; empty when it passed. */
  fix: string;
}

/** The doctor's report: every case, in the order run. */
export interface DoctorReport {
  cases: DoctorCase[];
  /** True when every required case passed. */
  ok: boolean;
}

/** Options of {@link runWebhookDoctor}. */
export interface WebhookDoctorOptions {
  /** The receiver's URL. */
  url: string;
  /** The receiver's signing secret (`whsec_…`). */
  secret: string;
  /** How long to wait for each answer; the mock's delivery timeout (10 s) unless given. */
  timeoutMs?: number;
  /** `GET <stateUrl>?id=<payout id>` answers `{ "status" }`: makes `out-of-order` checkable. */
  stateUrl?: string;
  /** The `fetch` to send with (tests inject one); global `fetch` otherwise. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

interface Answer {
  status: number | null;
  ms: number;
  error: string | null;
}

const ids = new UlidFactory();
const IN_PROGRESS_GAP_MS = 100;

/**
 * Sends a receiver the battery of deliveries a safe webhook endpoint must handle (valid payin and
 * payout events, duplicates, tampered and badly signed deliveries, out-of-order events…) signed as the
 * mock signs them, and reports each case with what was expected, what came back and the fix.
 */
export async function runWebhookDoctor(options: WebhookDoctorOptions): Promise<DoctorReport> {
  const url = z.parse(z.url({ protocol: /^https?$/ }), options.url, {
    error: () => "url must be an http(s) URL",
  });
  if (!/^whsec_[A-Za-z0-9+/=]+$/.test(options.secret)) throw new TypeError("secret must be a whsec_… secret");
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new TypeError("timeoutMs must be a positive integer");
  const doFetch = options.fetch ?? fetch;
  const signer = new Webhook(options.secret);
  const wrongSigner = new Webhook(
    `whsec_${Buffer.from("not-the-receiver-secret-32-bytes").toString("base64")}`,
  );
  const times: number[] = [];

  const send = async (
    body: string,
    o: {
      id?: string;
      at?: number;
      signWith?: Webhook | null;
      signedBody?: string;
      contentType?: string;
    } = {},
  ): Promise<Answer> => {
    const id = o.id ?? `msg_${ids.next(Date.now())}`;
    const seconds = o.at ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      "content-type": o.contentType ?? "application/json",
      "user-agent": "paykit-mock-doctor/0.1",
      [WEBHOOK_HEADERS.id]: id,
      [WEBHOOK_HEADERS.timestamp]: String(seconds),
    };
    const s = o.signWith === undefined ? signer : o.signWith;
    if (s) headers[WEBHOOK_HEADERS.signature] = s.sign(id, new Date(seconds * 1000), o.signedBody ?? body);
    const started = performance.now();
    try {
      const response = await doFetch(url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.arrayBuffer().catch(() => undefined);
      const ms = performance.now() - started;
      times.push(ms);
      return { status: response.status, ms, error: null };
    } catch (cause) {
      const ms = performance.now() - started;
      times.push(ms);
      const e = cause as Error;
      const error =
        e?.name === "TimeoutError" || e?.name === "AbortError"
          ? `no answer within ${timeoutMs} ms`
          : String(e?.message);
      return { status: null, ms, error };
    }
  };

  const cases: DoctorCase[] = [];
  const add = (
    name: string,
    required: boolean,
    passed: boolean,
    expected: string,
    got: string,
    fix: string,
  ) => cases.push({ name, required, passed, expected, got, fix: passed ? "" : fix });
  const describe = (a: Answer) =>
    a.status === null ? (a.error ?? "no answer") : `${a.status} in ${Math.round(a.ms)} ms`;
  const is2xx = (a: Answer) => a.status !== null && a.status >= 200 && a.status < 300;
  const is4xx = (a: Answer) => a.status !== null && a.status >= 400 && a.status < 500;

  const payin = JSON.stringify(samplePayinEvent("PAID"));
  const payoutId = `po_${ids.next(Date.now())}`;
  const payout = JSON.stringify(samplePayoutEvent(payoutId, "COMPLETED"));

  const validPayin = await send(payin);
  add(
    "valid-payin",
    true,
    is2xx(validPayin),
    `2xx within ${timeoutMs} ms`,
    describe(validPayin),
    "verify with the whsec_ secret over the raw body and answer 2xx once the event is stored",
  );
  const payoutDeliveryId = `msg_${ids.next(Date.now())}`;
  const validPayout = await send(payout, { id: payoutDeliveryId });
  add(
    "valid-payout",
    true,
    is2xx(validPayout),
    `2xx within ${timeoutMs} ms`,
    describe(validPayout),
    "accept payout events as well as payin events (a payout body has pixKey, a payin body paymentMethod)",
  );
  const again = await send(payout, { id: payoutDeliveryId });
  add(
    "duplicate",
    true,
    is2xx(again),
    "2xx: a redelivery of a handled event is acknowledged without acting twice",
    describe(again),
    "deduplicate on webhook-id and answer 2xx to a delivery already handled, or the mock retries it for days",
  );

  const concurrentBody = JSON.stringify(samplePayinEvent("PAID"));
  const concurrentId = `msg_${ids.next(Date.now())}`;
  const [first, second] = await Promise.all([
    send(concurrentBody, { id: concurrentId }),
    send(concurrentBody, { id: concurrentId }),
  ]);
  const bothAcked = is2xx(first) && is2xx(second);
  // One copy acknowledged while the other was still running: their answers came well apart. Two
  // answers close together mean the receiver is too fast (or serialises) for the doctor to tell.
  const gap = Math.abs(first.ms - second.ms);
  const overlapped = gap >= IN_PROGRESS_GAP_MS;
  add(
    "in-progress-duplicate",
    !bothAcked || overlapped,
    !(bothAcked && overlapped),
    "not both 2xx while the first is handled (answer 409 to the second)",
    bothAcked && !overlapped
      ? `both 2xx, ${Math.round(gap)} ms apart: too fast to tell (informative)`
      : `${describe(first)}; ${describe(second)}`,
    "claim the webhook-id before handling and answer 409 to a delivery whose first copy is still running",
  );

  const tamperedSigned = JSON.stringify(samplePayinEvent("PAID", 1000));
  const tampered = await send(tamperedSigned.replace('"amount":1000', '"amount":1'), {
    signedBody: tamperedSigned,
  });
  add("tampered-body", true, is4xx(tampered), "4xx", describe(tampered), FIX_VERIFY);
  const wrong = await send(payin, { signWith: wrongSigner });
  add("wrong-secret", true, is4xx(wrong), "4xx", describe(wrong), FIX_VERIFY);
  const unsigned = await send(payin, { signWith: null });
  add(
    "unsigned",
    true,
    is4xx(unsigned),
    "4xx",
    describe(unsigned),
    "reject deliveries without a webhook-signature header; never skip verification when the secret is unset",
  );
  const now = Math.floor(Date.now() / 1000);
  const stale = await send(payin, { at: now - 600 });
  add(
    "stale-timestamp",
    true,
    is4xx(stale),
    `4xx (webhook-timestamp 10 minutes old, tolerance ${WEBHOOK_TOLERANCE_SECONDS} s)`,
    describe(stale),
    FIX_TIME,
  );
  const future = await send(payin, { at: now + 600 });
  add(
    "future-timestamp",
    true,
    is4xx(future),
    "4xx (webhook-timestamp 10 minutes ahead)",
    describe(future),
    FIX_TIME,
  );

  const orderId = `po_${ids.next(Date.now())}`;
  const completed = await send(JSON.stringify(samplePayoutEvent(orderId, "COMPLETED", 1)));
  const processing = await send(JSON.stringify(samplePayoutEvent(orderId, "PROCESSING", 2)));
  const orderOk = is2xx(completed) && is2xx(processing);
  let held: string | null = null;
  if (options.stateUrl !== undefined) {
    try {
      const stateUrl = new URL(options.stateUrl);
      stateUrl.searchParams.set("id", orderId);
      const r = await doFetch(stateUrl.toString(), { signal: AbortSignal.timeout(timeoutMs) });
      const json = (await r.json()) as { status?: unknown };
      held = typeof json.status === "string" ? json.status : `no status (${r.status})`;
    } catch (cause) {
      held = `state URL failed: ${(cause as Error).message}`;
    }
  }
  add(
    "out-of-order",
    options.stateUrl !== undefined,
    orderOk && (held === null || held === "COMPLETED"),
    options.stateUrl === undefined
      ? "2xx to both (informative: pass --state-url to check the status kept)"
      : "2xx to both, and the receiver still holds COMPLETED",
    `${describe(completed)}; ${describe(processing)}${held === null ? "" : `; state: ${held}`}`,
    "order events by updatedAt and never move a resource back from a final status",
  );

  const charset = await send(payin, { contentType: "application/json; charset=utf-8" });
  add(
    "charset-content-type",
    true,
    is2xx(charset),
    "2xx to Content-Type: application/json; charset=utf-8",
    describe(charset),
    "match the media type, not the whole Content-Type header",
  );

  const slowest = Math.max(...times);
  add(
    "response-time",
    true,
    slowest < timeoutMs,
    `every answer within the ${timeoutMs} ms delivery timeout`,
    `slowest ${Math.round(slowest)} ms`,
    "acknowledge fast (store the event, answer 2xx) and do slow work afterwards",
  );
  return { cases, ok: cases.every((c) => !c.required || c.passed) };
}

const FIX_VERIFY =
  "verify webhook-signature with the whsec_ secret over the raw request bytes before parsing or acting on the body";
const FIX_TIME =
  "reject a webhook-timestamp more than 5 minutes from now (standardwebhooks' verify does this)";

function samplePayinEvent(status: string, amount = 1990): PayinWebhookBody {
  return z.parse(PayinWebhookBody, {
    id: `pi_${ids.next(Date.now())}`,
    status,
    paymentMethod: "PIX",
    amount,
    referenceId: `doctor-${ids.next(Date.now())}`,
    customer: { name: "Maria Silva", email: "maria@example.com" },
    updatedAt: new Date().toISOString(),
  });
}

function samplePayoutEvent(id: string, status: string, secondsAgo = 0): PayoutWebhookBody {
  const at = new Date(Date.now() - secondsAgo * 1000).toISOString();
  return z.parse(PayoutWebhookBody, {
    id,
    externalId: null,
    status,
    amount: 5000,
    currency: "BRL",
    pixKey: "maria@example.com",
    pixKeyType: "EMAIL",
    referenceId: `doctor-${ids.next(Date.now())}`,
    beneficiaryName: "Maria Silva",
    beneficiaryDocument: "52998224725",
    feeAmount: 100,
    netAmount: 4900,
    failureCode: null,
    createdAt: at,
    updatedAt: at,
  });
}

/** Renders a report as text, one line per case with the fix under a failed one. */
export function formatDoctorReport(report: DoctorReport): string {
  const lines = report.cases.map((c) => {
    const mark = !c.required ? "INFO" : c.passed ? "PASS" : "FAIL";
    const fix = c.fix ? `\n        fix: ${c.fix}` : "";
    return `${mark}  ${c.name}: expected ${c.expected}; got ${c.got}${fix}`;
  });
  lines.push(report.ok ? "All required cases pass." : "Some required cases fail.");
  return `${lines.join("\n")}\n`;
}
