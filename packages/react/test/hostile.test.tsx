// @vitest-environment happy-dom
// The React bindings against a page and an endpoint that misbehave: ids changing faster than answers come,
// streams that answer for the wrong payin, and parents that build their props anew on every render.
import { act, useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PaykitPayment, type PaymentStatusState, usePaymentStatus } from "../src/index.js";
import { actEnvironment, CREATED, FakeEventSource, fakeFetch, PIX, statusOf, stubNetwork } from "./fakes.js";
import { cleanup, render, screens } from "./render.js";

actEnvironment();
const TIMERS = ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] as const;
const [A, B, C] = [
  "pi_01JDAAAAAAAAAAAAAAAAAAAAAA",
  "pi_01JDBBBBBBBBBBBBBBBBBBBBBB",
  "pi_01JDCCCCCCCCCCCCCCCCCCCCCC",
];
/** One answer of the endpoint for payin `id`. */
const answer = (id: string, status: string, updatedAt = "2025-01-15T12:05:00.000Z") => ({
  ...statusOf(status, updatedAt),
  id,
});

beforeEach(() => {
  vi.useFakeTimers({ now: CREATED + 1_000, toFake: [...TIMERS] });
  stubNetwork(fakeFetch({ status: 200, body: statusOf("PENDING") }));
});

afterEach(async () => {
  await cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function Probe({ id, seen }: { id: string | null; seen: PaymentStatusState[] }) {
  seen.push(usePaymentStatus("/payment-status", id));
  return null;
}

const streamOf = (id: string) => FakeEventSource.instances.find((source) => source.url.endsWith(`id=${id}`))!;

describe("usePaymentStatus with an id that changes fast", () => {
  it("a late status of an old id never shows for the new one, nor does another payin's from the new stream", async () => {
    const seen: PaymentStatusState[] = [];
    const { rerender } = await render(<Probe id={A} seen={seen} />);
    await rerender(<Probe id={B} seen={seen} />);
    await rerender(<Probe id={C} seen={seen} />);
    expect(FakeEventSource.open().map((source) => source.url)).toEqual([`/payment-status?id=${C}`]);

    // The old streams answer late (their close raced with the event), then C's stream sends A's APPROVED.
    await act(async () => {
      streamOf(A).send(answer(A, "APPROVED"));
      streamOf(B).send(answer(B, "REFUSED"));
      streamOf(C).send(answer(A, "APPROVED"));
    });
    expect(seen.at(-1)).toMatchObject({ status: null, final: false, update: null });
    expect(streamOf(C).closed).toBe(false);

    await act(async () => streamOf(C).send(answer(C, "PENDING")));
    expect(seen.at(-1)).toMatchObject({ status: "PENDING", update: answer(C, "PENDING") });
    expect(seen.some((state) => state.status === "APPROVED" || state.status === "REFUSED")).toBe(false);
  });

  it("ids switched within one render pass open one stream, for the last id", async () => {
    const seen: PaymentStatusState[] = [];
    const { root } = await render(<Probe id={A} seen={seen} />);
    await act(async () => {
      root.render(<Probe id={B} seen={seen} />);
      root.render(<Probe id={C} seen={seen} />);
    });
    expect(FakeEventSource.open().map((source) => source.url)).toEqual([`/payment-status?id=${C}`]);
    expect(FakeEventSource.instances).toHaveLength(2); // A's, then C's; B's never opened
  });

  it("a poll of the old id answered after the switch is not applied to the new id", async () => {
    let answerA!: (response: Response) => void;
    const fetch = Object.assign(
      vi.fn((url: string) =>
        url.endsWith(A)
          ? new Promise<Response>((resolve) => (answerA = resolve))
          : Promise.resolve(Response.json(answer(C, "PENDING"))),
      ),
      { requests: [] },
    );
    stubNetwork(fetch as never);
    const seen: PaymentStatusState[] = [];
    const { rerender } = await render(<Probe id={A} seen={seen} />);
    await act(async () => streamOf(A).fail()); // A polls; its answer is slow
    await rerender(<Probe id={C} seen={seen} />);
    await act(async () => answerA(Response.json(answer(A, "APPROVED"))));
    expect(seen.at(-1)!.status).toBeNull();
    await act(async () => streamOf(C).send(answer(C, "PENDING")));
    expect(seen.at(-1)!.status).toBe("PENDING");
  });
});

/** A parent that re-renders on every callback of the screen, with a new payin, strings and callbacks each time. */
function Checkout({ log }: { log: string[] }) {
  const [renders, setRenders] = useState(0);
  const bump = (what: string) => {
    log.push(what);
    setRenders((count) => count + 1);
  };
  return (
    <>
      <p id="renders">{renders}</p>
      <PaykitPayment
        payin={{ ...PIX, pix: { ...PIX.pix! } }}
        statusUrl="/payment-status"
        strings={{ waiting: "Esperando…" }}
        expiresAt={new Date(CREATED + 3_600_000)}
        onFinal={({ status }) => bump(status)}
        onError={(error) => bump((error as Error & { code: string }).code)}
      />
    </>
  );
}

describe("<PaykitPayment> under a parent that builds its props anew", () => {
  it("does not redraw or reopen the stream when the parent re-renders on its callbacks", async () => {
    const log: string[] = [];
    const { container } = await render(<Checkout log={log} />);
    const [screen] = screens(container);
    const title = screen!.querySelector("h2");

    // The stream is cut and the endpoint fails three times: onError re-renders the parent.
    vi.stubGlobal("fetch", fakeFetch({ status: 502 }));
    await act(async () => FakeEventSource.instances[0]!.fail());
    await act(() => vi.advanceTimersByTimeAsync(6_001));
    expect(log).toEqual(["STATUS_UNAVAILABLE"]);
    expect(container.querySelector("#renders")!.textContent).toBe("1");
    expect(screens(container)).toEqual([screen]);
    expect(screen!.querySelector("h2")).toBe(title);
    expect(FakeEventSource.instances).toHaveLength(1);

    // The endpoint comes back with APPROVED: onFinal re-renders the parent, the screen stays final.
    vi.stubGlobal("fetch", fakeFetch({ status: 200, body: statusOf("APPROVED") }));
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(log).toEqual(["STATUS_UNAVAILABLE", "APPROVED"]);
    expect(screen!.querySelector("h2")!.textContent).toBe("Pagamento aprovado");
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
