// @vitest-environment happy-dom
// Server-side rendering then hydration, as a framework (Next.js, Remix) does: the HTML from renderToString is
// put in the page and hydrateRoot takes it over. React reports a mismatch through console.error or
// onRecoverableError; the last test proves that this listening sees one.
import { act, type ReactNode, StrictMode } from "react";
import { hydrateRoot, type Root } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PaykitPayment, usePaymentStatus, useThreeDS } from "../src/index.js";
import { actEnvironment, FakeEventSource, fakeFetch, PIX, statusOf, stubNetwork } from "./fakes.js";
import { screens } from "./render.js";

actEnvironment();
let root: Root | undefined;
let container: HTMLElement;
let reports: unknown[];

beforeEach(() => {
  stubNetwork(fakeFetch({ status: 200, body: statusOf("PENDING") }));
  reports = [];
  vi.spyOn(console, "error").mockImplementation((...args) => reports.push(args));
  vi.spyOn(console, "warn").mockImplementation((...args) => reports.push(args));
});

afterEach(async () => {
  await act(async () => root?.unmount());
  root = undefined;
  container?.remove();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Puts the server's HTML of `server` in the page and hydrates it with `client`. */
async function hydrate(server: ReactNode, client: ReactNode = server) {
  const html = renderToString(server);
  container = document.createElement("div");
  container.innerHTML = html;
  document.body.append(container);
  await act(async () => {
    root = hydrateRoot(container, client, { onRecoverableError: (error) => reports.push(error) });
  });
  return html;
}

function Status({ id }: { id: string }) {
  const { status } = usePaymentStatus("/payment-status", id);
  const { state } = useThreeDS();
  return (
    <p>
      {status ?? "…"} / {state}
    </p>
  );
}

const page = (locale?: string) => (
  <main>
    <h1>Loja Exemplo</h1>
    <PaykitPayment payin={PIX} statusUrl="/payment-status" locale={locale} className="payment" />
    <Status id={PIX.id} />
  </main>
);

describe("server-side rendering and hydration", () => {
  it("hydrates the server's placeholder without a warning, then draws the screen", async () => {
    const html = await hydrate(page());
    expect(html).toContain("Carregando o pagamento…");
    expect(reports).toEqual([]);
    expect(screens(container)).toHaveLength(1);
    expect(container.querySelector("[data-paykit-placeholder]")).toBeNull();
  });

  it("hydrates under StrictMode without a warning, with one screen and one stream each", async () => {
    await hydrate(<StrictMode>{page("en")}</StrictMode>);
    expect(reports).toEqual([]);
    expect(screens(container)).toHaveLength(1);
    // One stream for the screen, one for usePaymentStatus.
    expect(FakeEventSource.instances).toHaveLength(2);
    await act(async () => {
      for (const source of FakeEventSource.instances) source.send(statusOf("APPROVED"));
    });
    expect(container.querySelector("p")!.textContent).toBe("APPROVED / idle");
    expect(FakeEventSource.open()).toHaveLength(0);
  });

  it("sees a mismatch when there is one (the check above can fail)", async () => {
    await hydrate(page("pt-BR"), page("en"));
    expect(reports.length).toBeGreaterThan(0);
  });
});
