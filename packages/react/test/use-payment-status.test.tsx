// @vitest-environment happy-dom
import { act, StrictMode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type PaymentStatusState, usePaymentStatus } from "../src/index.js";
import {
  actEnvironment,
  CREATED,
  FakeEventSource,
  fakeFetch,
  hangingFetch,
  PIX,
  statusOf,
  stubNetwork,
} from "./fakes.js";
import { cleanup, render } from "./render.js";

actEnvironment();
const TIMERS = ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] as const;

beforeEach(() => {
  vi.useFakeTimers({ now: CREATED + 1_000, toFake: [...TIMERS] });
  stubNetwork(fakeFetch({ status: 200, body: statusOf("PENDING") }));
});

afterEach(async () => {
  await cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Renders the hook for `id` and keeps every value it returned, the last one last. */
function Probe({
  id,
  url = "/payment-status",
  seen,
}: {
  id: string | null;
  url?: string;
  seen: PaymentStatusState[];
}) {
  seen.push(usePaymentStatus(url, id));
  return null;
}

const last = (seen: PaymentStatusState[]) => seen.at(-1)!;
const source = () => FakeEventSource.instances.at(-1)!;

describe("usePaymentStatus", () => {
  it("with no id stays idle and opens nothing", async () => {
    const seen: PaymentStatusState[] = [];
    await render(<Probe id={null} seen={seen} />);
    expect(last(seen)).toMatchObject({ status: null, update: null, error: null, final: false });
    expect(FakeEventSource.instances).toHaveLength(0);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("reports each status, and at a final one closes the stream and says final", async () => {
    const seen: PaymentStatusState[] = [];
    await render(<Probe id={PIX.id} seen={seen} />);
    expect(source().url).toBe(`/payment-status?id=${PIX.id}`);
    await act(async () => source().send(statusOf("PENDING")));
    expect(last(seen)).toMatchObject({ status: "PENDING", update: statusOf("PENDING"), final: false });
    await act(async () => source().send(statusOf("APPROVED", "2025-01-15T12:06:00.000Z")));
    expect(last(seen)).toMatchObject({ status: "APPROVED", final: true, error: null });
    expect(FakeEventSource.open()).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("under StrictMode's double mount, opens one stream", async () => {
    const seen: PaymentStatusState[] = [];
    await render(
      <StrictMode>
        <Probe id={PIX.id} seen={seen} />
      </StrictMode>,
    );
    expect(FakeEventSource.instances).toHaveLength(1);
    await act(async () => source().send(statusOf("PENDING")));
    expect(last(seen).status).toBe("PENDING");
  });

  it("for another id closes the first stream and forgets its status", async () => {
    const seen: PaymentStatusState[] = [];
    const { rerender } = await render(<Probe id={PIX.id} seen={seen} />);
    await act(async () => source().send(statusOf("PENDING")));
    await rerender(<Probe id="pi_01JD1111111111111111111111" seen={seen} />);
    expect(last(seen)).toMatchObject({ status: null, update: null });
    expect(FakeEventSource.open().map((s) => s.url)).toEqual([
      "/payment-status?id=pi_01JD1111111111111111111111",
    ]);
    await rerender(<Probe id={null} seen={seen} />);
    expect(FakeEventSource.open()).toHaveLength(0);
  });

  it("reports a payin the endpoint does not know as NOT_FOUND and stops", async () => {
    stubNetwork(fakeFetch({ status: 404, body: { code: "NOT_FOUND", message: "…" } }));
    const seen: PaymentStatusState[] = [];
    await render(<Probe id={PIX.id} seen={seen} />);
    await act(async () => source().fail()); // the stream's 404 reads as an error: the watch asks by JSON
    expect(last(seen).error).toMatchObject({ name: "PaykitCheckoutError", code: "NOT_FOUND" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refresh() asks at once while polling waits", async () => {
    const seen: PaymentStatusState[] = [];
    await render(<Probe id={PIX.id} seen={seen} />);
    await act(async () => source().fail());
    expect(fetch).toHaveBeenCalledTimes(1);
    await act(async () => last(seen).refresh());
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("on unmount leaves no stream, no timer, no request in flight, and sends none later", async () => {
    const pending = hangingFetch();
    stubNetwork(pending);
    const seen: PaymentStatusState[] = [];
    const { unmount } = await render(
      <StrictMode>
        <Probe id={PIX.id} seen={seen} />
      </StrictMode>,
    );
    await act(async () => source().fail());
    expect(pending.requests).toHaveLength(1);
    await unmount();
    expect(FakeEventSource.open()).toHaveLength(0);
    expect(pending.requests[0]!.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(pending.requests).toHaveLength(1);
  });
});
