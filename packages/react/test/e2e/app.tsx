// The merchant's React checkout of the real-browser test: rendered by the test's server (renderToString) and
// hydrated in Chromium by client.tsx, under StrictMode, with a button that leaves the payment step.
import { StrictMode, useState } from "react";
import { type CheckoutPayin, PaykitPayment, usePaymentStatus } from "../../src/index.js";

/** What the page records for the test: the screen's final status and errors. */
export const events: string[] = [];

function PaymentStep({ payin }: { payin: CheckoutPayin }) {
  const { status } = usePaymentStatus("/payment-status", payin.id);
  return (
    <section>
      <PaykitPayment
        payin={payin}
        statusUrl="/payment-status"
        onFinal={({ status }) => events.push(`final:${status}`)}
        onError={(error) => events.push(`error:${error.name}`)}
      />
      <p id="order-status">Pedido: {status ?? "…"}</p>
    </section>
  );
}

/** The page: the payment step until the shopper leaves it. */
export function App({ payin }: { payin: CheckoutPayin }) {
  const [paying, setPaying] = useState(true);
  return (
    <StrictMode>
      <main>
        <h1>Loja Exemplo</h1>
        {paying ? <PaymentStep payin={payin} /> : <p id="left">Pagamento fechado</p>}
        <button type="button" onClick={() => setPaying(false)}>
          Escolher outra forma de pagamento
        </button>
      </main>
    </StrictMode>
  );
}
