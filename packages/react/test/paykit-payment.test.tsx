// @vitest-environment happy-dom
import { act, Component, type ReactNode, StrictMode } from "react";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PaykitPayment, type PaykitPaymentProps } from "../src/index.js";
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
import { cleanup, render, screens } from "./render.js";

actEnvironment();
// Fake timers for the screen's countdown and the watch's polling; React's scheduler and the microtask the
// component mounts on stay real.
const TIMERS = ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] as const;

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

/** Shows the code of the error its children threw. */
class Boundary extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    return this.state.error ? (
      <p id="caught">{(this.state.error as { code?: string }).code}</p>
    ) : (
      this.props.children
    );
  }
}

const payment = (props: Partial<PaykitPaymentProps> = {}) => (
  <PaykitPayment payin={PIX} statusUrl="/payment-status" {...props} />
);

describe("<PaykitPayment>", () => {
  it("draws the payin's screen after mount and follows its status from statusUrl", async () => {
    const { container } = await render(payment());
    const [screen, ...others] = screens(container);
    expect(others).toHaveLength(0);
    expect(screen!.querySelector("h2")!.textContent).toBe("Pague com PIX");
    expect(container.querySelector("[data-paykit-placeholder]")).toBeNull();
    expect(container.firstElementChild!.getAttribute("data-paykit-payment-state")).toBe("drawn");
    expect(FakeEventSource.open().map((source) => source.url)).toEqual([`/payment-status?id=${PIX.id}`]);
  });

  it("passes locale and strings to the screen and calls the latest onFinal once with the final status", async () => {
    const first = vi.fn();
    const latest = vi.fn();
    const { container, rerender } = await render(payment({ locale: "en", onFinal: first }));
    await rerender(payment({ locale: "en", onFinal: latest, strings: undefined }));
    const [screen] = screens(container);
    expect(screen!.querySelector("h2")!.textContent).toBe("Pay with PIX");
    await act(async () => FakeEventSource.instances[0]!.send(statusOf("APPROVED")));
    expect(screen!.querySelector("h2")!.textContent).toBe("Payment approved");
    expect(first).not.toHaveBeenCalled();
    expect(latest).toHaveBeenCalledExactlyOnceWith(statusOf("APPROVED"));
    expect(FakeEventSource.open()).toHaveLength(0);
  });

  it("keeps its stream when the parent renders again with equal props built anew", async () => {
    const { container, rerender } = await render(payment({ strings: { waiting: "Esperando…" } }));
    for (let i = 0; i < 3; i++) {
      await rerender(payment({ payin: { ...PIX }, strings: { waiting: "Esperando…" }, onFinal: () => {} }));
    }
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(screens(container)).toHaveLength(1);
  });

  it.each([
    ["another payin", { payin: { ...PIX, id: "pi_01JD1111111111111111111111" } }],
    ["another statusUrl", { statusUrl: "/other-status" }],
    ["another locale", { locale: "en" }],
    ["other strings", { strings: { pixTitle: "PIX" } }],
    ["another expiry", { expiresAt: new Date(CREATED + 600_000) }],
  ])("draws the screen again for %s, closing the first one's stream", async (_, props) => {
    const { container, rerender } = await render(payment());
    await rerender(payment(props));
    expect(screens(container)).toHaveLength(1);
    expect(FakeEventSource.instances).toHaveLength(2);
    expect(FakeEventSource.open()).toEqual([FakeEventSource.instances[1]]);
  });

  it("under StrictMode's double mount, draws one screen and opens one status stream", async () => {
    const { container } = await render(<StrictMode>{payment()}</StrictMode>);
    expect(screens(container)).toHaveLength(1);
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(FakeEventSource.open()).toHaveLength(1);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("on unmount closes the stream, clears every timer and sends no request any more", async () => {
    const { container, unmount } = await render(<StrictMode>{payment()}</StrictMode>);
    // The stream is cut: the screen polls (every 2 s and more) while its countdown ticks each second.
    await act(async () => FakeEventSource.instances[0]!.fail());
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    const requests = vi.mocked(fetch).mock.calls.length;
    expect(requests).toBeGreaterThanOrEqual(2);
    expect(vi.getTimerCount()).toBeGreaterThan(0);

    await unmount();
    expect(screens(container)).toHaveLength(0);
    expect(FakeEventSource.open()).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(fetch).toHaveBeenCalledTimes(requests);
  });

  it("on unmount aborts a status request in flight", async () => {
    const pending = hangingFetch();
    stubNetwork(pending);
    const { unmount } = await render(payment());
    await act(async () => FakeEventSource.instances[0]!.fail());
    expect(pending.requests).toHaveLength(1);
    expect(pending.requests[0]!.signal.aborted).toBe(false);
    await unmount();
    expect(pending.requests[0]!.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("reports options the screen refuses to onError, with no placeholder left and nothing started", async () => {
    const onError = vi.fn();
    const { container } = await render(payment({ statusUrl: "", onError }));
    expect(onError).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ code: "INVALID_OPTIONS" }));
    expect(container.firstElementChild!.getAttribute("data-paykit-payment-state")).toBe("failed");
    expect(container.querySelector("[data-paykit-placeholder]")).toBeNull();
    expect(FakeEventSource.instances).toHaveLength(0);
  });

  it("without onError, throws refused options to the nearest error boundary", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { container } = await render(<Boundary>{payment({ statusUrl: "" })}</Boundary>);
    expect(container.querySelector("#caught")!.textContent).toBe("INVALID_OPTIONS");
  });
});

describe("onRenew", () => {
  const renewed = {
    ...PIX,
    id: "pi_01JD2222222222222222222222",
    createdAt: new Date(CREATED + 3_600_000).toISOString(),
  };
  const expire = () => act(() => vi.advanceTimersByTimeAsync(3_600_000));
  const renewButton = (container: HTMLElement) =>
    screens(container)[0]!.querySelector<HTMLButtonElement>("[part~=renew-button]");

  it("offers 'Gerar novo Pix' when the PIX expires; the latest onRenew gives the new payin, whose APPROVED reaches onFinal", async () => {
    const first = vi.fn();
    const latest = vi.fn(async () => renewed);
    const onFinal = vi.fn();
    const { container, rerender } = await render(payment({ onRenew: first }));
    await rerender(payment({ onRenew: latest, onFinal }));
    await expire();
    expect(renewButton(container)!.textContent).toBe("Gerar novo Pix");
    await act(async () => renewButton(container)!.click());
    expect(first).not.toHaveBeenCalled();
    expect(latest).toHaveBeenCalledExactlyOnceWith(PIX);
    const [screen, ...others] = screens(container);
    expect(others).toHaveLength(0);
    expect(screen!.querySelector("h2")!.textContent).toBe("Pague com PIX");
    expect(FakeEventSource.open().map((source) => source.url)).toEqual([`/payment-status?id=${renewed.id}`]);
    const approved = { ...statusOf("APPROVED"), id: renewed.id };
    await act(async () => FakeEventSource.open()[0]!.send(approved));
    expect(onFinal).toHaveBeenCalledExactlyOnceWith(approved);
  });

  it("without onRenew, an expired PIX ends the screen as before", async () => {
    const { container } = await render(payment());
    await expire();
    expect(screens(container)[0]!.querySelector("[part=message]")!.textContent).toBe(
      "O prazo para pagar terminou. Faça um novo pedido.",
    );
    expect(renewButton(container)).toBeNull();
  });

  it("unmounting after a renewal stops the renewed payin's screen", async () => {
    const { container, unmount } = await render(payment({ onRenew: () => renewed }));
    await expire();
    await act(async () => renewButton(container)!.click());
    expect(FakeEventSource.open()).toHaveLength(1);
    await unmount();
    expect(FakeEventSource.open()).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the placeholder", () => {
  it("is what the server renders: the container with a status text in the payin's language", () => {
    expect(renderToString(payment({ className: "checkout" }))).toBe(
      '<div class="checkout" data-paykit-payment-state="loading"><p data-paykit-placeholder="" role="status" lang="pt-BR">Carregando o pagamento…</p><div></div></div>',
    );
    expect(renderToString(payment({ locale: "en-US" }))).toContain(">Loading the payment…</p>");
    expect(renderToString(payment({ strings: { loading: "Um momento…" } }))).toContain(">Um momento…</p>");
    expect(renderToString(payment({ placeholder: <span>…</span> }))).toContain("<span>…</span><div></div>");
  });

  it.each(["en", "en-US", "EN-gb", "pt-BR", "pt", "es-AR", undefined])(
    "for locale %s, speaks the language the screen then speaks",
    async (locale) => {
      const html = renderToString(payment({ locale }));
      const { container } = await render(payment({ locale }));
      const screen = screens(container)[0]!.querySelector("[part=root]")!.getAttribute("lang");
      expect(html).toContain(`lang="${screen}"`);
    },
  );
});
