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
import {
  type Answer,
  describeAnswer,
  firstLineOf,
  fixForAcknowledged,
  fixForInProgress,
  fixForRefused,
  is2xx,
  is4xx,
} from "./hints.js";
import { fixForRawBytes, RAW_BYTES_CASES } from "./raw-bytes.js";

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

const ids = new UlidFactory();
const IN_PROGRESS_GAP_MS = 100;
/** How many times the in-progress case is sent before two 2xx answers count as a failure. */
const IN_PROGRESS_TRIES = 3;

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
      const firstLine = firstLineOf(await bodyHead(response));
      const ms = performance.now() - started;
      times.push(ms);
      return { status: response.status, ms, error: null, firstLine };
    } catch (cause) {
      const ms = performance.now() - started;
      times.push(ms);
      const e = cause as Error;
      const error =
        e?.name === "TimeoutError" || e?.name === "AbortError"
          ? `no answer within ${timeoutMs} ms`
          : String(e?.message);
      return { status: null, ms, error, firstLine: "" };
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
  const describe = describeAnswer;
  const acked = (a: Answer, usual: string) => fixForAcknowledged(a, url, usual);
  const refused = (a: Answer, usual: string) => fixForRefused(a, url, usual);

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
    acked(
      validPayin,
      "verify with the whsec_ secret over the raw body and answer 2xx once the event is stored",
    ),
  );
  // The same kind of event in bytes a re-serialization changes: each must verify as sent.
  for (const bytes of RAW_BYTES_CASES) {
    const event = samplePayinEvent("PAID", 1990, {
      name: "João Conceição",
      email: "joao.conceicao@exemplo.com.br",
      referenceId: `pedido/2026/${ids.next(Date.now())}`,
    });
    const answer = await send(bytes.write(event));
    add(
      bytes.name,
      true,
      is2xx(answer),
      `2xx to a well-signed delivery with ${bytes.what}`,
      describe(answer),
      fixForRawBytes(answer, validPayin, url),
    );
  }
  const payoutDeliveryId = `msg_${ids.next(Date.now())}`;
  const validPayout = await send(payout, { id: payoutDeliveryId });
  add(
    "valid-payout",
    true,
    is2xx(validPayout),
    `2xx within ${timeoutMs} ms`,
    describe(validPayout),
    acked(
      validPayout,
      "accept payout events as well as payin events (a payout body has pixKey, a payin body paymentMethod)",
    ),
  );
  const again = await send(payout, { id: payoutDeliveryId });
  add(
    "duplicate",
    true,
    is2xx(again),
    "2xx: a redelivery of a handled event is acknowledged without acting twice",
    describe(again),
    acked(
      again,
      "deduplicate on webhook-id and answer 2xx to a delivery already handled, or the mock retries it for days",
    ),
  );

  // Two copies sent at once. Both 2xx can mean the receiver handled both, or that it finished the first
  // before it even read the second (a busy machine serialises them): only the first is a failure, so
  // that answer is asked again with new events, and fails only if every try gives it.
  let inProgress: ReturnType<typeof inProgressVerdict> | undefined;
  for (let attempt = 0; attempt < IN_PROGRESS_TRIES; attempt++) {
    const concurrentBody = JSON.stringify(samplePayinEvent("PAID"));
    const concurrentId = `msg_${ids.next(Date.now())}`;
    const [first, second] = await Promise.all([
      send(concurrentBody, { id: concurrentId }),
      send(concurrentBody, { id: concurrentId }),
    ]);
    inProgress = inProgressVerdict(first, second, url);
    if (!(is2xx(first) && is2xx(second)) || inProgress[1]) break;
  }
  add("in-progress-duplicate", ...(inProgress as ReturnType<typeof inProgressVerdict>));

  const tamperedSigned = JSON.stringify(samplePayinEvent("PAID", 1000));
  const tampered = await send(tamperedSigned.replace('"amount":1000', '"amount":1'), {
    signedBody: tamperedSigned,
  });
  add("tampered-body", true, is4xx(tampered), "4xx", describe(tampered), refused(tampered, FIX_VERIFY));
  const wrong = await send(payin, { signWith: wrongSigner });
  add("wrong-secret", true, is4xx(wrong), "4xx", describe(wrong), refused(wrong, FIX_VERIFY));
  const unsigned = await send(payin, { signWith: null });
  add(
    "unsigned",
    true,
    is4xx(unsigned),
    "4xx",
    describe(unsigned),
    refused(
      unsigned,
      "reject deliveries without a webhook-signature header; never skip verification when the secret is unset",
    ),
  );
  const now = Math.floor(Date.now() / 1000);
  const stale = await send(payin, { at: now - 600 });
  add(
    "stale-timestamp",
    true,
    is4xx(stale),
    `4xx (webhook-timestamp 10 minutes old, tolerance ${WEBHOOK_TOLERANCE_SECONDS} s)`,
    describe(stale),
    refused(stale, FIX_TIME),
  );
  const future = await send(payin, { at: now + 600 });
  add(
    "future-timestamp",
    true,
    is4xx(future),
    "4xx (webhook-timestamp 10 minutes ahead)",
    describe(future),
    refused(future, FIX_TIME),
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
    orderOk
      ? "order events by updatedAt and never move a resource back from a final status"
      : acked(is2xx(completed) ? processing : completed, "acknowledge both events, older one included"),
  );

  const charset = await send(payin, { contentType: "application/json; charset=utf-8" });
  add(
    "charset-content-type",
    true,
    is2xx(charset),
    "2xx to Content-Type: application/json; charset=utf-8",
    describe(charset),
    charset.status === 415 || charset.status === 400
      ? "match the media type, not the whole Content-Type header"
      : acked(charset, "match the media type, not the whole Content-Type header"),
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

const FIX_CLAIM =
  "claim the webhook-id before handling and answer 409 to a delivery whose first copy is still running";

/**
 * The verdict on two copies of one delivery sent at once: one handles it (2xx), the other hears 409
 * (in progress) and is retried. Both 2xx well apart means the second ran while the first did; both
 * 2xx close together cannot be told apart from a fast receiver (informative). Neither 2xx (two 500s)
 * means the event was not handled at all.
 */
function inProgressVerdict(
  first: Answer,
  second: Answer,
  url: string,
): [required: boolean, passed: boolean, expected: string, got: string, fix: string] {
  const expected = "one 2xx, and 409 to the copy that arrives while the first is handled";
  const got = `${describeAnswer(first)}; ${describeAnswer(second)}`;
  const gap = Math.abs(first.ms - second.ms);
  if (is2xx(first) && is2xx(second)) {
    // Answers close together: the receiver is too fast (or serialises) for the doctor to tell.
    if (gap < IN_PROGRESS_GAP_MS)
      return [
        false,
        true,
        expected,
        `both 2xx, ${Math.round(gap)} ms apart: too fast to tell (informative)`,
        "",
      ];
    return [true, false, expected, got, FIX_CLAIM];
  }
  const other = is2xx(first) ? second : is2xx(second) ? first : null;
  if (other === null) {
    const fix =
      first.status === 409 && second.status === 409
        ? "both copies were answered 409: the one that claims the webhook-id must handle it and answer 2xx"
        : fixForAcknowledged(is2xx(first) || first.status === 409 ? second : first, url, FIX_CLAIM);
    return [true, false, expected, got, fix];
  }
  if (other.status === 409) return [true, true, expected, got, ""];
  return [true, false, expected, got, fixForInProgress(other, url, FIX_CLAIM)];
}

/** At most the first 4 KiB of an answer's body, as text (a receiver's error page can be large). */
async function bodyHead(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < 4096) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // a body cut off midway still has its first line
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text.slice(0, 4096);
}

const FIX_VERIFY =
  "verify webhook-signature with the whsec_ secret over the raw request bytes before parsing or acting on the body";
const FIX_TIME =
  "reject a webhook-timestamp more than 5 minutes from now (standardwebhooks' verify does this)";

function samplePayinEvent(
  status: string,
  amount = 1990,
  who: { name: string; email: string; referenceId: string } = {
    name: "Maria Silva",
    email: "maria@example.com",
    referenceId: `doctor-${ids.next(Date.now())}`,
  },
): PayinWebhookBody {
  return z.parse(PayinWebhookBody, {
    id: `pi_${ids.next(Date.now())}`,
    status,
    paymentMethod: "PIX",
    amount,
    referenceId: who.referenceId,
    customer: { name: who.name, email: who.email },
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
