// The merchant's side of a browser block: a real loopback server (Chromium lets only a loopback page
// reach the mock's loopback acquirer script: Private Network Access, as it would for a real shop) that
// serves the checkout page, the block's bundle, both `<script>` builds of @paykit/browser, the backend
// routes the 3DS blocks fetch, the route that renews an expired PIX (`POST /api/payins/{id}/renew`: a new
// PIX payin of the same order), and `/payment-status`, a real `createPaymentStatus` endpoint of
// @paykit/node/checkout. It creates one real PIX payin on the mock before the page loads: the `payin`
// of `context=checkout-page`, the one the shopper's session may follow.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import type { CardData, CreditCardPayinCreateParams } from "@paykit/contract";
import { samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { createPaymentStatus, toNodeListener } from "@paykit/node/checkout";
import { world } from "./world.js";

const resolve = createRequire(import.meta.url).resolve;
/** The `<script>` builds a page loads by file name (self-hosted under any path, or from a CDN). */
const SCRIPTS: ReadonlyArray<[RegExp, string]> = [
  [/paykit-checkout(\.global)?\.js$/, "@paykit/browser/checkout/iife"],
  [/paykit-browser(\.global)?\.js$/, "@paykit/browser/iife"],
];

/** The 3DS blocks' backend answers, as each block's fetch expects them. */
const BACKEND_SHAPES: Record<string, "payin" | "payin-and-customer"> = {
  "/api/payins": "payin-and-customer",
  "/api/orders": "payin",
};

/** What the page of a block is. */
export interface ShopPage {
  /** The HTML of `/checkout`, given the shop's PIX payin. */
  html: (payin: PixPayin) => string;
  /** Extra headers of `/checkout` (a Content-Security-Policy). */
  headers?: Record<string, string>;
  /** The bundled block, served as `/block.js`. */
  script?: string;
}

/** A running shop. */
export interface Shop {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  paykit: Paykit;
  /** The PIX payin created before the page loaded. */
  pix: PixPayin;
  /** The card payins the page's backend routes created. */
  created: string[];
  /** The PIX payins that renewed an expired one, oldest first. */
  renewed: PixPayin[];
  /** Hands the mock's signed webhook of `payinId`'s new status to the endpoint's `notify`, as the shop's receiver does. */
  notifyFromWebhook(payinId: string): Promise<void>;
  close(): Promise<void>;
}

async function createPix(paykit: Paykit) {
  const { paymentMethod: _method, ...order } = samplePayin("PIX", { webhookUrl: world().webhookUrl });
  return paykit.payins.create({ paymentMethod: "PIX", ...order });
}

/** The 201 answer of a PIX `POST /payin`. */
export type PixPayin = Awaited<ReturnType<typeof createPix>>;

async function createCardPayin(paykit: Paykit, req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const order = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as {
    amount: number;
    card: CardData;
    customer?: CreditCardPayinCreateParams["customer"];
  };
  // A page that sends no customer leaves it to the backend (the order's), as a shop's would.
  const params = samplePayin("CREDIT_CARD", {
    amount: order.amount,
    card: order.card,
    ...(order.customer ? { customer: order.customer } : {}),
  });
  const payin = await paykit.payins.create(params);
  return { payin, customer: params.customer };
}

/** Starts the shop of one block. */
export async function startShop(page: ShopPage): Promise<Shop> {
  const { keys, mock, secret } = world();
  const paykit = new Paykit({ ...keys, baseUrl: mock.url, webhookSecret: secret });
  const pix = await createPix(paykit);
  const created: string[] = [];
  const renewed: PixPayin[] = [];
  const placed = (payinId: string) =>
    payinId === pix.id || created.includes(payinId) || renewed.some((payin) => payin.id === payinId);
  // The shopper's session placed the PIX order (and its renewals) and the card orders of this page, and nothing else.
  const paymentStatus = createPaymentStatus({ paykit, authorize: (_request, payinId) => placed(payinId) });
  const status = toNodeListener(paymentStatus.handler);

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === "/checkout") {
      res.writeHead(200, { "content-type": "text/html", ...page.headers }).end(page.html(pix));
      return;
    }
    if (path === "/block.js" && page.script !== undefined) {
      res.writeHead(200, { "content-type": "text/javascript" }).end(page.script);
      return;
    }
    if (path === "/payment-status") return status(req, res);
    const script = SCRIPTS.find(([pattern]) => pattern.test(path));
    if (script) {
      res.writeHead(200, { "content-type": "text/javascript" }).end(readFileSync(resolve(script[1]), "utf8"));
      return;
    }
    const renewal = /^\/api\/payins\/([\w-]+)\/renew$/.exec(path);
    if (renewal && req.method === "POST" && placed(renewal[1] as string)) {
      const payin = await createPix(paykit);
      renewed.push(payin);
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify(payin));
      return;
    }
    const shape = BACKEND_SHAPES[path];
    if (!shape || req.method !== "POST") {
      res.writeHead(path === "/favicon.ico" ? 204 : 404).end();
      return;
    }
    const { payin, customer } = await createCardPayin(paykit, req);
    created.push(payin.id);
    const body = shape === "payin" ? payin : { payin, customer };
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    route(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(error.message);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paykit,
    pix,
    created,
    renewed,
    async notifyFromWebhook(payinId) {
      const { deliveries } = world();
      const mine = () =>
        deliveries.find((d) => {
          // a payin webhook's body is the payin itself
          const body = JSON.parse(new TextDecoder().decode(d.rawBody)) as { id?: string; status?: string };
          return body.id === payinId && body.status !== "PENDING";
        });
      const until = Date.now() + 10_000;
      while (!mine()) {
        if (Date.now() > until) throw new Error(`the mock sent no webhook for ${payinId} within 10 s`);
        await new Promise((done) => setTimeout(done, 25));
      }
      const delivery = mine() as NonNullable<ReturnType<typeof mine>>;
      await paymentStatus.notify(await paykit.webhooks.parse(delivery.rawBody, delivery.headers));
    },
    async close() {
      await paymentStatus.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
