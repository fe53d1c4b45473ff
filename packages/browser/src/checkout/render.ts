import { adoptStyles, type Child, h, safeHref } from "./dom.js";
import { PaykitCheckoutError } from "./errors.js";
import { qrSvg } from "./qr.js";
import { CHECKOUT_STRINGS, type CheckoutStrings, checkoutLocale, fill } from "./strings.js";
import { boletoDueDate, expiryOf, formatBoletoLine, formatRemaining } from "./time.js";
import type { MountPaymentOptions, PaymentStatusUpdate } from "./types.js";
import { FINAL_STATUSES, type PaymentStatusWatch, watchPaymentStatus } from "./watch.js";

/**
 * After the payin's expiry the screen keeps listening this long, for a payment made in the last seconds or
 * the server's EXPIRED, then stops: no stream or timer stays open for a payin nobody can pay any more.
 */
export const EXPIRY_GRACE_MS = 60_000;
/** The countdown announces the minutes left when it crosses these marks (in minutes). */
const WARN_AT_MINUTES = [5, 1];
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Runs a page's callback; its throw is reported apart and never breaks the screen. */
function call<T>(callback: ((value: T) => void) | undefined, value: T): void {
  try {
    callback?.(value);
  } catch (error) {
    setTimeout(() => {
      throw error;
    });
  }
}

/**
 * Draws the payment screen of `options.payin` into `root` and follows its status; returns the function that
 * stops everything it started and removes what it drew. The shared core of mountPayment and <paykit-payment>.
 */
export function renderPayment(root: ShadowRoot, options: MountPaymentOptions): () => void {
  const { payin, statusUrl, onFinal, onError, threeDS } = options;
  if (!payin || typeof payin.id !== "string" || typeof payin.paymentMethod !== "string" || !statusUrl) {
    throw new PaykitCheckoutError("INVALID_OPTIONS", "mountPayment needs { payin, statusUrl }.");
  }
  const doc = root.ownerDocument;
  const view = doc.defaultView;
  const lang = checkoutLocale(options.locale);
  const t: CheckoutStrings = { ...CHECKOUT_STRINGS[lang], ...options.strings };
  const method = payin.paymentMethod;
  const expiry = expiryOf(payin, options.expiresAt);
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const cleanups: Array<() => void> = [];
  let watch: PaymentStatusWatch | undefined;
  let stopped = false;
  let shown = "";

  const after = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
    return timer;
  };
  const clear = (timer?: ReturnType<typeof setTimeout>) => {
    clearTimeout(timer);
    timers.delete(timer!);
  };
  // setTimeout fires at once past 2^31 - 1 ms (24.8 days): a stop that far ahead is left to the page's end.
  const at = (time: number, run: () => void) => {
    const wait = time - Date.now();
    if (wait < MAX_TIMEOUT_MS) after(Math.max(wait, 0), run);
  };
  const listen = (target: EventTarget, type: string, listener: (event: Event) => void) => {
    target.addEventListener(type, listener);
    cleanups.push(() => target.removeEventListener(type, listener));
  };
  const stop = () => {
    stopped = true;
    watch?.stop();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    for (const cleanup of cleanups.splice(0)) cleanup();
  };

  const unmount = () => {
    stop();
    root.replaceChildren();
  };

  adoptStyles(root, options.stylesheetUrl);
  const title = h(doc, "h2", { part: "title", tabindex: "-1" });
  const body = h(doc, "div", { part: "body" });
  // Present and empty from the start, so that screen readers announce what is written into it later.
  const live = h(doc, "p", { class: "sr", role: "status", "aria-live": "polite" });
  const box = h(doc, "div", { class: "root", part: "root", lang }, title, body, live);
  root.append(box);

  const say = (text: string) => {
    live.textContent = text;
  };
  const show = (heading: string, ...children: Child[]) => {
    title.textContent = heading;
    body.replaceChildren(...(children.filter(Boolean) as Array<Node | string>));
  };
  const text = (content: string, attributes: Record<string, string> = {}) => h(doc, "p", attributes, content);
  const muted = (content: string) => text(content, { class: "muted" });
  const waiting = (content = t.waiting) => text(content, { class: "waiting", part: "waiting" });
  // Not NaN or Infinity, which would read "R$ NaN".
  const amount =
    Number.isFinite(payin.amount) &&
    text(
      `${t.amount}: ${new Intl.NumberFormat(lang, { style: "currency", currency: "BRL" }).format(payin.amount! / 100)}`,
      { part: "amount" },
    );

  /**
   * A final (or, at the end of the countdown, terminal) message: shown, announced, and given the focus.
   * `state` is `approved`, `refused`, `expired` or `error`, which names its strings (`approvedTitle`, …).
   */
  const conclude = (state: "approved" | "refused" | "expired" | "error") => {
    if (shown === state) return;
    shown = state;
    const heading = t[`${state}Title`];
    const message = t[`${state}Text`];
    box.className = state === "approved" ? "root final" : "root final bad";
    show(heading, text(message, { part: "message" }));
    say(`${heading}. ${message}`);
    title.focus();
  };
  const end = (status: PaymentStatusUpdate) => {
    stop();
    // EXPIRED, and any final status a later version of the service adds, read as the end of the time to pay.
    conclude(status.status === "APPROVED" ? "approved" : status.status === "REFUSED" ? "refused" : "expired");
    call(onFinal, status);
  };
  const fail = (error: Error) => {
    call(onError, error);
    if ((error as PaykitCheckoutError).code !== "STATUS_UNAVAILABLE") {
      stop();
      conclude("error");
    }
  };

  /** The code (PIX) or line (boleto) in a read-only field, with a copy button and its visible confirmation. */
  const copyBlock = (label: string, display: string, value: string, button: string) => {
    const field = h(doc, "textarea", {
      id: "code",
      part: "code",
      readonly: "",
      rows: display.length > 60 ? "4" : "2",
      spellcheck: "false",
    });
    field.value = display;
    const copy = h(doc, "button", { type: "button", class: "button", part: "button copy-button" }, button);
    const note = text("", { class: "note", part: "copy-note" });
    let noteTimer: ReturnType<typeof setTimeout> | undefined;
    listen(field, "focus", () => field.select());
    listen(copy, "click", async () => {
      let copied = false;
      try {
        await view!.navigator.clipboard.writeText(value);
        copied = true;
      } catch {
        // No Clipboard API (http page, old browser) or permission refused: select the text for a manual copy.
        field.focus();
        field.select();
        try {
          copied = doc.execCommand("copy");
        } catch {}
      }
      if (stopped) return;
      note.textContent = copied ? t.copied : t.copyFallback;
      say(note.textContent);
      clear(noteTimer);
      if (copied) noteTimer = after(4_000, () => (note.textContent = ""));
    });
    return [h(doc, "label", { for: "code", part: "label" }, label), field, copy, note];
  };

  const pix = () => {
    const code = payin.pix?.qrcode ?? "";
    const countdown = text("", { class: "countdown", part: "countdown", role: "timer" });
    let qr: Child;
    try {
      qr = qrSvg(doc, code);
    } catch (cause) {
      // Longer than a QR code holds (about 2.3 KB at level M; a BR Code is a few hundred bytes), or not text:
      // reported, and the screen still offers the code to copy.
      call(onError, new PaykitCheckoutError("INVALID_OPTIONS", "pix.qrcode is too long.", { cause }));
    }
    show(
      t.pixTitle,
      muted(t.pixHowTo),
      amount,
      qr,
      ...copyBlock(t.pixCode, code, code, t.copyCode),
      expiry !== undefined && countdown,
      waiting(),
    );
    if (expiry === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let warned = 99;
    // Recomputed from the clock at each tick, never counted down: a tab in the background gets its timers
    // throttled, and one brought back to view ticks at once (visibilitychange below).
    const tick = () => {
      clear(timer);
      const left = expiry - Date.now();
      if (left <= 0) {
        conclude("expired");
        return;
      }
      countdown.textContent = fill(t.expiresIn, { time: formatRemaining(left) });
      const mark = WARN_AT_MINUTES.find((minutes) => left <= minutes * 60_000 && minutes < warned);
      if (mark) {
        warned = mark;
        say(fill(t.expiringSoon, { minutes: Math.ceil(left / 60_000) }));
      }
      timer = after(left % 1000 || 1000, tick);
    };
    listen(doc, "visibilitychange", () => !doc.hidden && shown === "" && tick());
    tick();
  };

  const boleto = () => {
    const line = payin.boleto?.barcode ?? "";
    const pdf = safeHref(payin.boleto?.url, doc.baseURI);
    const due = boletoDueDate(line, Date.parse(payin.createdAt ?? "") || Date.now());
    const date =
      due !== undefined && new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" }).format(due);
    show(
      t.boletoTitle,
      muted(t.boletoHowTo),
      amount,
      date && text(fill(t.dueDate, { date }), { part: "due-date" }),
      ...copyBlock(t.boletoLine, formatBoletoLine(line), line, t.copyLine),
      pdf &&
        h(
          doc,
          "a",
          {
            class: "button secondary",
            part: "button link",
            href: pdf,
            target: "_blank",
            rel: "noopener",
          },
          t.boletoPdf,
        ),
      waiting(),
    );
  };

  const openFinance = () => {
    // The bank sends the shopper back to the store's page, which mounts the screen again: this tab's
    // sessionStorage remembers that the shopper went, so the screen waits for the bank instead of sending them again.
    const key = `paykit:open-finance:${payin.id}`;
    let storage: Storage | undefined;
    try {
      storage = view?.sessionStorage;
    } catch {
      // Storage blocked (sandboxed frame, privacy settings): the screen then always offers the button.
    }
    // No button at all rather than one to a `javascript:` or `data:` URL (see safeHref).
    const bank = safeHref(payin.openFinanceRedirectUrl, doc.baseURI);
    const link = (label: string, classes: string) => {
      if (!bank) return;
      const anchor = h(doc, "a", { class: classes, part: "button link", href: bank }, label);
      listen(anchor, "click", () => {
        try {
          storage?.setItem(key, "1");
        } catch {}
      });
      return anchor;
    };
    const draw = () => {
      if (shown) return;
      let returned = false;
      try {
        returned = storage?.getItem(key) === "1";
      } catch {}
      if (returned) {
        show(
          t.openFinanceTitle,
          amount,
          waiting(t.openFinanceReturned),
          link(t.openFinanceAgain, "button secondary"),
        );
      } else {
        show(t.openFinanceTitle, muted(t.openFinanceHowTo), amount, link(t.openFinanceButton, "button"));
      }
    };
    // Back from the bank through the browser's back button: the page comes from the back-forward cache.
    listen(view ?? doc, "pageshow", (event) => {
      if ((event as PageTransitionEvent).persisted) {
        draw();
        watch?.refresh();
      }
    });
    draw();
  };

  const card = () => {
    const challenge = h(doc, "div", { part: "challenge" });
    const retry = () => {
      const button = h(
        doc,
        "button",
        { type: "button", class: "button", part: "button retry-button" },
        t.retry,
      );
      listen(button, "click", run);
      return button;
    };
    function run() {
      show(t.cardTitle, muted(t.cardHowTo), amount, challenge, !threeDS && waiting());
      if (!threeDS) return;
      const { data, handlePendingThreeDS: flow, ...settings } = threeDS;
      if (typeof flow !== "function") {
        fail(new PaykitCheckoutError("INVALID_OPTIONS", "threeDS needs handlePendingThreeDS."));
        return;
      }
      const abort = new AbortController();
      cleanups.push(() => abort.abort());
      flow(payin, data, { ...settings, container: challenge, signal: abort.signal }).then(
        ({ status }) => {
          if (stopped || shown) return;
          if (status === "CANCELED") {
            show(t.cardTitle, text(t.cardCanceled), retry());
            say(t.cardCanceled);
          } else {
            show(t.cardTitle, amount, waiting(t.cardConfirming));
            say(t.cardConfirming);
          }
        },
        (error: Error) => {
          // Aborted by unmount (stopped), or the payin already final (shown): nothing to say.
          if (stopped || shown) return;
          call(onError, error);
          // No open challenge any more (already decided, or expired): the status endpoint brings the outcome.
          const decided = /^CHALLENGE_(UNAVAILABLE|EXPIRED)$/.test((error as { code?: string }).code ?? "");
          show(t.cardTitle, decided ? waiting(t.cardConfirming) : text(t.cardFailed), !decided && retry());
          say(decided ? t.cardConfirming : t.cardFailed);
        },
      );
    }
    run();
  };

  if (FINAL_STATUSES.includes(payin.status)) {
    // A card payin answered APPROVED or REFUSED at once: the 201 is already the final word.
    const status: PaymentStatusUpdate = {
      id: payin.id,
      status: payin.status,
      paymentMethod: method,
      updatedAt: payin.createdAt ?? "",
    };
    queueMicrotask(() => stopped || end(status));
    return unmount;
  }

  try {
    if (method === "PIX") pix();
    else if (method === "BOLETO") boleto();
    else if (method === "OPEN_FINANCE") openFinance();
    else if (method === "CREDIT_CARD" && payin.status === "PENDING_3DS") card();
    else show(t.waiting, amount, waiting());
    // A screen that failed while drawing (threeDS without its flow) has stopped: nothing to start.
    if (stopped) return unmount;

    watch = watchPaymentStatus(statusUrl, payin.id, {
      onStatus: (status) => FINAL_STATUSES.includes(status.status) && end(status),
      onError: fail,
    });
  } catch (error) {
    // A throw half-way (a statusUrl EventSource refuses, a page's 3DS flow that throws) leaves no countdown
    // timer or listener behind the screen that the caller never got.
    unmount();
    throw error;
  }
  listen(doc, "visibilitychange", () => !doc.hidden && watch?.refresh());
  if (expiry !== undefined) {
    at(expiry, () => conclude("expired"));
    at(expiry + EXPIRY_GRACE_MS, stop);
  }
  return unmount;
}
