// @vitest-environment happy-dom
// The payment screen against a hostile or broken payin, status endpoint and page: what it links, what it
// shows as text, what it believes, and what it leaves running. The page is https://shop.example/checkout.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  BOLETO,
  CARD_3DS,
  FakeEventSource,
  fakeFetch,
  OPEN_FINANCE,
  PIX,
  statusOf,
} from "../../test/checkout-fakes.js";
import { definePaykitPayment, type MountedPayment, type MountPaymentOptions, mountPayment } from "./index.js";

const CREATED = Date.parse("2025-01-15T12:00:00.000Z");
const DAY_MS = 86_400_000;
const screens: MountedPayment[] = [];
let fetchMock: ReturnType<typeof fakeFetch>;

beforeEach(() => {
  // queueMicrotask stays real: <paykit-payment> renders on it.
  vi.useFakeTimers({ now: CREATED + 1_000, toFake: ["setTimeout", "clearTimeout", "Date"] });
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  fetchMock = fakeFetch({ status: 200, body: statusOf("PENDING") });
  vi.stubGlobal("fetch", fetchMock);
  document.body.innerHTML = '<main id="checkout"></main>';
  sessionStorage.clear();
});

afterEach(() => {
  for (const screen of screens.splice(0)) screen.unmount();
  document.body.innerHTML = "";
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const checkout = () => document.querySelector("#checkout")!;

function mount(options: Partial<MountPaymentOptions> = {}) {
  const onFinal = vi.fn();
  const onError = vi.fn();
  const screen = mountPayment(checkout(), {
    payin: PIX,
    statusUrl: "/payment-status",
    onFinal,
    onError,
    ...options,
  });
  screens.push(screen);
  const root = [...document.querySelectorAll("[data-paykit-payment]")].at(-1)!.shadowRoot!;
  return {
    screen,
    root,
    onFinal,
    onError,
    title: () => root.querySelector("h2")!.textContent,
    links: () => [...root.querySelectorAll("a")].map((a) => a.getAttribute("href")),
  };
}

/** Nothing left running: every stream closed, no timer (the fake fetch never leaves a request in flight). */
function expectNothingRunning() {
  expect(FakeEventSource.instances.filter((source) => !source.closed)).toEqual([]);
  expect(vi.getTimerCount()).toBe(0);
}

describe("links from the payin", () => {
  const REFUSED = [
    "javascript:alert(document.cookie)",
    " JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "blob:https://shop.example/0b6c",
    "http://evil.example/pay", // plain http off this page's origin: a network attacker's page
    "http://localhost:x@evil.example/", // loopback only in the userinfo
    "",
  ];
  const FOLLOWED: Array<[string, string]> = [
    ["https://bank.example/authorize/pi_1", "https://bank.example/authorize/pi_1"],
    ["http://127.0.0.1:4010/_mock/open-finance/pi_1", "http://127.0.0.1:4010/_mock/open-finance/pi_1"],
    ["http://localhost:4010/x", "http://localhost:4010/x"],
    ["http://[::1]:4010/x", "http://[::1]:4010/x"],
    ["/boletos/pi_1.pdf", "https://shop.example/boletos/pi_1.pdf"], // the merchant's own proxy, same origin
  ];

  it.each(REFUSED)("a boleto PDF url %j gives no link", (url) => {
    const { links, title } = mount({
      payin: { ...BOLETO, boleto: { barcode: BOLETO.boleto!.barcode, url } },
    });
    expect(title()).toBe("Pague o boleto");
    expect(links()).toEqual([]);
  });

  it.each(REFUSED)("an openFinanceRedirectUrl %j gives no button, before and after the bank", (url) => {
    const first = mount({ payin: { ...OPEN_FINANCE, openFinanceRedirectUrl: url } });
    expect(first.title()).toBe("Pague pelo seu banco");
    expect(first.links()).toEqual([]);
    sessionStorage.setItem(`paykit:open-finance:${OPEN_FINANCE.id}`, "1");
    first.screen.unmount();
    const back = mount({ payin: { ...OPEN_FINANCE, openFinanceRedirectUrl: url } });
    expect(back.root.textContent).toContain("Confirmando o pagamento com o seu banco…");
    expect(back.links()).toEqual([]);
  });

  it.each(FOLLOWED)("%j is followed as %j (boleto and open finance)", (url, href) => {
    expect(mount({ payin: { ...BOLETO, boleto: { barcode: "", url } } }).links()).toEqual([href]);
    expect(mount({ payin: { ...OPEN_FINANCE, openFinanceRedirectUrl: url } }).links()).toEqual([href]);
  });
});

describe("text from the payin and the page", () => {
  const HTML = `<img src=x onerror="alert(1)"><script>alert(2)</script>`;

  it("markup in the code, the id and the strings is shown as text, never parsed", () => {
    const { root, title } = mount({
      payin: { ...PIX, id: `pi_${HTML}`, pix: { qrcode: HTML } },
      strings: { pixTitle: HTML, pixHowTo: HTML, expiresIn: `${HTML} {time}` },
    });
    expect(root.querySelectorAll("img, script")).toHaveLength(0);
    expect(title()).toBe(HTML);
    expect(root.querySelector("textarea")!.value).toBe(HTML);
    expect(root.querySelector("svg")!.getAttribute("aria-label")).toBe(HTML);
    expect(root.querySelector(".countdown")!.textContent).toBe(`${HTML} 59:59`);
    expect(FakeEventSource.last().url).toBe(`/payment-status?id=${encodeURIComponent(`pi_${HTML}`)}`);
  });

  it.each([
    ["a string", "<b>1000</b>"],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
  ])("an amount that is %s is not shown", (_, amount) => {
    const { root } = mount({ payin: { ...PIX, amount: amount as number } });
    expect(root.querySelector("[part=amount]")).toBeNull();
    expect(root.textContent).not.toMatch(/NaN|∞|<b>/);
  });

  it.each([
    ["100 KB", "0".repeat(100_000)],
    ["just over the capacity", "A".repeat(2_400)],
    ["a number", 12345 as unknown as string],
  ])(
    "a PIX code of %s that no QR code holds: no QR, the code to copy, INVALID_OPTIONS to onError",
    (_, qrcode) => {
      const started = performance.now();
      const { root, onError, title } = mount({ payin: { ...PIX, pix: { qrcode } } });
      expect(performance.now() - started).toBeLessThan(5_000); // generous: a freeze would be far longer
      expect(title()).toBe("Pague com PIX");
      expect(root.querySelector("svg")).toBeNull();
      expect(String(root.querySelector("textarea")!.value)).toBe(String(qrcode)); // happy-dom keeps a number as is
      expect(onError).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ code: "INVALID_OPTIONS" }));
      expect(FakeEventSource.instances).toHaveLength(1); // the status is still followed
    },
  );
});

describe("a hostile or broken status endpoint", () => {
  it.each([
    ["not JSON", "<html>502 Bad Gateway</html>"],
    ["JSON null", "null"],
    ["an array", "[]"],
    ["a number as status", JSON.stringify({ ...statusOf("APPROVED"), status: 1 })],
    ["another payin's APPROVED", JSON.stringify(statusOf("APPROVED", "pi_01JDZZZZZZZZZZZZZZZZZZZZZZ"))],
    ["an APPROVED without id", JSON.stringify({ ...statusOf("APPROVED"), id: undefined })],
    ["an unknown status", JSON.stringify(statusOf("CHARGED_BACK"))],
    ["a lower-case approved", JSON.stringify(statusOf("approved"))],
  ])("an event with %s changes nothing and does not end the stream", (_, data) => {
    const { title, onFinal, onError } = mount();
    FakeEventSource.last().send(data);
    expect(title()).toBe("Pague com PIX");
    expect(onFinal).not.toHaveBeenCalled();
    expect(onError).not.toHaveBeenCalled();
    expect(FakeEventSource.last().closed).toBe(false);
  });

  it("polling: another payin's APPROVED is not this one's; its own is", async () => {
    fetchMock = fakeFetch(
      { status: 200, body: statusOf("APPROVED", "pi_01JDZZZZZZZZZZZZZZZZZZZZZZ") },
      { status: 200, body: statusOf("APPROVED") },
    );
    vi.stubGlobal("fetch", fetchMock);
    const { title, onFinal } = mount();
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(0);
    expect(title()).toBe("Pague com PIX");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(title()).toBe("Pagamento aprovado");
    expect(onFinal).toHaveBeenCalledExactlyOnceWith(statusOf("APPROVED"));
  });

  it("APPROVED then PENDING: stays approved, one onFinal, the stream closed at APPROVED", () => {
    const { title, onFinal } = mount();
    const source = FakeEventSource.last();
    source.send(statusOf("APPROVED"));
    source.send(statusOf("PENDING", PIX.id, "2025-01-15T12:06:00.000Z"));
    source.send(statusOf("REFUSED", PIX.id, "2025-01-15T12:07:00.000Z"));
    expect(title()).toBe("Pagamento aprovado");
    expect(onFinal).toHaveBeenCalledExactlyOnceWith(statusOf("APPROVED"));
    expect(source.closed).toBe(true);
    expectNothingRunning();
  });

  it("a 200 with an HTML page while polling: STATUS_UNAVAILABLE after three, keeps trying, shows nothing final", async () => {
    fetchMock = Object.assign(
      vi.fn(
        async () => new Response("<!doctype html><p>login</p>", { headers: { "content-type": "text/html" } }),
      ),
      { requests: [] },
    ) as unknown as typeof fetchMock;
    vi.stubGlobal("fetch", fetchMock);
    const { title, onError, onFinal } = mount();
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(2_000 + 4_000 + 1);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(onError).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ code: "STATUS_UNAVAILABLE" }));
    expect(title()).toBe("Pague com PIX");
    expect(onFinal).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBeGreaterThan(0); // the next poll
  });

  it("a 404 mid-way stops everything and shows the error state, never approved", async () => {
    fetchMock = fakeFetch(
      { status: 200, body: statusOf("PENDING") },
      { status: 404, body: { code: "NOT_FOUND" } },
    );
    vi.stubGlobal("fetch", fetchMock);
    const { title, onError, onFinal } = mount();
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(onError).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ code: "NOT_FOUND" }));
    expect(title()).toBe("Não foi possível acompanhar o pagamento");
    expect(onFinal).not.toHaveBeenCalled();
    expectNothingRunning();
  });

  it("a 503 with Retry-After: 99999 waits 60 s at most, not 27 hours, and not less than asked up to that", async () => {
    fetchMock = fakeFetch(
      { status: 503, headers: { "retry-after": "99999" } },
      { status: 200, body: statusOf("APPROVED") },
    );
    vi.stubGlobal("fetch", fetchMock);
    const { title } = mount();
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(59_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(title()).toBe("Pagamento aprovado");
  });
});

describe("lifecycle", () => {
  it("unmount() twice is harmless and leaves nothing", () => {
    const { screen } = mount();
    screen.unmount();
    expect(() => screen.unmount()).not.toThrow();
    expect(checkout().children).toHaveLength(0);
    expectNothingRunning();
  });

  it("unmount() during the 3DS challenge aborts it; its late outcome changes and reports nothing", async () => {
    let settle!: (value: { status: string }) => void;
    let signal!: AbortSignal;
    const flow = vi.fn((_payin, _data, options: { signal: AbortSignal }) => {
      signal = options.signal;
      return new Promise((resolve) => (settle = resolve));
    });
    const { screen, onError, onFinal } = mount({
      payin: CARD_3DS,
      threeDS: { data: {} as never, handlePendingThreeDS: flow as never },
    });
    screen.unmount();
    expect(signal.aborted).toBe(true);
    settle({ status: "AUTHENTICATED" });
    await vi.advanceTimersByTimeAsync(0);
    expect(onError).not.toHaveBeenCalled();
    expect(onFinal).not.toHaveBeenCalled();
    expectNothingRunning();
  });

  it("two mounts on one element are two screens, each unmounted on its own", () => {
    const first = mount();
    const second = mount();
    expect(checkout().children).toHaveLength(2);
    first.screen.unmount();
    expect(FakeEventSource.instances.map((source) => source.closed)).toEqual([true, false]);
    expect(second.title()).toBe("Pague com PIX");
    second.screen.unmount();
    expect(checkout().children).toHaveLength(0);
    expectNothingRunning();
  });

  it("a statusUrl EventSource refuses: mountPayment throws and leaves no countdown timer or listener", () => {
    vi.stubGlobal(
      "EventSource",
      class {
        constructor() {
          throw new DOMException("Invalid URL", "SyntaxError");
        }
      },
    );
    expect(() => mount({ statusUrl: "http://[" })).toThrow("Invalid URL");
    expect(checkout().children).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    // A countdown listener left behind would start ticking again here.
    document.dispatchEvent(new Event("visibilitychange"));
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("<paykit-payment> lifecycle", () => {
  definePaykitPayment();
  const settled = () => new Promise<void>((resolve) => queueMicrotask(resolve));

  function element(payin: unknown = PIX) {
    const node = document.createElement("paykit-payment");
    node.setAttribute("status-url", "/payment-status");
    node.setAttribute("payin", typeof payin === "string" ? payin : JSON.stringify(payin));
    return node;
  }

  it("removed from the page without unmount: stream, countdown and listeners stop; put back: one new stream", async () => {
    const node = element();
    document.body.append(node);
    await settled();
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    node.remove();
    expectNothingRunning();
    document.body.append(node);
    await settled();
    expect(FakeEventSource.instances.map((source) => source.closed)).toEqual([true, false]);
    expect(node.shadowRoot!.querySelectorAll("h2")).toHaveLength(1);
    node.remove();
    expectNothingRunning();
  });

  it("added and removed in the same task never opens a stream", async () => {
    const node = element();
    document.body.append(node);
    node.remove();
    await settled();
    expect(FakeEventSource.instances).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([
    ["malformed JSON", "{not json"],
    ["JSON null", "null"],
    ["a number", "123"],
    ["an array", "[]"],
    ["a payin without a method", JSON.stringify({ id: PIX.id })],
  ])("a payin attribute of %s fires paykit-error and throws nothing", async (_, text) => {
    const errors: unknown[] = [];
    const onWindowError = vi.fn();
    window.addEventListener("error", onWindowError);
    document.addEventListener("paykit-error", (event) => errors.push((event as CustomEvent).detail));
    document.body.append(element(text));
    await settled();
    window.removeEventListener("error", onWindowError);
    expect(errors).toEqual([expect.objectContaining({ code: "INVALID_OPTIONS" })]);
    expect(onWindowError).not.toHaveBeenCalled();
    expect(FakeEventSource.instances).toHaveLength(0);
  });
});

describe("the countdown against odd expiry dates", () => {
  it("an unreadable expiresAt falls back to the documented PIX expiry (createdAt + 1 h)", () => {
    const { root } = mount({ expiresAt: "tomorrow-ish" });
    expect(root.querySelector(".countdown")!.textContent).toBe("O código expira em 59:59");
  });

  it("an expiresAt in the past shows expired at once, and runs no timer loop: all stops after the grace", async () => {
    const { title, root } = mount({ expiresAt: new Date(CREATED - DAY_MS) });
    expect(title()).toBe("Prazo encerrado");
    expect(root.activeElement).toBe(root.querySelector("h2"));
    await vi.advanceTimersByTimeAsync(0);
    expectNothingRunning();
  });

  it("an expiresAt 30 days ahead (past setTimeout's 24.8-day limit) counts down and does not fire at once", async () => {
    const { title, root } = mount({ expiresAt: new Date(CREATED + 1_000 + 30 * DAY_MS) });
    expect(root.querySelector(".countdown")!.textContent).toBe("O código expira em 720:00:00");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(title()).toBe("Pague com PIX");
    expect(root.querySelector(".countdown")!.textContent).toBe("O código expira em 719:59:55");
    expect(vi.getTimerCount()).toBe(1); // the countdown's tick, nothing else piling up
  });
});

describe("the copy button", () => {
  it.each([
    [
      "refused",
      () =>
        vi
          .spyOn(navigator.clipboard, "writeText")
          .mockRejectedValue(new DOMException("denied", "NotAllowedError")),
    ],
    ["missing", () => vi.spyOn(navigator, "clipboard", "get").mockReturnValue(undefined as never)],
  ])(
    "Clipboard API %s and execCommand throwing: the fallback shows, no unhandled rejection",
    async (_, arrange) => {
      arrange();
      document.execCommand = () => {
        throw new Error("execCommand is gone");
      };
      const rejections = vi.fn();
      window.addEventListener("unhandledrejection", rejections);
      const { root } = mount();
      root.querySelector<HTMLButtonElement>("button")!.click();
      await vi.waitFor(() =>
        expect(root.querySelector(".note")!.textContent).toBe(
          "Código selecionado: tecle Ctrl+C para copiar.",
        ),
      );
      window.removeEventListener("unhandledrejection", rejections);
      expect(rejections).not.toHaveBeenCalled();
    },
  );
});
