import { type MountedPayment, type MountPaymentOptions, mountPayment } from "@paykit/browser/checkout";
import { type ReactElement, type ReactNode, useEffect, useRef, useState } from "react";
import { LOADING_STRINGS, type PaykitPaymentStrings, placeholderLocale } from "./strings.js";

/** The props of {@link PaykitPayment}: the options of `mountPayment`, plus where and how React renders it. */
export interface PaykitPaymentProps extends Omit<MountPaymentOptions, "strings"> {
  /** Your own wording for some of the texts (`loading` is the placeholder's); the others come from `locale`. */
  strings?: Partial<PaykitPaymentStrings>;
  /** Class of the container `<div>`, for your layout; the screen itself is styled in its shadow root. */
  className?: string;
  /**
   * What the server and the first client render show until the screen is drawn.
   * @default a `<p role="status">` with `strings.loading` ("Carregando o pagamento…")
   */
  placeholder?: ReactNode;
}

/** The date of `expiresAt` as a number, so that a new `Date` object for the same instant is no change. */
const instant = (value: Date | string | undefined) =>
  value === undefined ? "" : String(new Date(value).getTime());

/**
 * The payment screen of a payin (`mountPayment` of `@paykit/browser/checkout`): the PIX QR code with
 * copy-and-paste and countdown, the boleto's line and PDF, the open finance button or the card's 3DS
 * confirmation, then the final status, live from your `createPaymentStatus` endpoint. The server and the first
 * client render show the same placeholder, so hydration never mismatches; the screen is drawn after mount, once
 * even under StrictMode, and unmounting the component stops every stream, request and timer it started.
 * @example
 * // payin: the 201 answer of POST /payin that your backend passed to the page
 * <PaykitPayment
 *   payin={payin}
 *   statusUrl="/payment-status" // createPaymentStatus(...).handler of @paykit/node/checkout
 *   onFinal={({ status }) => status === "APPROVED" && router.push("/thanks")}
 * />
 */
export function PaykitPayment(props: PaykitPaymentProps): ReactElement {
  const { payin, statusUrl, locale, strings, expiresAt, className, placeholder } = props;
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  const [state, setState] = useState<"loading" | "drawn" | "failed">("loading");
  const [failure, setFailure] = useState<{ error: unknown }>();

  // Callbacks and the options read once at mount (threeDS, stylesheetUrl) come from the latest render; they do
  // not redraw the screen. This effect is declared first, so it runs before the one that mounts.
  useEffect(() => {
    latest.current = props;
  });

  // What redraws the screen: another payin, endpoint, language, wording or expiry. Values, not object
  // identities, so a parent that builds `payin` or `strings` anew on each render does not restart the stream.
  const redraw = [payin?.id, payin?.paymentMethod, statusUrl, locale, instant(expiresAt)];
  const wording = JSON.stringify(strings ?? {});

  // biome-ignore lint/correctness/useExhaustiveDependencies: `redraw` and `wording` stand for the props they are built from.
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    let screen: MountedPayment | undefined;
    let cancelled = false;
    // StrictMode mounts, unmounts and mounts again in one go: drawing on the next microtask lets the first
    // mount be cancelled before it opened anything, so the page holds one screen and one status stream.
    queueMicrotask(() => {
      if (cancelled) return;
      const { payin, statusUrl, locale, strings, expiresAt, threeDS, stylesheetUrl, onError, onRenew } =
        latest.current;
      try {
        screen = mountPayment(element, {
          payin,
          statusUrl,
          locale,
          strings,
          expiresAt,
          threeDS,
          stylesheetUrl,
          onFinal: (status) => latest.current.onFinal?.(status),
          onError: (error) => latest.current.onError?.(error),
          // Whether the screen offers renewal is decided at mount, as for threeDS; the latest onRenew answers.
          onRenew: onRenew && ((expired) => latest.current.onRenew!(expired)),
        });
        setState("drawn");
      } catch (error) {
        // Options the screen refuses (no payin id, no statusUrl): the page's onError, else its error boundary.
        setState("failed");
        if (onError) onError(error as Error);
        else setFailure({ error });
      }
    });
    return () => {
      cancelled = true;
      screen?.unmount();
      setState("loading");
    };
  }, [...redraw, wording]);

  if (failure) throw failure.error;
  const lang = placeholderLocale(locale);
  return (
    <div className={className} data-paykit-payment-state={state}>
      {state === "loading" &&
        (placeholder ?? (
          <p data-paykit-placeholder="" role="status" lang={lang}>
            {strings?.loading ?? LOADING_STRINGS[lang]}
          </p>
        ))}
      <div ref={host} />
    </div>
  );
}
