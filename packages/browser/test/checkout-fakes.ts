// Fakes for the checkout's unit tests under happy-dom: an EventSource the test drives by hand, a fetch that
// answers from a queue and records every request, and the 201 answers of each payment method.
import { vi } from "vitest";
import type { CheckoutPayin } from "../src/checkout/index.js";

/** An EventSource that opens nothing: the test sends messages and errors through it. */
export class FakeEventSource {
  static instances: FakeEventSource[] = [];
  onmessage: ((event: { data: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readyState = 0;
  closed = false;

  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }

  /** The server sends one event with `data` as JSON. */
  send(data: unknown): void {
    this.readyState = 1;
    this.onmessage?.({ data: typeof data === "string" ? data : JSON.stringify(data) });
  }

  /** The connection fails or is cut. */
  fail(): void {
    this.onerror?.({});
  }

  close(): void {
    this.closed = true;
    this.readyState = 2;
  }

  /** The newest instance, which the screen under test opened. */
  static last(): FakeEventSource {
    const source = FakeEventSource.instances.at(-1);
    if (!source) throw new Error("no EventSource was opened");
    return source;
  }
}

/** One answer of the fake fetch: a status and a JSON body, or a network failure. */
export type FakeAnswer =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | "network-error";

/** A fetch that answers from `answers` in order (the last one repeats) and records each request's signal. */
export function fakeFetch(...answers: FakeAnswer[]) {
  const requests: Array<{ url: string; signal: AbortSignal; accept: string | null }> = [];
  const fn = vi.fn(async (url: string, init: RequestInit = {}) => {
    requests.push({
      url,
      signal: init.signal as AbortSignal,
      accept: new Headers(init.headers).get("accept"),
    });
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    if (answer === "network-error") throw new TypeError("Failed to fetch");
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json", ...answer.headers },
    });
  });
  return Object.assign(fn, { requests });
}

/** A status answer of the endpoint. */
export const statusOf = (status: string, id = PIX.id, updatedAt = "2025-01-15T12:05:00.000Z") => ({
  id,
  status,
  paymentMethod: "PIX",
  updatedAt,
});

/** A BR Code as the mock builds it (any text works for the QR; this one has the shape of the real thing). */
export const BR_CODE =
  "00020101021226850014br.gov.bcb.pix2563qrpix.paykit.test/qr/v2/cobv/01JD0000000000000000000000520400005303986540510.005802BR5913PAYKIT LOJA6009SAO PAULO62070503***6304A1B2";

/** The 201 answer of a PIX payin created at 2025-01-15T12:00:00Z. */
export const PIX: CheckoutPayin = {
  id: "pi_01JD0000000000000000000000",
  status: "PENDING",
  paymentMethod: "PIX",
  amount: 1000,
  createdAt: "2025-01-15T12:00:00.000Z",
  pix: { qrcode: BR_CODE },
};

/** A valid digitable line (contract's buildBoletoLine): bank 237, R$ 100,00, due 2025-01-18 (factor 9965). */
export const BOLETO_LINE = "23790123435678901234356789012343999650000010000";

/** The 201 answer of a BOLETO payin. */
export const BOLETO: CheckoutPayin = {
  id: "pi_01JDB000000000000000000000",
  status: "PENDING",
  paymentMethod: "BOLETO",
  amount: 10000,
  createdAt: "2025-01-15T12:00:00.000Z",
  boleto: { barcode: BOLETO_LINE, url: "https://api.paykit.test/_mock/boleto/pi_01JDB.pdf" },
};

/** The 201 answer of an OPEN_FINANCE payin. */
export const OPEN_FINANCE: CheckoutPayin = {
  id: "pi_01JDF000000000000000000000",
  status: "PENDING",
  paymentMethod: "OPEN_FINANCE",
  amount: 5000,
  createdAt: "2025-01-15T12:00:00.000Z",
  openFinanceRedirectUrl: "https://bank.example/authorize/pi_01JDF",
};

/** The 201 answer of a CREDIT_CARD payin waiting for its 3DS confirmation. */
export const CARD_3DS: CheckoutPayin = {
  id: "pi_01JDC000000000000000000000",
  status: "PENDING_3DS",
  paymentMethod: "CREDIT_CARD",
  amount: 10000,
  createdAt: "2025-01-15T12:00:00.000Z",
  threeDSecurePending: true,
  threeDSecureSession: "3ds_session",
  threeDSecureTransactionId: "3ds_tx",
  threeDSecureSdkUrl: "https://acquirer.example/3ds.js",
};
