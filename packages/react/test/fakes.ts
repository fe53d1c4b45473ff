// Fakes for the unit tests under happy-dom: an EventSource the test drives by hand and counts, a fetch that
// answers from a queue and records each request, the 201 answer of a PIX payin, and React's act() mode.
import { vi } from "vitest";
import type { CheckoutPayin } from "../src/index.js";

/** An EventSource that opens nothing: the test sends messages and errors through it, and counts instances. */
export class FakeEventSource {
  static instances: FakeEventSource[] = [];
  onmessage: ((event: { data: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  closed = false;

  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }

  /** The streams opened and not closed. */
  static open(): FakeEventSource[] {
    return FakeEventSource.instances.filter((source) => !source.closed);
  }

  /** The server sends one event with `data` as JSON. */
  send(data: unknown): void {
    this.onmessage?.({ data: JSON.stringify(data) });
  }

  /** The connection fails or is cut. */
  fail(): void {
    this.onerror?.({});
  }

  close(): void {
    this.closed = true;
  }
}

/** A fetch that answers each request with `status` (a JSON body) and records its URL and signal. */
export function fakeFetch(answer: { status: number; body?: unknown }) {
  const requests: Array<{ url: string; signal: AbortSignal }> = [];
  const fn = vi.fn(async (url: string, init: RequestInit = {}) => {
    requests.push({ url, signal: init.signal as AbortSignal });
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  });
  return Object.assign(fn, { requests });
}

/** A fetch that never answers (a request in flight) until its signal aborts; records each request. */
export function hangingFetch() {
  const requests: Array<{ url: string; signal: AbortSignal }> = [];
  const fn = vi.fn((url: string, init: RequestInit = {}) => {
    const signal = init.signal as AbortSignal;
    requests.push({ url, signal });
    return new Promise<Response>((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason));
    });
  });
  return Object.assign(fn, { requests });
}

/** Stubs the globals the status watch uses; undone by `vi.unstubAllGlobals()`. */
export function stubNetwork(fetch: ReturnType<typeof fakeFetch> | ReturnType<typeof hangingFetch>): void {
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.stubGlobal("fetch", fetch);
}

/** The payin was created at this instant (a PIX code is payable for an hour). */
export const CREATED = Date.parse("2025-01-15T12:00:00.000Z");

/** A BR Code with the shape the mock builds. */
export const BR_CODE =
  "00020101021226850014br.gov.bcb.pix2563qrpix.paykit.test/qr/v2/cobv/01JD0000000000000000000000520400005303986540510.005802BR5913PAYKIT LOJA6009SAO PAULO62070503***6304A1B2";

/** The 201 answer of a PIX payin of R$ 10,00. */
export const PIX: CheckoutPayin = {
  id: "pi_01JD0000000000000000000000",
  status: "PENDING",
  paymentMethod: "PIX",
  amount: 1000,
  createdAt: new Date(CREATED).toISOString(),
  pix: { qrcode: BR_CODE },
};

/** One answer of the status endpoint for {@link PIX}. */
export const statusOf = (status: string, updatedAt = "2025-01-15T12:05:00.000Z") => ({
  id: PIX.id,
  status,
  paymentMethod: "PIX",
  updatedAt,
});

/** Tells React that state updates run inside act() (else it warns on each one). */
export function actEnvironment(): void {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
}
