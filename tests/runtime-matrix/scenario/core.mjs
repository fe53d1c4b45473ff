// The scenario every runtime runs, against the packages installed from their tarballs. It imports
// nothing itself: each runtime's entry (ESM import, CJS require, bundled worker) passes the modules in,
// so the same lines run everywhere. Every step checks its own answer and throws with what it saw.

/**
 * Creates a PIX payin at the mock, verifies a signed webhook about it, reads the class and code of two
 * errors, and renders @paykit/react's payment screen for that payin on the server. Resolves to what it
 * observed; throws on the first surprise.
 */
export async function runScenario(config, deps) {
  const { Paykit, InvalidPixKeyError, parseWebhookRequest, WebhookVerificationError, signWebhook } = deps;
  const paykit = new Paykit({
    publicKey: config.publicKey,
    secretKey: config.secretKey,
    baseUrl: config.baseUrl,
  });

  const request = { ...config.payin, referenceId: `${config.payin.referenceId}-${config.runtime}` };
  const payin = await paykit.payins.create(request);
  if (!/^pi_/.test(payin.id) || payin.paymentMethod !== "PIX" || payin.amount !== request.amount) {
    throw new Error(`unexpected payin: ${JSON.stringify({ id: payin.id, method: payin.paymentMethod })}`);
  }
  if (typeof payin.pix?.qrcode !== "string" || payin.pix.qrcode.length === 0) {
    throw new Error("the PIX payin has no BR Code");
  }

  const body = JSON.stringify({
    id: payin.id,
    status: "APPROVED",
    paymentMethod: "PIX",
    amount: payin.amount,
    referenceId: request.referenceId,
    customer: { name: request.customer.name, email: request.customer.email },
    updatedAt: new Date().toISOString(),
  });
  const headers = await signWebhook(body, { secret: config.webhookSecret });
  const delivery = (text) =>
    new Request("https://merchant.example/webhooks/paykit", { method: "POST", body: text, headers });
  const event = await parseWebhookRequest(delivery(body), { secret: config.webhookSecret });
  if (event.kind !== "payin" || event.id !== payin.id || event.data.status !== "APPROVED") {
    throw new Error(`unexpected webhook event: ${JSON.stringify({ kind: event.kind, id: event.id })}`);
  }
  const tampered = await caught(() =>
    parseWebhookRequest(delivery(body.replace('"APPROVED"', '"REFUSED"')), { secret: config.webhookSecret }),
  );
  if (!(tampered instanceof WebhookVerificationError)) {
    throw new Error(`a tampered body was not refused: ${describe(tampered)}`);
  }

  const payoutError = await caught(() =>
    paykit.payouts.create({
      amount: 1_000,
      pixKey: "notfound@bank.test",
      pixKeyType: "EMAIL",
      referenceId: `matrix-payout-${config.runtime}`,
    }),
  );
  if (!(payoutError instanceof InvalidPixKeyError) || payoutError.code !== "INVALID_PIX_KEY") {
    throw new Error(`the unknown PIX key gave ${describe(payoutError)}`);
  }

  const missing = await caught(() => parseWebhookRequest(delivery(body), {}));
  if (!(missing instanceof WebhookVerificationError) || missing.code !== "SECRET_MISSING") {
    throw new Error(`a missing secret gave ${describe(missing)}`);
  }

  return {
    payin: payin.id,
    webhook: `verified ${event.kind} ${event.id}`,
    tampered: describe(tampered),
    payoutError: describe(payoutError),
    secretMissing: describe(missing),
    react: renderCheckout(payin, deps),
  };
}

/**
 * The server-side render of a merchant's checkout page with @paykit/react (react-dom/server's
 * `renderToString`, as a framework's SSR does): the screen's placeholder in the page's language and the
 * hooks idle, since nothing of the browser runs on the server. Answers what it saw, with React's version.
 */
function renderCheckout(payin, deps) {
  const { React, renderToString, PaykitPayment, usePaymentStatus, useThreeDS } = deps;
  const h = React.createElement;
  function Page() {
    const { status } = usePaymentStatus("/payment-status", payin.id);
    const { state } = useThreeDS();
    return h(
      "main",
      null,
      h(PaykitPayment, { payin, statusUrl: "/payment-status", locale: "en" }),
      h("p", { id: "status" }, `${status ?? "unknown"} / ${state}`),
    );
  }
  const html = renderToString(h(Page));
  const placeholder = '<p data-paykit-placeholder="" role="status" lang="en">Loading the payment…</p>';
  if (!html.includes('data-paykit-payment-state="loading"') || !html.includes(placeholder)) {
    throw new Error(`<PaykitPayment> rendered on the server as ${html}`);
  }
  if (!html.includes('<p id="status">unknown / idle</p>')) {
    throw new Error(`usePaymentStatus and useThreeDS rendered on the server as ${html}`);
  }
  return `placeholder, hooks idle (React ${React.version})`;
}

async function caught(fn) {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

function describe(error) {
  if (error === undefined) return "no error";
  return `${error?.name ?? typeof error} ${error?.code ?? String(error?.message ?? error)}`;
}
