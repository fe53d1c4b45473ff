"use client"; // the payment screen runs in the browser
import { type CheckoutPayin, PaykitPayment } from "@paykit/react";
import { useState } from "react";

/** The order button, then the payment screen of the payin the shop created, followed until it is final. */
export function Checkout() {
  const [payin, setPayin] = useState<CheckoutPayin | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  async function order() {
    setProblem(null);
    const answer = await fetch("/api/orders", { method: "POST" });
    if (answer.ok) setPayin((await answer.json()) as CheckoutPayin);
    else setProblem("Não foi possível criar o pagamento. Tente de novo.");
  }

  if (payin === null)
    return (
      <>
        <button type="button" onClick={order}>
          Pagar com PIX
        </button>
        {problem && <p role="alert">{problem}</p>}
      </>
    );
  return (
    <>
      <PaykitPayment
        payin={payin} // the 201 body of POST /payin, as the orders route answered it
        statusUrl="/api/payment-status" // createPaymentStatus's route
        onFinal={({ status }) => setOutcome(status)} // a display: the order ships on the verified webhook
        onError={(error) => setProblem(error.message)}
      />
      {outcome === "APPROVED" && <p data-outcome={outcome}>Obrigado! Seu pedido está confirmado.</p>}
      {problem && <p role="alert">{problem}</p>}
    </>
  );
}
