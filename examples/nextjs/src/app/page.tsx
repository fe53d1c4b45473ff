import { Checkout } from "./checkout";

export default function CheckoutPage() {
  return (
    <main>
      <h1>Plano anual: R$ 149,90</h1>
      <Checkout />
    </main>
  );
}
