import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { PayinCreateParams, PayoutListQuery } from "@paykit/contract";
import { isPaykitApiError, isPaykitError, isPaykitValidationError, type Paykit } from "@paykit/node";
import { type MerchantUpdate, OrderBook } from "./orders.js";
import { brCodeQrDataUrl } from "./qr.js";
import {
  DEMO_AMOUNT,
  DEMO_CARDS,
  DEMO_CUSTOMER,
  DEMO_ITEMS,
  DEMO_PAYER_IP,
  DEMO_PAYOUT_KEY,
} from "./sample-data.js";
import { type RunningServer, serve } from "./serve.js";
import { createWebhookReceiver } from "./webhook-receiver.js";

/** Options of {@link startCheckoutBackend}. */
export interface CheckoutBackendOptions {
  /** The merchant's Paykit client (keys of the merchant account). */
  paykit: Paykit;
  /** The webhook endpoint's signing secret (`whsec_…`), configured on the account. */
  webhookSecret: string;
  /**
   * The mock server's base URL. When set (development only) the page gets a "simulate payment"
   * button that asks the mock's control API to pay the PIX; a production backend leaves it out.
   */
  devMockUrl?: string;
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
  orders: OrderBook;
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

const PUBLIC_DIR = fileURLToPath(new URL("../public/", import.meta.url));
const STATIC: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/checkout.css": { file: "checkout.css", type: "text/css; charset=utf-8" },
  "/checkout.js": { file: "checkout.js", type: "text/javascript; charset=utf-8" },
};

/** The `<script>` build of `@paykit/browser` (`window.Paykit.handlePendingThreeDS`). */
function browserIifePath(): string {
  return createRequire(import.meta.url).resolve("@paykit/browser/iife");
}

async function staticFile(path: string, type: string): Promise<Response> {
  try {
    return new Response(await readFile(path), {
      headers: { "content-type": type, "cache-control": "no-store" },
    });
  } catch {
    return Response.json(
      { code: "NOT_FOUND", message: `${path} is missing (run \`pnpm build\` for the browser bundle)` },
      { status: 404 },
    );
  }
}

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

function sse(orders: OrderBook): Response {
  let unsubscribe = (): void => {};
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (update: MerchantUpdate) =>
        controller.enqueue(encoder.encode(`event: ${update.type}\ndata: ${JSON.stringify(update)}\n\n`));
      unsubscribe = orders.subscribe(send);
      controller.enqueue(encoder.encode(": connected\n\n"));
      keepAlive = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), 15_000);
      keepAlive.unref?.();
    },
    cancel() {
      unsubscribe();
      clearInterval(keepAlive);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" },
  });
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
 * server-sent events that move the page, and the verified, de-duplicated webhook endpoint.
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
  const orders = new OrderBook();
  const receiveWebhook = createWebhookReceiver({ secret: options.webhookSecret, orders, log });
  let webhookUrl = "";

  async function createPayin(request: Request): Promise<Response> {
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
      orders.add({
        payinId: payin.id,
        referenceId: payin.referenceId,
        paymentMethod: payin.paymentMethod,
        amount: payin.amount,
        status: payin.status,
        updatedAt: payin.createdAt,
      });
      log(`→ payin ${payin.id} ${payin.paymentMethod} ${payin.amount} cents: ${payin.status}`);
      const qrImage = payin.paymentMethod === "PIX" ? await brCodeQrDataUrl(payin.pix.qrcode) : undefined;
      const { address: _address, ...customer } = DEMO_CUSTOMER;
      return Response.json({ payin, qrImage, customer }, { status: 201 });
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
      log(`→ payout ${payout.id} ${payout.amount} cents to ${payout.pixKeyType} key: ${payout.status}`);
      return Response.json(payout, { status: 201 });
    } catch (error) {
      log(`✗ payout refused: ${isPaykitError(error) ? error.code : String(error)}`);
      return errorResponse(error);
    }
  }

  async function devControl(path: string, body?: unknown): Promise<Response> {
    if (!options.devMockUrl)
      return Response.json({ code: "NOT_FOUND", message: "dev tools are off" }, { status: 404 });
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

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const { pathname } = url;
    const route = `${request.method} ${pathname}`;
    const asset = STATIC[pathname];
    if (request.method === "GET" && asset) return staticFile(PUBLIC_DIR + asset.file, asset.type);
    if (route === "GET /vendor/paykit-browser.js") return staticFile(browserIifePath(), "text/javascript");
    if (route === "GET /api/config") {
      return Response.json({
        amount: DEMO_AMOUNT,
        items: DEMO_ITEMS,
        customer: { name: DEMO_CUSTOMER.name, email: DEMO_CUSTOMER.email },
        cards: DEMO_CARDS,
        payoutKey: DEMO_PAYOUT_KEY,
        dev: options.devMockUrl !== undefined,
      });
    }
    if (route === "GET /api/events") return sse(orders);
    if (route === "POST /api/payins") return createPayin(request);
    if (route === "POST /api/payouts") return createPayout(request);
    if (route === "GET /api/payouts") {
      try {
        return Response.json(await paykit.payouts.list(payoutQuery(url.searchParams)));
      } catch (error) {
        return errorResponse(error);
      }
    }
    if (route === "POST /webhooks/paykit") return receiveWebhook(request);
    const order = /^\/api\/payins\/([\w-]+)$/.exec(pathname);
    if (request.method === "GET" && order?.[1]) {
      const view = orders.get(order[1]);
      return view
        ? Response.json(view)
        : Response.json({ code: "NOT_FOUND", message: "no such order" }, { status: 404 });
    }
    const dev = /^\/api\/dev\/payins\/([\w-]+)\/(pay|authorize)$/.exec(pathname);
    if (request.method === "POST" && dev?.[1] && dev[2]) {
      if (!orders.get(dev[1]))
        return Response.json({ code: "NOT_FOUND", message: "no such order" }, { status: 404 });
      return devControl(`payins/${dev[1]}/${dev[2]}`, await request.json().catch(() => ({})));
    }
    return Response.json(
      { code: "NOT_FOUND", message: `${route} is not a route of this backend` },
      { status: 404 },
    );
  }

  const server = await serve(handle, { port: options.port ?? 0 });
  webhookUrl = `${server.url}/webhooks/paykit`;
  return { ...server, webhookUrl, orders };
}
