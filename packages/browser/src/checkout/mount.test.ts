// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  BOLETO,
  BR_CODE,
  CARD_3DS,
  FakeEventSource,
  fakeFetch,
  OPEN_FINANCE,
  PIX,
  statusOf,
} from "../../test/checkout-fakes.js";
import { type MountedPayment, type MountPaymentOptions, mountPayment } from "./index.js";
import { EXPIRY_GRACE_MS } from "./render.js";

const CREATED = Date.parse("2025-01-15T12:00:00.000Z");
let mounted: MountedPayment | undefined;
let fetchMock: ReturnType<typeof fakeFetch>;

beforeEach(() => {
  vi.useFakeTimers({ now: CREATED + 1_000 });
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  fetchMock = fakeFetch({ status: 200, body: statusOf("PENDING") });
  vi.stubGlobal("fetch", fetchMock);
  document.body.innerHTML = '<main id="checkout"></main>';
  sessionStorage.clear();
});

afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function mount(options: Partial<MountPaymentOptions> = {}) {
  mounted = mountPayment(document.querySelector("#checkout")!, {
    payin: PIX,
    statusUrl: "/payment-status",
    ...options,
  });
  const root = document.querySelector("[data-paykit-payment]")!.shadowRoot!;
  const $ = <E extends Element = HTMLElement>(selector: string) => root.querySelector<E>(selector);
  return {
    root,
    $,
    title: () => $("h2")!.textContent,
    live: () => $("[role=status]")!.textContent,
    texts: () => [...root.querySelectorAll("p, a, button, label")].map((node) => node.textContent),
  };
}

describe("the PIX screen", () => {
  it("shows the QR code as SVG with the code as its text alternative, the code, the amount and the countdown", () => {
    const { $, title, texts } = mount();
    expect(title()).toBe("Pague com PIX");
    const qr = $<SVGSVGElement>("svg")!;
    expect(qr.getAttribute("role")).toBe("img");
    expect(qr.getAttribute("aria-label")).toBe(BR_CODE);
    expect(qr.querySelector("path")!.getAttribute("d")).toMatch(/^M4 4h7v1h-7z/); // the finder pattern's top row
    expect($<HTMLTextAreaElement>("textarea")!.value).toBe(BR_CODE);
    expect(texts()).toEqual(
      expect.arrayContaining([
        "Valor: R$\u00a010,00",
        "PIX copia e cola",
        "Copiar código",
        "O código expira em 59:59",
        "Aguardando o pagamento…",
      ]),
    );
  });

  it("styles through an adopted stylesheet and never sets a style attribute (strict CSP)", () => {
    const { root } = mount();
    expect(root.adoptedStyleSheets).toHaveLength(1);
    expect(root.querySelectorAll("[style], style, link")).toHaveLength(0);
  });

  it("copies the code with the Clipboard API and confirms it visibly and to screen readers", async () => {
    const writeText = vi.spyOn(navigator.clipboard, "writeText").mockResolvedValue(undefined);
    const { $, live } = mount();
    $("button")!.click();
    await vi.waitFor(() => expect($(".note")!.textContent).toBe("Copiado!"));
    expect(writeText).toHaveBeenCalledWith(BR_CODE);
    expect(live()).toBe("Copiado!");
    await vi.advanceTimersByTimeAsync(4_000);
    expect($(".note")!.textContent).toBe("");
  });

  it("without the Clipboard API, selects the whole code and says how to copy it", async () => {
    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValue(
      new DOMException("denied", "NotAllowedError"),
    );
    document.execCommand = () => false;
    const { $, live } = mount();
    $("button")!.click();
    await vi.waitFor(() => expect(live()).toBe("Código selecionado: tecle Ctrl+C para copiar."));
    const field = $<HTMLTextAreaElement>("textarea")!;
    expect([field.selectionStart, field.selectionEnd]).toEqual([0, BR_CODE.length]);
    expect($(".note")!.textContent).toBe(live());
  });

  it("counts down to createdAt + 1 h, announcing the last 5 minutes and the last one", async () => {
    const { $, live } = mount();
    const countdown = () => $("[role=timer]")!.textContent;
    await vi.advanceTimersByTimeAsync(54 * 60_000);
    expect(countdown()).toBe("O código expira em 05:59");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(countdown()).toBe("O código expira em 04:59");
    expect(live()).toBe("O código expira em 5 min.");
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(live()).toBe("O código expira em 1 min.");
  });

  it.each([
    ["a Date", new Date(CREATED + 10 * 60_000)],
    ["an ISO string", new Date(CREATED + 10 * 60_000).toISOString()],
  ])("takes an explicit expiresAt (%s) over the default", (_, expiresAt) => {
    const { $ } = mount({ expiresAt });
    expect($("[role=timer]")!.textContent).toBe("O código expira em 09:59");
  });

  it("recomputes the countdown from the clock when the tab becomes visible (throttled timers)", () => {
    const { $ } = mount();
    // The tab slept: the clock moved 20 minutes and no timer ran.
    vi.setSystemTime(CREATED + 21 * 60_000);
    document.dispatchEvent(new Event("visibilitychange"));
    expect($("[role=timer]")!.textContent).toBe("O código expira em 39:00");
  });

  it("at expiry shows the expired state with focus on it, then stops listening after the grace period", async () => {
    const onFinal = vi.fn();
    const { root, title, live } = mount({ onFinal });
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(title()).toBe("Prazo encerrado");
    expect(live()).toBe("Prazo encerrado. O prazo para pagar terminou. Faça um novo pedido.");
    expect(root.activeElement).toBe(root.querySelector("h2"));
    expect(root.querySelector("svg")).toBeNull(); // the QR is not payable any more
    expect(onFinal).not.toHaveBeenCalled(); // only the server says a status is final
    expect(FakeEventSource.last().closed).toBe(false);

    await vi.advanceTimersByTimeAsync(EXPIRY_GRACE_MS);
    expect(FakeEventSource.last().closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe("live status", () => {
  it("opens one EventSource on statusUrl?id=…, or &id= when statusUrl has a query", () => {
    mount({ statusUrl: "/payment-status?shop=1" });
    expect(FakeEventSource.instances.map((source) => source.url)).toEqual([
      `/payment-status?shop=1&id=${PIX.id}`,
    ]);
  });

  it("ignores an event that is not a status (a proxy's page, a truncated event)", () => {
    const { title } = mount();
    FakeEventSource.last().send("<html>502 Bad Gateway</html>");
    FakeEventSource.last().send({ hello: "world" });
    expect(title()).toBe("Pague com PIX");
    expect(FakeEventSource.last().closed).toBe(false);
  });

  it.each([
    ["APPROVED", "Pagamento aprovado", "Recebemos o seu pagamento. Obrigado!"],
    ["REFUSED", "Pagamento recusado", "O pagamento não foi concluído. Tente outra forma de pagamento."],
    ["EXPIRED", "Prazo encerrado", "O prazo para pagar terminou. Faça um novo pedido."],
  ])(
    "a final %s shows its message, announces it, moves focus to it and calls onFinal once",
    (status, heading, text) => {
      const onFinal = vi.fn();
      const { root, title, live } = mount({ onFinal });
      const source = FakeEventSource.last();
      source.send(statusOf("PENDING"));
      expect(title()).toBe("Pague com PIX");
      source.send(statusOf(status));
      expect(title()).toBe(heading);
      expect(root.querySelector("[part=message]")!.textContent).toBe(text);
      expect(live()).toBe(`${heading}. ${text}`);
      expect(root.activeElement).toBe(root.querySelector("h2"));
      expect(root.querySelector("[part=root]")!.className).toBe(
        status === "APPROVED" ? "final" : "final bad",
      );
      source.send(statusOf(status));
      expect(onFinal.mock.calls).toEqual([[statusOf(status)]]);
      expect(source.closed).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    },
  );

  it("falls back to polling when the stream fails: at once, then every 2, 4, 8, 10, 10 s", async () => {
    mount({ payin: { ...PIX, createdAt: undefined } }); // no countdown timer: only the polling's
    FakeEventSource.last().fail();
    expect(FakeEventSource.last().closed).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.requests[0]).toMatchObject({
      url: `/payment-status?id=${PIX.id}`,
      accept: "application/json",
    });
    const gaps: number[] = [];
    let last = Date.now();
    while (gaps.length < 5) {
      await vi.advanceTimersToNextTimerAsync();
      gaps.push(Date.now() - last);
      last = Date.now();
    }
    expect(gaps).toEqual([2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(FakeEventSource.instances).toHaveLength(1); // never a second stream
  });

  it("a stream cut mid-way still reaches the final state by polling, and then nothing is left running", async () => {
    const onFinal = vi.fn();
    fetchMock = fakeFetch(
      { status: 200, body: statusOf("PENDING") },
      { status: 200, body: statusOf("APPROVED") },
    );
    vi.stubGlobal("fetch", fetchMock);
    const { title } = mount({ onFinal });
    FakeEventSource.last().send(statusOf("PENDING"));
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(title()).toBe("Pagamento aprovado");
    expect(onFinal).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("honours Retry-After of a 503 and reports STATUS_UNAVAILABLE once after three failures, going on", async () => {
    const onError = vi.fn();
    fetchMock = fakeFetch(
      { status: 503, headers: { "retry-after": "7" } },
      "network-error",
      "network-error",
      "network-error",
      { status: 200, body: statusOf("APPROVED") },
    );
    vi.stubGlobal("fetch", fetchMock);
    const { title } = mount({ onError, payin: { ...PIX, createdAt: undefined } });
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(6_999);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(4_000 + 8_000 + 10_000);
    expect(onError.mock.calls.map(([error]) => error.code)).toEqual(["STATUS_UNAVAILABLE"]);
    expect(title()).toBe("Pagamento aprovado");
  });

  it("a 404 (unknown or not this shopper's payin) stops everything and reports NOT_FOUND", async () => {
    const onError = vi.fn();
    vi.stubGlobal("fetch", fakeFetch({ status: 404, body: { code: "NOT_FOUND", message: "no" } }));
    const { title } = mount({ onError });
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(0);
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ name: "PaykitCheckoutError", code: "NOT_FOUND" }),
    );
    expect(title()).toBe("Não foi possível acompanhar o pagamento");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a tab coming back into view polls at once instead of waiting for the backoff", async () => {
    mount({ payin: { ...PIX, createdAt: undefined } });
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(5_000); // polls at 0 and 2 s; the next is due at 6 s
    expect(fetchMock).toHaveBeenCalledTimes(2);
    document.dispatchEvent(new Event("visibilitychange"));
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it("unmount stops everything: stream closed, request in flight aborted, no timer, nothing on the page", async () => {
    let release!: () => void;
    vi.stubGlobal(
      "fetch",
      vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise((_resolve, reject) => {
            release = () => reject(init.signal!.reason);
            init.signal!.addEventListener("abort", release);
          }),
      ),
    );
    mount();
    FakeEventSource.last().fail();
    await vi.advanceTimersByTimeAsync(0);
    const request = vi.mocked(fetch).mock.calls[0]![1]!;
    mounted!.unmount();
    mounted = undefined;
    expect(request.signal!.aborted).toBe(true);
    expect(FakeEventSource.last().closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(document.querySelector("#checkout")!.innerHTML).toBe("");
    document.dispatchEvent(new Event("visibilitychange"));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe("the BOLETO screen", () => {
  it("shows the grouped digitable line, the due date read from the line, the PDF link and the waiting state", async () => {
    const writeText = vi.spyOn(navigator.clipboard, "writeText").mockResolvedValue(undefined);
    const { $, title, texts } = mount({ payin: BOLETO });
    expect(title()).toBe("Pague o boleto");
    expect($<HTMLTextAreaElement>("textarea")!.value).toBe(
      "23790.12343 56789.012343 56789.012343 9 99650000010000",
    );
    expect(texts()).toEqual(
      expect.arrayContaining([
        "Vencimento: 18 de janeiro de 2025",
        "Valor: R$\u00a0100,00",
        "Aguardando o pagamento…",
      ]),
    );
    const pdf = $<HTMLAnchorElement>("a")!;
    expect([pdf.textContent, pdf.href, pdf.target, pdf.rel]).toEqual([
      "Abrir o boleto (PDF)",
      BOLETO.boleto!.url,
      "_blank",
      "noopener",
    ]);
    expect($("[role=timer]")).toBeNull();
    $("button")!.click();
    await vi.waitFor(() => expect(writeText).toHaveBeenCalledWith(BOLETO.boleto!.barcode));
  });
});

describe("the OPEN_FINANCE screen", () => {
  it("offers the bank's button; back from the bank it waits for the bank instead, and reads the status", () => {
    const first = mount({ payin: OPEN_FINANCE });
    const button = first.$<HTMLAnchorElement>("a")!;
    expect([button.textContent, button.href]).toEqual([
      "Ir para o banco",
      OPEN_FINANCE.openFinanceRedirectUrl,
    ]);
    button.addEventListener("click", (event) => event.preventDefault()); // no navigation in the test
    button.click();
    mounted!.unmount();

    // The bank sent the shopper back to the store's page, which mounts the screen again.
    const back = mount({ payin: OPEN_FINANCE });
    expect(back.texts()).toContain("Confirmando o pagamento com o seu banco…");
    expect(back.$<HTMLAnchorElement>("a")!.textContent).toBe("Voltar ao banco");
    expect(FakeEventSource.last().url).toBe(`/payment-status?id=${OPEN_FINANCE.id}`);
    FakeEventSource.last().send(statusOf("APPROVED", OPEN_FINANCE.id));
    expect(back.title()).toBe("Pagamento aprovado");
  });

  it("back through the browser's back button (page from the back-forward cache): same state, status asked again", async () => {
    const { $, texts } = mount({ payin: OPEN_FINANCE });
    $<HTMLAnchorElement>("a")!.addEventListener("click", (event) => event.preventDefault());
    $<HTMLAnchorElement>("a")!.click();
    FakeEventSource.last().fail(); // the browser cut the stream when the page was frozen
    await vi.advanceTimersByTimeAsync(0);
    const event = new Event("pageshow") as PageTransitionEvent;
    Object.defineProperty(event, "persisted", { value: true });
    window.dispatchEvent(event);
    await vi.advanceTimersByTimeAsync(0);
    expect(texts()).toContain("Confirmando o pagamento com o seu banco…");
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});

describe("the CREDIT_CARD screen in PENDING_3DS", () => {
  const data = {
    card: { token: "tok_1" },
    customer: { name: "Maria", document: "52998224725", email: "m@example.com", phone: "5511987654321" },
    amount: 10000,
    installments: 1,
  };

  it("runs handlePendingThreeDS in its own container, then waits for the final status", async () => {
    const handlePendingThreeDS = vi.fn().mockResolvedValue({ status: "AUTHENTICATED" });
    const { $, title, live } = mount({
      payin: CARD_3DS,
      threeDS: { data, handlePendingThreeDS, nonce: "n" },
    });
    expect(title()).toBe("Confirme a compra");
    expect(handlePendingThreeDS).toHaveBeenCalledWith(CARD_3DS, data, {
      nonce: "n",
      container: $("[part=challenge]"),
      signal: expect.any(AbortSignal),
    });
    await vi.waitFor(() => expect(live()).toBe("Confirmando o pagamento…"));
    FakeEventSource.last().send(statusOf("APPROVED", CARD_3DS.id));
    expect(title()).toBe("Pagamento aprovado");
  });

  it("a canceled confirmation offers to try again, which runs it again", async () => {
    const handlePendingThreeDS = vi
      .fn()
      .mockResolvedValueOnce({ status: "CANCELED" })
      .mockResolvedValueOnce({ status: "AUTHENTICATED" });
    const { $, live } = mount({ payin: CARD_3DS, threeDS: { data, handlePendingThreeDS } });
    await vi.waitFor(() => expect(live()).toBe("Você fechou a confirmação; sem ela não há pagamento."));
    $<HTMLButtonElement>("[part~=retry-button]")!.click();
    await vi.waitFor(() => expect(live()).toBe("Confirmando o pagamento…"));
    expect(handlePendingThreeDS).toHaveBeenCalledTimes(2);
  });

  it("a broken confirmation reports the error and offers to try again; unmount aborts a running one", async () => {
    const onError = vi.fn();
    const failure = Object.assign(new Error("blocked"), {
      name: "PaykitThreeDSError",
      code: "SCRIPT_LOAD_FAILED",
    });
    const handlePendingThreeDS = vi
      .fn()
      .mockRejectedValueOnce(failure)
      .mockReturnValue(new Promise(() => {}));
    const { $, live } = mount({ payin: CARD_3DS, onError, threeDS: { data, handlePendingThreeDS } });
    await vi.waitFor(() => expect(onError).toHaveBeenCalledWith(failure));
    expect(live()).toBe("A confirmação do banco não pôde ser aberta.");
    $<HTMLButtonElement>("[part~=retry-button]")!.click();
    const { signal } = handlePendingThreeDS.mock.calls[1]![2];
    mounted!.unmount();
    mounted = undefined;
    expect(signal.aborted).toBe(true);
  });

  it.each(["CHALLENGE_UNAVAILABLE", "CHALLENGE_EXPIRED"])(
    "%s (no open challenge any more) is reported, and the screen waits for the status instead of retrying",
    async (code) => {
      const onError = vi.fn();
      const failure = Object.assign(new Error("closed"), { name: "PaykitThreeDSError", code });
      const handlePendingThreeDS = vi.fn().mockRejectedValue(failure);
      const { root, live, title } = mount({
        payin: CARD_3DS,
        onError,
        threeDS: { data, handlePendingThreeDS },
      });
      await vi.waitFor(() => expect(live()).toBe("Confirmando o pagamento…"));
      expect(onError).toHaveBeenCalledWith(failure);
      expect(root.querySelector("[part~=retry-button]")).toBeNull();
      FakeEventSource.last().send(statusOf("EXPIRED", CARD_3DS.id));
      expect(title()).toBe("Prazo encerrado");
    },
  );

  it("threeDS without handlePendingThreeDS is INVALID_OPTIONS, reported and shown", async () => {
    const onError = vi.fn();
    const threeDS = { data } as unknown as MountPaymentOptions["threeDS"];
    const { title } = mount({ payin: CARD_3DS, onError, threeDS });
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: "INVALID_OPTIONS" }));
    expect(title()).toBe("Não foi possível acompanhar o pagamento");
    expect(FakeEventSource.instances).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a card payin already APPROVED in its 201 shows the final state without opening a stream", async () => {
    const onFinal = vi.fn();
    const { title } = mount({ payin: { ...CARD_3DS, status: "APPROVED" }, onFinal });
    await vi.advanceTimersByTimeAsync(0);
    expect(title()).toBe("Pagamento aprovado");
    expect(onFinal).toHaveBeenCalledWith(expect.objectContaining({ id: CARD_3DS.id, status: "APPROVED" }));
    expect(FakeEventSource.instances).toHaveLength(0);
  });
});

describe("strings", () => {
  it.each([
    ["en", "Pay with PIX", "The code expires in 59:59", "Copy code"],
    ["en-US", "Pay with PIX", "The code expires in 59:59", "Copy code"],
    ["pt-BR", "Pague com PIX", "O código expira em 59:59", "Copiar código"],
    ["fr", "Pague com PIX", "O código expira em 59:59", "Copiar código"],
  ])("locale %s", (locale, heading, countdown, copy) => {
    const { $, title, root } = mount({ locale });
    expect([title(), $("[role=timer]")!.textContent, $("button")!.textContent]).toEqual([
      heading,
      countdown,
      copy,
    ]);
    expect(root.querySelector("[part=root]")!.getAttribute("lang")).toBe(
      locale.startsWith("en") ? "en" : "pt-BR",
    );
  });

  it("strings override some texts and keep the locale's others", () => {
    const { title, $ } = mount({
      locale: "en",
      strings: { pixTitle: "Pague via Pix", expiresIn: "{time} left" },
    });
    expect([title(), $("[role=timer]")!.textContent, $("button")!.textContent]).toEqual([
      "Pague via Pix",
      "59:59 left",
      "Copy code",
    ]);
  });
});

describe("mountPayment's input", () => {
  it.each([
    ["no payin", { payin: undefined }],
    ["no statusUrl", { statusUrl: "" }],
    ["a payin without id", { payin: { paymentMethod: "PIX" } }],
  ])("%s is INVALID_OPTIONS, and nothing stays on the page", (_, options) => {
    expect(() => mount(options as Partial<MountPaymentOptions>)).toThrow(
      expect.objectContaining({ name: "PaykitCheckoutError", code: "INVALID_OPTIONS" }),
    );
    expect(document.querySelector("#checkout")!.innerHTML).toBe("");
  });
});
