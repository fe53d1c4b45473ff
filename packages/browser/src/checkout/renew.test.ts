// @vitest-environment happy-dom
// A PIX or boleto that renews (mountPayment's onRenew, <paykit-payment>'s renewPayin): the expired state's
// button, the busy state, the swap to the new payin and its live status, a failed renewal and its retry, the
// races (paid while renewing, unmounted while renewing), and the screen without onRenew, as it was.
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
import {
  type CheckoutPayin,
  definePaykitPayment,
  type MountedPayment,
  type MountPaymentOptions,
  mountPayment,
  type PaykitPaymentElement,
} from "./index.js";
import { EXPIRY_GRACE_MS } from "./render.js";

const CREATED = Date.parse("2025-01-15T12:00:00.000Z");
const HOUR_MS = 3_600_000;
let mounted: MountedPayment | undefined;

/** The 201 answer of the PIX that replaces PIX, created when it expired. */
const RENEWED: CheckoutPayin = {
  ...PIX,
  id: "pi_01JD0000000000000000000002",
  createdAt: new Date(CREATED + HOUR_MS).toISOString(),
  pix: { qrcode: BR_CODE.replace("PAYKIT LOJA", "PAYKIT NOVA") },
};

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

beforeEach(() => {
  // queueMicrotask stays real: <paykit-payment> renders on it.
  vi.useFakeTimers({ now: CREATED + 1_000, toFake: ["setTimeout", "clearTimeout", "Date"] });
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.stubGlobal("fetch", fakeFetch({ status: 200, body: statusOf("PENDING") }));
  document.body.innerHTML = '<main id="checkout"></main>';
});

afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
  document.body.innerHTML = "";
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function mount(options: Partial<MountPaymentOptions> = {}) {
  const onFinal = vi.fn();
  const onError = vi.fn();
  mounted = mountPayment(document.querySelector("#checkout")!, {
    payin: PIX,
    statusUrl: "/payment-status",
    onFinal,
    onError,
    ...options,
  });
  const root = document.querySelector("[data-paykit-payment]")!.shadowRoot!;
  const $ = <E extends Element = HTMLElement>(selector: string) => root.querySelector<E>(selector);
  return {
    root,
    $,
    onFinal,
    onError,
    title: () => $("h2")!.textContent,
    message: () => $("[part=message]")?.textContent,
    live: () => $("[role=status]")!.textContent,
    renewButton: () => $<HTMLButtonElement>("[part~=renew-button]"),
    focused: () => root.activeElement,
  };
}

/** Until the screen shows `heading`, letting the page's promise and the screen's continuation run. */
async function until(read: () => unknown, value: unknown) {
  await vi.waitFor(() => expect(read()).toBe(value));
}

describe("a PIX that expires with onRenew", () => {
  it("at the end of the countdown offers 'Gerar novo Pix' with the focus on it, and keeps listening meanwhile", async () => {
    const onRenew = vi.fn();
    const screen = mount({ onRenew });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    expect(screen.title()).toBe("Prazo encerrado");
    expect(screen.renewButton()!.textContent).toBe("Gerar novo Pix");
    expect(screen.focused()).toBe(screen.renewButton());
    expect(screen.live()).toBe("Prazo encerrado. ");
    expect(screen.$("svg")).toBeNull(); // the expired code is not payable
    expect(screen.$("textarea")).toBeNull();
    expect(onRenew).not.toHaveBeenCalled();
    expect(screen.onFinal).not.toHaveBeenCalled();
    // The grace period as without onRenew: a payment of the last seconds still shows.
    expect(FakeEventSource.last().closed).toBe(false);
    await vi.advanceTimersByTimeAsync(EXPIRY_GRACE_MS);
    expect(FakeEventSource.last().closed).toBe(true);
    expect(screen.renewButton()).not.toBeNull(); // the offer outlives the watch
  });

  it("pressing it shows a busy state, then the new payin: its code, QR, countdown and live status, the old one's stream closed", async () => {
    const answer = deferred<CheckoutPayin>();
    const onRenew = vi.fn(() => answer.promise);
    const screen = mount({ onRenew });
    const first = FakeEventSource.last();
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    screen.renewButton()!.click();

    expect(onRenew).toHaveBeenCalledWith(PIX);
    expect([screen.title(), screen.message()]).toEqual(["Prazo encerrado", "Gerando um novo pagamento…"]);
    expect(screen.live()).toBe("Prazo encerrado. Gerando um novo pagamento…");
    expect(screen.focused()).toBe(screen.$("h2"));
    expect(screen.renewButton()).toBeNull(); // no second press while it runs

    answer.resolve(RENEWED);
    await until(screen.title, "Pague com PIX");
    expect(screen.$<HTMLTextAreaElement>("textarea")!.value).toBe(RENEWED.pix!.qrcode);
    expect(screen.$("svg")!.getAttribute("aria-label")).toBe(RENEWED.pix!.qrcode);
    expect(screen.$("[role=timer]")!.textContent).toBe("O código expira em 59:59");
    expect(screen.focused()).toBe(screen.$("h2"));
    expect(screen.root.querySelectorAll("[part=root]")).toHaveLength(1);
    expect(first.closed).toBe(true);
    const second = FakeEventSource.last();
    expect(second.url).toBe(`/payment-status?id=${RENEWED.id}`);

    // The expired payin is not followed any more; the new one is, to its end.
    first.send(statusOf("APPROVED"));
    expect(screen.title()).toBe("Pague com PIX");
    second.send(statusOf("APPROVED", RENEWED.id));
    expect(screen.title()).toBe("Pagamento aprovado");
    expect(screen.onFinal.mock.calls).toEqual([[statusOf("APPROVED", RENEWED.id)]]);
    expect(screen.onError).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the server's EXPIRED offers the renewal too, without onFinal, and the renewed payin expires and renews again", async () => {
    const onRenew = vi.fn().mockResolvedValue(RENEWED);
    const screen = mount({ onRenew, expiresAt: new Date(CREATED + 10 * 60_000) });
    FakeEventSource.last().send(statusOf("EXPIRED"));
    expect(screen.title()).toBe("Prazo encerrado");
    expect(FakeEventSource.last().closed).toBe(true);
    expect(screen.onFinal).not.toHaveBeenCalled();

    vi.setSystemTime(CREATED + HOUR_MS);
    screen.renewButton()!.click();
    await until(screen.title, "Pague com PIX");
    // The page's expiresAt was the first payin's: the new one counts down from its own createdAt.
    expect(screen.$("[role=timer]")!.textContent).toBe("O código expira em 1:00:00");
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    expect(screen.renewButton()!.textContent).toBe("Gerar novo Pix");
    screen.renewButton()!.click();
    expect(onRenew.mock.calls).toEqual([[PIX], [RENEWED]]);
  });

  it("a renewal that fails says so, with the focus on the button that tries again, which then works", async () => {
    const onRenew = vi
      .fn()
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockResolvedValueOnce(RENEWED);
    const screen = mount({ onRenew });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    screen.renewButton()!.click();
    await until(screen.message, "Não foi possível gerar um novo pagamento.");
    expect(screen.title()).toBe("Prazo encerrado");
    expect(screen.live()).toBe("Prazo encerrado. Não foi possível gerar um novo pagamento.");
    expect(screen.focused()).toBe(screen.renewButton());
    expect(screen.onError).not.toHaveBeenCalled(); // the rejection is the page's own

    screen.renewButton()!.click();
    await until(screen.title, "Pague com PIX");
    expect(FakeEventSource.last().url).toBe(`/payment-status?id=${RENEWED.id}`);
  });

  it.each<[string, () => unknown]>([
    ["nothing", () => undefined],
    ["the Response instead of its JSON", () => new Response("{}")],
    ["a payin without id", () => ({ ...RENEWED, id: undefined })],
    ["a payin without paymentMethod", () => ({ ...RENEWED, paymentMethod: 1 })],
    [
      "a throw",
      () => {
        throw new Error("no order");
      },
    ],
  ])("an onRenew that gives %s is a failed renewal, and the expired screen stays", async (_, answer) => {
    const screen = mount({ onRenew: answer as MountPaymentOptions["onRenew"] });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    screen.renewButton()!.click();
    await until(screen.message, "Não foi possível gerar um novo pagamento.");
    expect(screen.root.querySelectorAll("[part=root]")).toHaveLength(1);
    expect(FakeEventSource.instances).toHaveLength(1);
  });

  it("paid at the last second while renewing: the expired payin's APPROVED wins, and the new payin is not shown", async () => {
    const answer = deferred<CheckoutPayin>();
    const screen = mount({ onRenew: () => answer.promise });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    screen.renewButton()!.click();
    FakeEventSource.last().send(statusOf("APPROVED"));
    expect(screen.title()).toBe("Pagamento aprovado");
    answer.resolve(RENEWED);
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.title()).toBe("Pagamento aprovado");
    expect(screen.onFinal.mock.calls).toEqual([[statusOf("APPROVED")]]);
    expect(FakeEventSource.instances).toHaveLength(1);
  });

  it("the server's EXPIRED while renewing leaves the busy state alone", async () => {
    const answer = deferred<CheckoutPayin>();
    const screen = mount({ onRenew: () => answer.promise });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    screen.renewButton()!.click();
    FakeEventSource.last().send(statusOf("EXPIRED"));
    expect(screen.message()).toBe("Gerando um novo pagamento…");
    answer.resolve(RENEWED);
    await until(screen.title, "Pague com PIX");
    expect(screen.onFinal).not.toHaveBeenCalled();
  });

  it("unmounted while renewing: the answer draws nothing and opens nothing", async () => {
    const answer = deferred<CheckoutPayin>();
    const screen = mount({ onRenew: () => answer.promise });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    screen.renewButton()!.click();
    mounted!.unmount();
    mounted = undefined;
    answer.resolve(RENEWED);
    await vi.advanceTimersByTimeAsync(0);
    expect(document.querySelector("#checkout")!.innerHTML).toBe("");
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("unmount after a renewal stops the new payin's screen", async () => {
    const screen = mount({ onRenew: () => RENEWED });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    screen.renewButton()!.click();
    await until(screen.title, "Pague com PIX");
    mounted!.unmount();
    mounted = undefined;
    expect(FakeEventSource.last().closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(document.querySelector("#checkout")!.innerHTML).toBe("");
  });

  it("a 201 already EXPIRED (a page mounting an old order) offers the renewal, and unmount stops the renewed screen", async () => {
    const screen = mount({ payin: { ...PIX, status: "EXPIRED" }, onRenew: () => RENEWED });
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeEventSource.instances).toHaveLength(0);
    screen.renewButton()!.click();
    await until(screen.title, "Pague com PIX");
    expect(FakeEventSource.last().url).toBe(`/payment-status?id=${RENEWED.id}`);
    mounted!.unmount();
    mounted = undefined;
    expect(FakeEventSource.last().closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("in English: 'Get a new Pix'; and the page's own wording", async () => {
    const english = mount({ onRenew: vi.fn(), locale: "en" });
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    expect([english.title(), english.renewButton()!.textContent]).toEqual(["Time is up", "Get a new Pix"]);
    mounted!.unmount();
    const reworded = mount({ onRenew: vi.fn(), strings: { renew: "Quero outro {method}" } });
    expect(reworded.renewButton()!.textContent).toBe("Quero outro Pix"); // mounted after the expiry
  });
});

describe("which payins renew", () => {
  it("a boleto: 'Gerar novo boleto' at its expiry (createdAt + 3 days), and at the server's EXPIRED", async () => {
    const screen = mount({ payin: BOLETO, onRenew: vi.fn() });
    await vi.advanceTimersByTimeAsync(3 * 24 * HOUR_MS);
    expect(screen.renewButton()!.textContent).toBe("Gerar novo boleto");
    mounted!.unmount();
    const again = mount({ payin: BOLETO, onRenew: vi.fn() });
    FakeEventSource.last().send(statusOf("EXPIRED", BOLETO.id));
    expect(again.renewButton()!.textContent).toBe("Gerar novo boleto");
    expect(again.onFinal).not.toHaveBeenCalled();
  });

  it.each([
    ["OPEN_FINANCE", OPEN_FINANCE],
    ["CREDIT_CARD", CARD_3DS],
  ])("%s does not (no expiry of its own): its EXPIRED ends the screen as before", (_, payin) => {
    const onRenew = vi.fn();
    const screen = mount({ payin, onRenew });
    FakeEventSource.last().send(statusOf("EXPIRED", payin.id));
    expect([screen.title(), screen.message()]).toEqual([
      "Prazo encerrado",
      "O prazo para pagar terminou. Faça um novo pedido.",
    ]);
    expect(screen.renewButton()).toBeNull();
    expect(screen.onFinal).toHaveBeenCalledTimes(1);
  });

  it("without onRenew, the expired PIX ends the screen exactly as before: its text, no button, onFinal", async () => {
    const screen = mount();
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    expect([screen.title(), screen.message(), screen.live()]).toEqual([
      "Prazo encerrado",
      "O prazo para pagar terminou. Faça um novo pedido.",
      "Prazo encerrado. O prazo para pagar terminou. Faça um novo pedido.",
    ]);
    expect(screen.focused()).toBe(screen.$("h2"));
    expect(screen.root.querySelectorAll("button")).toHaveLength(0);
    FakeEventSource.last().send(statusOf("EXPIRED"));
    expect(screen.onFinal.mock.calls).toEqual([[statusOf("EXPIRED")]]);
  });
});

describe("the PIX layout", () => {
  it("puts the code and its copy button before the QR code in the document (a phone's order; CSS turns it from 480 px)", () => {
    const screen = mount();
    const order = [...screen.root.querySelectorAll("textarea, [part~=copy-button], svg")].map((node) =>
      node.getAttribute("part"),
    );
    expect(order).toEqual(["code", "button copy-button", "qr"]);
  });
});

describe("<paykit-payment> with renewPayin", () => {
  it("renews through its renewPayin property, and offers nothing without it", async () => {
    definePaykitPayment();
    const element = document.createElement("paykit-payment") as PaykitPaymentElement;
    element.payin = PIX;
    element.statusUrl = "/payment-status";
    element.renewPayin = vi.fn(async () => RENEWED);
    document.body.append(element);
    await vi.waitFor(() =>
      expect(element.shadowRoot?.querySelector("h2")?.textContent).toBe("Pague com PIX"),
    );
    const finals: unknown[] = [];
    element.addEventListener("paykit-final", (event) => finals.push(event.detail));
    await vi.advanceTimersByTimeAsync(HOUR_MS);
    const root = element.shadowRoot!;
    root.querySelector<HTMLButtonElement>("[part~=renew-button]")!.click();
    await vi.waitFor(() => expect(root.querySelector("textarea")?.value).toBe(RENEWED.pix!.qrcode));
    expect(element.renewPayin).toHaveBeenCalledWith(PIX);
    FakeEventSource.last().send(statusOf("APPROVED", RENEWED.id));
    expect(finals).toEqual([statusOf("APPROVED", RENEWED.id)]);
    element.remove();
    expect(FakeEventSource.last().closed).toBe(true);

    const plain = document.createElement("paykit-payment") as PaykitPaymentElement;
    plain.payin = { ...PIX, createdAt: new Date(Date.now() - HOUR_MS).toISOString() };
    plain.statusUrl = "/payment-status";
    document.body.append(plain);
    await vi.waitFor(() =>
      expect(plain.shadowRoot?.querySelector("h2")?.textContent).toBe("Prazo encerrado"),
    );
    expect(plain.shadowRoot!.querySelector("button")).toBeNull();
  });
});
