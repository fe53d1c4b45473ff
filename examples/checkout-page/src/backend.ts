import type { PayinCreateParams, PayoutListQuery } from "@paykit/contract";
import {
  isPaykitApiError,
  isPaykitError,
  isPaykitValidationError,
  type Paykit,
  WebhookOrderGuard,
} from "@paykit/node";
import { createPaymentStatus, type PaymentStatusEndpoint } from "@paykit/node/checkout";
import { ShopOrders } from "./orders.js";
import {
  DEMO_AMOUNT,
  DEMO_CARDS,
  DEMO_CUSTOMER,
  DEMO_ITEMS,
  DEMO_PAYER_IP,
  DEMO_PAYOUT_KEY,
} from "./sample-data.js";
import { type RunningServer, serve } from "./serve.js";
import { newSession, sessionOf } from "./session.js";
import { contentSecurityPolicy, staticFile } from "./static-files.js";
import { createWebhookReceiver } from "./webhook-receiver.js";

/** Options of {@link startCheckoutBackend}. */
export interface CheckoutBackendOptions {
  /** The merchant's Paykit client (keys of the merchant account). */
  paykit: Paykit;
  /** The webhook endpoint's signing secret (`whsec_…`), configured on the account. */
  webhookSecret: string;
  /**
   * The mock server's base URL. When set (development only) the page gets a "simulate payment"
   * button that asks the mock's control API to pay the PIX or boleto; a production backend leaves it out.
   */
  devMockUrl?: string;
  /**
   * Origins of the card issuer's 3DS script and challenge page (a PENDING_3DS payin's
   * `threeDSecureSdkUrl`), the only others the page's Content-Security-Policy lets run a script or
   * show a frame. @default [] (no card 3DS)
   */
  threeDSOrigins?: readonly string[];
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /** Where the backend logs (one line per payin, payout and webhook). @default console.log */
  log?: (line: string) => void;
}

/** The running example merchant backend. */
export interface CheckoutBackend extends RunningServer {
  /** Where Paykit delivers this merchant's webhooks. */
  webhookUrl: string;
  /** The merchant's orders and the statuses its webhooks applied. */
  orders: ShopOrders;
  /** The shoppers' payment-status endpoint, mounted at `/payment-status`. */
  paymentStatus: PaymentStatusEndpoint;
}

type Method = PayinCreateParams["paymentMethod"];

interface CardInput {
  holderName: string;
  number: string;
  expirationMonth: string;
  expirationYear: string;
  cvv: string;
  installments?: number;
}

/** Where the page follows a payin: `createPaymentStatus(...).handler` (docs/checkout.md). */
const STATUS_PATH = "/payment-status";

/** Maps a Paykit failure to the JSON the page shows; the message never holds keys or card data. */
function errorResponse(error: unknown): Response {
  if (isPaykitValidationError(error)) {
    return Response.json(
      { code: "INVALID_DATA", message: error.message, details: error.details },
      { status: 400 },
    );
  }
  if (isPaykitApiError(error)) {
    const status = error.status >= 500 ? 502 : error.status;
    return Response.json({ code: error.code, message: error.message, details: error.details }, { status });
  }
  if (isPaykitError(error))
    return Response.json({ code: error.code, message: error.message }, { status: 502 });
  throw error;
}

/** The requests that start a session when they carry none: the page, and placing an order. */
const STARTS_SESSION = new Set(["GET /", "POST /api/payins"]);

const routeOf = (request: Request) => `${request.method} ${new URL(request.url).pathname}`;

const notFound = (message: string) => Response.json({ code: "NOT_FOUND", message }, { status: 404 });

const METHODS: readonly Method[] = ["PIX", "BOLETO", "CREDIT_CARD", "OPEN_FINANCE"];

function orderReference(): string {
  return `order_${Date.now().toString(36)}_${crypto.randomUUID().slice(0, 8)}`;
}

function payinParams(method: Method, webhookUrl: string, card: CardInput | undefined): PayinCreateParams {
  const common = {
    amount: DEMO_AMOUNT,
    referenceId: orderReference(),
    isPhysicalProduct: false,
    payerIp: DEMO_PAYER_IP,
    items: DEMO_ITEMS,
    webhookUrl,
  };
  switch (method) {
    case "PIX":
    case "BOLETO":
      return { ...common, paymentMethod: method, customer: DEMO_CUSTOMER };
    case "OPEN_FINANCE":
      return { ...common, paymentMethod: method, customer: DEMO_CUSTOMER, bankId: "mock-bank" };
    case "CREDIT_CARD": {
      const { installments = 1, ...data } = card ?? ({} as CardInput);
      return { ...common, paymentMethod: method, customer: DEMO_CUSTOMER, card: { ...data, installments } };
    }
  }
}

function payoutQuery(params: URLSearchParams): PayoutListQuery {
  const query: Record<string, string | number> = {};
  for (const name of ["status", "startDate", "endDate", "referenceId"]) {
    const value = params.get(name);
    if (value) query[name] = value;
  }
  for (const name of ["page", "limit"]) {
    const value = params.get(name);
    // Sent as typed in: a non-number reaches the client's validation and comes back as INVALID_DATA.
    if (value) query[name] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return query as PayoutListQuery;
}

/**
 * Starts the example merchant backend: the checkout page, its JSON API (payins, payouts), the
 * payment-status endpoint the page's payment screen follows, and the verified webhook endpoint that
 * applies each payin's and payout's events in order, once, and tells it.
 *
 * @example
 * ```ts
 * const backend = await startCheckoutBackend({ paykit, webhookSecret: "whsec_…" });
 * console.log(`checkout at ${backend.url}`);
 * ```
 */
export async function startCheckoutBackend(options: CheckoutBackendOptions): Promise<CheckoutBackend> {
  const { paykit } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const orders = new ShopOrders();
  // In memory: the demo is one process. Several instances share a store (docs/webhooks.md).
  const order = new WebhookOrderGuard();
  // Only the session that placed an order may follow its payin; anyone else gets the 404 of an unknown id.
  const paymentStatus = createPaymentStatus({
    paykit,
    authorize: (request, payinId) => orders.placedBy(payinId, sessionOf(request)),
  });
  const receiveWebhook = createWebhookReceiver({
    secret: options.webhookSecret,
    orders,
    order,
    paymentStatus,
    log,
  });
  const csp = contentSecurityPolicy(options.threeDSOrigins ?? []);
  let webhookUrl = "";

  async function createPayin(request: Request, sessionId: string): Promise<Response> {
    const body = (await request.json().catch(() => ({}))) as { method?: string; card?: CardInput };
    const method = body.method as Method;
    if (!METHODS.includes(method)) {
      return Response.json(
        { code: "INVALID_DATA", message: `method must be one of ${METHODS.join(", ")}` },
        { status: 400 },
      );
    }
    try {
      const payin = await paykit.payins.create(payinParams(method, webhookUrl, body.card));
      // The status it was created in: a late webhook is judged against it.
      await order.remember("payin", { id: payin.id, status: payin.status, updatedAt: payin.createdAt });
      orders.add({
        payinId: payin.id,
        referenceId: payin.referenceId,
        paymentMethod: payin.paymentMethod,
        amount: payin.amount,
        status: payin.status,
        updatedAt: payin.createdAt,
        sessionId,
        created: payin,
      });
      log(`→ payin ${payin.id} ${payin.paymentMethod} ${payin.amount} cents: ${payin.status}`);
      // The customer as sent, for the card's 3DS challenge (the address is not part of it).
      const { address: _address, ...customer } = DEMO_CUSTOMER;
      return Response.json({ payin, customer }, { status: 201 });
    } catch (error) {
      log(`✗ payin ${method} refused: ${isPaykitError(error) ? error.code : String(error)}`);
      return errorResponse(error);
    }
  }

  async function createPayout(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
    try {
      const payout = await paykit.payouts.create({
        amount: typeof body.amount === "string" ? Number(body.amount) : (body.amount as number),
        pixKey: String(body.pixKey ?? ""),
        pixKeyType: body.pixKeyType as "EMAIL",
        // The referenceId is what makes a retried payout safe: the client looks it up before re-creating.
        referenceId:
          typeof body.referenceId === "string" && body.referenceId ? body.referenceId : orderReference(),
        webhookUrl,
      });
      await order.remember("payout", payout);
      log(`→ payout ${payout.id} ${payout.amount} cents to ${payout.pixKeyType} key: ${payout.status}`);
      return Response.json(payout, { status: 201 });
    } catch (error) {
      log(`✗ payout refused: ${isPaykitError(error) ? error.code : String(error)}`);
      return errorResponse(error);
    }
  }

  async function devControl(path: string, body?: unknown): Promise<Response> {
    if (!options.devMockUrl) return notFound("dev tools are off");
    const answer = await fetch(`${options.devMockUrl}/_mock/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    return new Response(await answer.text(), {
      status: answer.status,
      headers: { "content-type": answer.headers.get("content-type") ?? "application/json" },
    });
  }

  async function answer(request: Request, sessionId: string | undefined): Promise<Response> {
    const url = new URL(request.url);
    const { pathname } = url;
    const route = routeOf(request);
    // Every method reaches the status handler: it answers 405 itself to what is not GET or HEAD.
    if (pathname === STATUS_PATH) return paymentStatus.handler(request);
    const file = request.method === "GET" ? staticFile(pathname, csp) : undefined;
    if (file) return file;
    if (route === "GET /api/config") {
      return Response.json({
        amount: DEMO_AMOUNT,
        items: DEMO_ITEMS,
        customer: { name: DEMO_CUSTOMER.name, email: DEMO_CUSTOMER.email },
        cards: DEMO_CARDS,
        payoutKey: DEMO_PAYOUT_KEY,
        statusUrl: STATUS_PATH,
        dev: options.devMockUrl !== undefined,
      });
    }
    if (route === "POST /api/payins" && sessionId) return createPayin(request, sessionId);
    if (route === "POST /api/payouts") return createPayout(request);
    if (route === "GET /api/payouts") {
      try {
        return Response.json(await paykit.payouts.list(payoutQuery(url.searchParams)));
      } catch (error) {
        return errorResponse(error);
      }
    }
    if (route === "POST /webhooks/paykit") return receiveWebhook(request);
    // The payment screen again (the shopper back from the bank): for the session that ordered, only.
    const order = /^\/api\/payins\/([\w-]+)$/.exec(pathname);
    if (request.method === "GET" && order?.[1]) {
      const view = orders.get(order[1]);
      return view && orders.placedBy(order[1], sessionId)
        ? Response.json({ payin: view.created })
        : notFound("no such order");
    }
    const dev = /^\/api\/dev\/payins\/([\w-]+)\/(pay|authorize)$/.exec(pathname);
    if (request.method === "POST" && dev?.[1] && dev[2]) {
      if (!orders.get(dev[1])) return notFound("no such order");
      return devControl(`payins/${dev[1]}/${dev[2]}`, await request.json().catch(() => ({})));
    }
    return notFound(`${route} is not a route of this backend`);
  }

  async function handle(request: Request): Promise<Response> {
    const known = sessionOf(request);
    // The page, or an API client's first order, starts a session when the request has none.
    const session = known || !STARTS_SESSION.has(routeOf(request)) ? undefined : newSession();
    const response = await answer(request, known ?? session?.id);
    if (session) response.headers.append("set-cookie", session.cookie);
    return response;
  }

  const server = await serve(handle, { port: options.port ?? 0 });
  webhookUrl = `${server.url}/webhooks/paykit`;
  return {
    ...server,
    webhookUrl,
    orders,
    paymentStatus,
    // The endpoint first: it ends the open status streams, which the server would otherwise wait on.
    close: async () => {
      await paymentStatus.close();
      await server.close();
    },
  };
}
