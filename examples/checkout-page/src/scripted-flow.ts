import type { Demo } from "./demo.js";
import type { MerchantUpdate } from "./orders.js";
import { DEMO_CARDS, DEMO_PAYOUT_KEY } from "./sample-data.js";

/** What the headless run did, for its test and its closing lines. */
export interface FlowSummary {
  /** Payin id and final status, per payment method. */
  payins: Record<"PIX" | "BOLETO" | "CREDIT_CARD" | "OPEN_FINANCE", { id: string; status: string }>;
  /** The statuses the shopper's status stream sent for the PIX, in order, until it ended. */
  pixStatusStream: string[];
  /** The payout that was created and completed. */
  payout: { id: string; status: string };
  /** `meta.total` of the payout list at the end. */
  payoutsListed: number;
  /** Webhooks the backend verified and applied during the run. */
  webhooksApplied: number;
}

/** How long one step may wait for a webhook before the run fails, in ms. */
const WEBHOOK_WAIT_MS = 20_000;

class ApiFailure extends Error {
  override readonly name = "ApiFailure";
}

/** The shopper's session cookie (`sid=…`), which the backend sets with the first order. */
interface Session {
  cookie?: string;
}

async function call<T>(
  url: string,
  init?: { method?: string; body?: unknown; session?: Session },
): Promise<T> {
  const cookie = init?.session?.cookie;
  const response = await fetch(url, {
    method: init?.method ?? (init?.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init?.body === undefined ? {} : { "content-type": "application/json" }),
      ...(cookie ? { cookie } : {}),
    },
    body: init?.body === undefined ? null : JSON.stringify(init.body),
  });
  const started = response.headers.getSetCookie()[0];
  if (init?.session && started) init.session.cookie = started.split(";")[0];
  const text = await response.text();
  const body = text ? (JSON.parse(text) as unknown) : null;
  if (!response.ok) {
    const { code, message } = (body ?? {}) as { code?: string; message?: string };
    throw new ApiFailure(
      `${init?.method ?? "GET"} ${new URL(url).pathname} → ${response.status} ${code}: ${message}`,
    );
  }
  return body as T;
}

/**
 * Opens the status stream a checkout page follows (`GET /payment-status?id=…` as server-sent events, with
 * the shopper's cookie) and answers, once it has ended, the statuses it sent.
 */
async function followStatus(url: string, session: Session): Promise<() => Promise<string[]>> {
  const response = await fetch(url, {
    headers: { accept: "text/event-stream", cookie: session.cookie ?? "" },
    signal: AbortSignal.timeout(WEBHOOK_WAIT_MS),
  });
  if (!response.ok) throw new ApiFailure(`GET ${new URL(url).pathname} → ${response.status}`);
  // The server ends the stream after the final status: the whole text is there once it did.
  return async () =>
    (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => (JSON.parse(line.slice(6)) as { status: string }).status);
}

/**
 * Runs one step and reports it: a `▶` line when it starts, a progress line every second while it
 * waits (CI logs show a long step is alive), and `✔` with what it produced and how long it took.
 */
async function step<T>(
  out: (line: string) => void,
  title: string,
  run: () => Promise<T>,
  done: (result: T) => string,
) {
  out(`▶ ${title}`);
  const started = performance.now();
  const ticker = setInterval(() => out(`  … ${((performance.now() - started) / 1000).toFixed(0)} s`), 1000);
  try {
    const result = await run();
    out(`  ✔ ${done(result)} (${Math.round(performance.now() - started)} ms)`);
    return result;
  } finally {
    clearInterval(ticker);
  }
}

/**
 * The whole merchant flow, headless: each payin kind, the PIX paid and its webhook verified, the open
 * finance payin authorized, a payout created and completed, the payouts listed. It drives the merchant
 * backend's own HTTP API (as the checkout page does) and the mock's control API (as the payer would).
 */
export async function runScriptedFlow(
  demo: Demo,
  out: (line: string) => void = console.log,
): Promise<FlowSummary> {
  const api = (path: string) => `${demo.backend.url}${path}`;
  const control = (path: string) => `${demo.mockUrl}/_mock/${path}`;
  let webhooksApplied = 0;
  const stopCounting = demo.backend.orders.subscribe((u) => {
    if (u.type === "payout" || u.via === "webhook") webhooksApplied += 1;
  });
  const webhook = (test: (u: MerchantUpdate) => boolean) =>
    demo.backend.orders.waitFor(test, AbortSignal.timeout(WEBHOOK_WAIT_MS)).catch((error: unknown) => {
      throw new Error(`no webhook reached the backend within ${WEBHOOK_WAIT_MS / 1000} s`, { cause: error });
    });
  const payinApproved = (id: string) => (u: MerchantUpdate) =>
    u.type === "payin" && u.order.payinId === id && u.order.status === "APPROVED";

  type Created = { payin: Record<string, unknown> & { id: string; status: string } };
  // One shopper places every order: the backend starts the session with the first one.
  const session: Session = {};
  const create = (method: string, extra: object = {}) =>
    call<Created>(api("/api/payins"), { body: { method, ...extra }, session });

  try {
    const pix = await step(
      out,
      "Create a PIX payin",
      () => create("PIX"),
      ({ payin }) => {
        const code = (payin.pix as { qrcode: string }).qrcode;
        return `${payin.id} ${payin.status}; BR Code ${code.slice(0, 24)}… (${code.length} chars, the page draws its QR)`;
      },
    );
    const boleto = await step(
      out,
      "Create a BOLETO payin",
      () => create("BOLETO"),
      ({ payin }) => {
        const { barcode, url } = payin.boleto as { barcode: string; url: string };
        return `${payin.id} ${payin.status}; line ${barcode}, PDF ${url}`;
      },
    );
    const card = await step(
      out,
      "Create a CREDIT_CARD payin (approved at once)",
      () =>
        create("CREDIT_CARD", {
          card: {
            holderName: "MARIA SANTOS",
            number: DEMO_CARDS.approved,
            expirationMonth: "12",
            expirationYear: String(new Date().getFullYear() + 3),
            cvv: "123",
            installments: 1,
          },
        }),
      ({ payin }) => `${payin.id} ${payin.status}`,
    );
    const openFinance = await step(
      out,
      "Create an OPEN_FINANCE payin",
      () => create("OPEN_FINANCE"),
      ({ payin }) => `${payin.id} ${payin.status}; bank authorization at ${payin.openFinanceRedirectUrl}`,
    );

    const pixPaid = await step(
      out,
      "Pay the PIX (mock control API): its webhook, then the shopper's status stream",
      async () => {
        const statuses = await followStatus(api(`/payment-status?id=${pix.payin.id}`), session);
        const arrived = webhook(payinApproved(pix.payin.id));
        await call(api(`/api/dev/payins/${pix.payin.id}/pay`), { body: {} });
        return { update: await arrived, stream: await statuses() };
      },
      ({ update, stream }) =>
        `webhook verified on ${demo.backend.webhookUrl}: ${pix.payin.id} → ${update.type === "payin" && update.order.status}; ` +
        `the page's stream at /payment-status sent ${stream.join(" → ")} and ended`,
    );

    const ofAuthorized = await step(
      out,
      "Authorize the OPEN_FINANCE payin at the mock bank",
      async () => {
        const arrived = webhook(payinApproved(openFinance.payin.id));
        await call(control(`payins/${openFinance.payin.id}/authorize`), { body: { approve: true } });
        return arrived;
      },
      (u) => `webhook verified: ${openFinance.payin.id} → ${u.type === "payin" && u.order.status}`,
    );

    const payout = await step(
      out,
      "Create a payout of R$ 50,00 to a PIX key",
      () =>
        call<{ id: string; status: string; referenceId: string }>(api("/api/payouts"), {
          body: { amount: 5_000, ...DEMO_PAYOUT_KEY, referenceId: `demo_payout_${Date.now().toString(36)}` },
        }),
      (p) => `${p.id} ${p.status} (referenceId ${p.referenceId})`,
    );
    const completed = await step(
      out,
      "Advance the payout to COMPLETED and wait for its webhook",
      async () => {
        const arrived = webhook(
          (u) => u.type === "payout" && u.payoutId === payout.id && u.status === "COMPLETED",
        );
        const processing = await call<{ status: string }>(control(`payouts/${payout.id}/advance`), {
          body: {},
        });
        out(`  · ${payout.id} → ${processing.status}`);
        await call(control(`payouts/${payout.id}/advance`), { body: {} });
        return arrived;
      },
      (u) => `webhook verified: ${payout.id} → ${u.type === "payout" && u.status}`,
    );

    const list = await step(
      out,
      "List payouts (newest first, page 1)",
      () =>
        call<{
          data: { id: string; status: string; amount: number }[];
          meta: { total: number; totalPages: number };
        }>(api("/api/payouts?page=1&limit=5")),
      (l) =>
        `${l.meta.total} payout(s) in ${l.meta.totalPages} page(s): ${l.data.map((p) => `${p.id} ${p.status} ${p.amount}`).join(", ")}`,
    );

    return {
      payins: {
        PIX: {
          id: pix.payin.id,
          status: pixPaid.update.type === "payin" ? pixPaid.update.order.status : "?",
        },
        BOLETO: { id: boleto.payin.id, status: boleto.payin.status },
        CREDIT_CARD: { id: card.payin.id, status: card.payin.status },
        OPEN_FINANCE: {
          id: openFinance.payin.id,
          status: ofAuthorized.type === "payin" ? ofAuthorized.order.status : "?",
        },
      },
      pixStatusStream: pixPaid.stream,
      payout: { id: payout.id, status: completed.type === "payout" ? completed.status : "?" },
      payoutsListed: list.meta.total,
      webhooksApplied,
    };
  } finally {
    stopCounting();
  }
}
