import { adoptStyles, type Child, h, safeHref } from "./dom.js";
import { PaykitCheckoutError } from "./errors.js";
import { qrSvg } from "./qr.js";
import { CHECKOUT_STRINGS, type CheckoutStrings, checkoutLocale, fill } from "./strings.js";
import { boletoDueDate, EXPIRY_AFTER_MS, expiryOf, formatBoletoLine, formatRemaining } from "./time.js";
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
 * With `onRenew`, an expired PIX or boleto offers a new one: the screen then draws and follows that payin in
 * place of the first (docs/decisions/checkout-renew.md).
 */
export function renderPayment(root: ShadowRoot, options: MountPaymentOptions, renewed?: boolean): () => void {
  const { payin, statusUrl, onFinal, onError, threeDS, onRenew } = options;
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
  // The PIX countdown's tick, set by pix().
  let tick: (() => void) | undefined;
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
    if (wait < MAX_TIMEOUT_MS) after(wait, run);
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
    // A renewal still running when the screen goes draws nothing afterwards.
    shown = "gone";
    root.replaceChildren();
  };

  adoptStyles(root, options.stylesheetUrl);
  const title = h(doc, "h2", { part: "title", tabindex: "-1" });
  const body = h(doc, "div", { part: "body" });
  // Present and empty from the start, so that screen readers announce what is written into it later; the status
  // role makes it a polite live region (docs/decisions/checkout-budget-renew.md).
  const live = h(doc, "p", { class: "sr", role: "status" });
  const box = h(doc, "div", { part: "root", lang }, title, body, live);
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
  // The screen of the renewed payin, once there is one: unmounting stops it.
  let current = unmount;
  // Listeners of the screen's own elements are properties (they go with the elements); listen() is for the
  // document's and the window's, which must be removed.
  const button = (part: string, label: string, onclick: () => unknown) => {
    const element = h(doc, "button", { class: "button", part: `button ${part}-button` }, label);
    element.onclick = onclick;
    return element;
  };

  /**
   * A final (or, at the end of the countdown, terminal) message: shown, announced, and given the focus.
   * `state` is `approved`, `refused`, `expired` or `error`, which names its strings (`approvedTitle`, …), or
   * `renew` and `renewing`: the expired title with `message` and, to renew, an `action` button, which then takes
   * the focus (Enter renews).
   */
  const conclude = (state: string, message = t[`${state as "error"}Text`], action?: HTMLElement) => {
    if (shown === state) return;
    shown = state;
    const heading = t[`${state as "error"}Title`] ?? t.expiredTitle;
    box.className = state === "approved" ? "final" : "final bad";
    show(heading, text(message, { part: "message" }), action);
    say(`${heading}. ${message}`);
    (action ?? title).focus();
  };
  /**
   * The end of the time to pay, by the countdown or the server. With `onRenew`, a PIX or boleto offers a new
   * one instead of ending the screen; a failed renewal offers to try again.
   */
  const expire = (failed?: unknown) => {
    // PIX and BOLETO: the methods with an expiry of their own.
    if (!onRenew || !EXPIRY_AFTER_MS[method]) return conclude("expired");
    if (shown && !failed) return;
    conclude(
      "renew",
      failed ? t.renewFailed : "",
      button("renew", fill(t.renew, { method: method === "PIX" ? "Pix" : "boleto" }), renew),
    );
  };
  /**
   * Asks the page for a new payin and, once it has one, draws and follows it instead. The expired payin is still
   * followed meanwhile (its grace period): if it turns out paid, that outcome wins and the new payin is not shown.
   */
  const renew = async () => {
    conclude("renewing", t.renewing);
    try {
      const next = await onRenew!(payin);
      // Paid meanwhile (the expired payin's late APPROVED), or unmounted: the answer is not shown.
      if (shown !== "renewing") return;
      // The same screen anew for the new payin, which it checks as it checked the first one (a throw before it
      // draws anything); then the expired payin's screen, stream, timers and listeners go.
      current = renderPayment(root, { ...options, payin: next, expiresAt: "" }, true);
      stop();
      box.remove();
    } catch {
      if (shown === "renewing") expire(1);
    }
  };
  const end = (status: PaymentStatusUpdate) => {
    stop();
    // approved, refused or expired: only FINAL_STATUSES reach here, and each names its state.
    const state = status.status.toLowerCase();
    if (state === "expired") expire();
    else conclude(state);
    // Not when the expired payin is offered for renewal: the screen is not over.
    if (shown === state) call(onFinal, status);
  };
  const fail = (error: Error) => {
    call(onError, error);
    if ((error as PaykitCheckoutError).code !== "STATUS_UNAVAILABLE") {
      stop();
      conclude("error");
    }
  };

  /** The code (PIX) or line (boleto) in a read-only field, with a copy button and its visible confirmation. */
  const copyBlock = (label: string, display: string, value: string, copyLabel: string) => {
    const field = h(doc, "textarea", {
      id: "code",
      part: "code",
      readonly: "",
      rows: display.length > 60 ? "4" : "2",
      spellcheck: "false",
    });
    field.value = display;
    const note = text("", { class: "note", part: "copy-note" });
    let noteTimer: ReturnType<typeof setTimeout> | undefined;
    field.onfocus = () => field.select();
    const copy = button("copy", copyLabel, async () => {
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
    // The code and its button before the QR code in the document, as a phone shows them (the shopper pays from
    // the phone in their hand, where a QR code is of no use); from 480 px wide the stylesheet shows the QR code
    // first. Reading order follows the document (docs/decisions/checkout-pix-layout.md).
    show(
      t.pixTitle,
      muted(t.pixHowTo),
      amount,
      h(doc, "div", { class: "pay" }, h(doc, "div", {}, ...copyBlock(t.pixCode, code, code, t.copyCode)), qr),
      expiry !== undefined && countdown,
      waiting(),
    );
    if (expiry === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let warned = 99;
    // Recomputed from the clock at each tick, never counted down: a tab in the background gets its timers
    // throttled, and one brought back to view ticks at once (visibilitychange below).
    tick = () => {
      clear(timer);
      const left = expiry - Date.now();
      if (left <= 0) {
        expire();
        return;
      }
      countdown.textContent = fill(t.expiresIn, { time: formatRemaining(left) });
      const mark = WARN_AT_MINUTES.find((minutes) => left <= minutes * 60_000 && minutes < warned);
      if (mark) {
        warned = mark;
        say(fill(t.expiringSoon, { minutes: Math.ceil(left / 60_000) }));
      }
      timer = after(left % 1000 || 1000, tick!);
    };
    tick();
  };

  const boleto = () => {
    const line = payin.boleto?.barcode ?? "";
    const pdf = safeHref(payin.boleto?.url, doc.baseURI);
    const due = boletoDueDate(line, Date.parse(payin.createdAt!) || Date.now());
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
      anchor.onclick = () => {
        try {
          storage?.setItem(key, "1");
        } catch {}
      };
      return anchor;
    };
    const draw = () => {
      if (shown) return;
      // Reading never throws (the HTML standard's getItem has no error): reaching the storage (above) and writing
      // to it (full, private mode) do.
      if (storage?.getItem(key) === "1") {
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
    const retry = () => button("retry", t.retry, run);
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
    // An EXPIRED 201 may be renewed too: unmounting then stops the renewed screen.
    return () => current();
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
  // Back in view: the status asked now (when polling), and the countdown recomputed.
  listen(doc, "visibilitychange", () => {
    if (!doc.hidden) {
      watch?.refresh();
      if (!shown) tick?.();
    }
  });
  if (expiry !== undefined) {
    at(expiry, expire);
    at(expiry + EXPIRY_GRACE_MS, stop);
  }
  // A renewed payin's screen takes the focus, as the state it replaces had it.
  if (renewed) title.focus();
  return () => current();
}
