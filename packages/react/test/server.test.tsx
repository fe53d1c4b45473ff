// @vitest-environment node
// On the server there is no DOM, no EventSource and no fetch to the status endpoint: rendering starts nothing.
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PaykitPayment, usePaymentStatus, useThreeDS } from "../src/index.js";
import { PIX } from "./fakes.js";

afterEach(() => {
  vi.unstubAllGlobals();
});

function Page() {
  const { status } = usePaymentStatus("/payment-status", PIX.id);
  const { state } = useThreeDS();
  return (
    <>
      <PaykitPayment payin={PIX} statusUrl="/payment-status" locale="en" />
      <p>
        {status ?? "unknown"} / {state}
      </p>
    </>
  );
}

describe("rendering on the server", () => {
  it("renders the placeholder and the idle hooks, and opens nothing", () => {
    const fetch = vi.fn();
    vi.stubGlobal("fetch", fetch);
    expect(typeof document).toBe("undefined");
    const html = renderToString(<Page />);
    expect(html).toContain('<p data-paykit-placeholder="" role="status" lang="en">Loading the payment…</p>');
    expect(html).toContain("<p>unknown<!-- --> / <!-- -->idle</p>");
    expect(fetch).not.toHaveBeenCalled();
  });
});
