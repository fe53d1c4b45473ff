// Customer-facing pages: the boleto PDF, the open finance bank page, the acquirer's 3DS script and
// challenge, the dashboard shell and the OpenAPI document.

import { buildOpenApiDocument } from "@paykit/contract/openapi";
import { ChallengeBody } from "../domain/control-params.js";
import { ApiError, invalidData } from "../domain/errors.js";
import { bankAuthorization, decideAtBank } from "../domain/open-finance.js";
import { orderOf } from "../domain/records.js";
import { type ClosedChallenge, closedChallenge, decideChallenge } from "../domain/three-ds.js";
import { boletoPdf } from "../pages/boleto-pdf.js";
import { challengePage, closedChallengePage } from "../pages/challenge-page.js";
import { renderDashboardPage } from "../pages/dashboard.js";
import { openFinanceDonePage, openFinancePage } from "../pages/open-finance-page.js";
import { threeDSScript } from "../pages/three-ds-script.js";
import { apiBody, checked, documentRoute } from "./bodies.js";
import { type EngineRequest, isJsonContentType, json, parseJsonBody } from "./messages.js";
import { isCrossOrigin } from "./origin-guard.js";
import type { Route } from "./router.js";

const HTML = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } as const;
// A page no other site may frame (clickjacking of a decision button).
const UNFRAMED = { "content-security-policy": "frame-ancestors 'none'", "x-frame-options": "DENY" } as const;

/** A decision posted from a page of another origin: refused before anything changes. */
function refuseCrossOrigin(req: EngineRequest): void {
  if (isCrossOrigin(req)) {
    throw new ApiError("FORBIDDEN_ORIGIN", "this page's decisions are accepted only from the page itself", {
      status: 403,
    });
  }
}

/** The pages' routes. */
export function pageRoutes(): Route[] {
  return [
    // The service's OpenAPI document (docs/openapi.json), open like the pages; built on first use.
    documentRoute("/openapi.json", () => buildOpenApiDocument()),
    {
      // The page itself is open like the other pages; its calls to the control API carry the admin
      // token (it asks for it on a 401), so the token guards every read and every decision.
      method: "GET",
      path: "/_mock/dashboard",
      kind: "page",
      handle: () => ({
        status: 200,
        headers: { ...HTML, ...UNFRAMED },
        body: renderDashboardPage(),
      }),
    },
    {
      method: "GET",
      path: "/_mock/boleto/:file",
      kind: "page",
      writes: false,
      handle: async ({ params, turn }) => {
        const id = params.file!.replace(/\.pdf$/, "");
        const payin = await turn.tx.payin(id);
        if (!payin || payin.boletoBarcode === null)
          throw new ApiError("NOT_FOUND", `no boleto ${params.file}`);
        const { customer } = orderOf(payin);
        const pdf = boletoPdf({
          payinId: payin.id,
          line: payin.boletoBarcode,
          amountCents: payin.amount,
          dueDate: new Date(payin.createdAt + 3 * 86_400_000).toISOString().slice(0, 10),
          payerName: customer.name,
        });
        return {
          status: 200,
          headers: {
            "content-type": "application/pdf",
            "content-disposition": `inline; filename="${payin.id}.pdf"`,
          },
          body: pdf,
        };
      },
    },
    {
      method: "GET",
      path: "/_mock/open-finance/:id",
      kind: "page",
      handle: async ({ req, params, turn }) => {
        const { payin, token } = await bankAuthorization(turn, params.id!);
        const { customer } = orderOf(payin);
        const html = openFinancePage({
          payinId: payin.id,
          amountCents: payin.amount,
          payerName: customer.name,
          status: payin.status,
          action: `${req.base}/_mock/open-finance/${payin.id}`,
          returnUrl: returnUrlOf(new URLSearchParams(req.query).get("returnUrl")),
          token,
        });
        return { status: 200, headers: { ...HTML, ...UNFRAMED }, body: html };
      },
    },
    {
      method: "POST",
      path: "/_mock/open-finance/:id",
      kind: "page",
      handle: async ({ req, params, turn }) => {
        refuseCrossOrigin(req);
        const type = req.header("content-type") ?? "";
        const form = isJsonContentType(type)
          ? ((parseJsonBody(req.body) as {
              decision?: unknown;
              returnUrl?: unknown;
              token?: unknown;
            } | null) ?? {})
          : Object.fromEntries(new URLSearchParams(req.body ?? ""));
        // The page keeps the return URL in a hidden field; a direct post may give it in the query. Read
        // before deciding: a refused return URL decides nothing.
        const sent = form.returnUrl ?? new URLSearchParams(req.query).get("returnUrl");
        if (sent != null && typeof sent !== "string") throw invalidData("returnUrl", "must be a string");
        const returnUrl = returnUrlOf(sent ?? null);
        const payin = await decideAtBank(turn, params.id!, { token: form.token, decision: form.decision });
        return {
          status: 200,
          headers: { ...HTML, ...UNFRAMED },
          body: openFinanceDonePage(payin.id, payin.status, returnUrl),
        };
      },
    },
    {
      method: "GET",
      path: "/_mock/acquirer/three-ds.js",
      kind: "page",
      handle: ({ req }) => ({
        status: 200,
        headers: {
          "content-type": "application/javascript; charset=utf-8",
          "cache-control": "no-store",
          "access-control-allow-origin": "*",
          "cross-origin-resource-policy": "cross-origin",
        },
        body: threeDSScript(new URL(req.base).origin, req.base),
      }),
    },
    {
      method: "GET",
      path: "/_mock/acquirer/challenge",
      kind: "page",
      handle: async ({ req, turn }) => {
        const query = new URLSearchParams(req.query);
        const tx = query.get("tx") ?? "";
        const parentOrigin = originOf(query.get("origin"));
        if (!parentOrigin) {
          throw new ApiError("INVALID_DATA", "origin must be the http(s) origin of the checkout page", {
            details: [{ path: "origin", message: "must be an http(s) origin" }],
          });
        }
        // A challenge that is not open any more is never shown again: the page says why and tells the
        // acquirer's script, so the checkout's flow rejects instead of waiting on a dead iframe.
        const closed = await closedChallenge(turn, tx);
        if (closed !== null) {
          return {
            status: CLOSED_STATUS[closed],
            headers: { ...HTML, "content-security-policy": `frame-ancestors ${parentOrigin}` },
            body: closedChallengePage(closed, parentOrigin),
          };
        }
        return {
          status: 200,
          headers: { ...HTML, "content-security-policy": `frame-ancestors ${parentOrigin}` },
          body: challengePage({
            transactionId: tx,
            parentOrigin,
            endpoint: `${req.base}/_mock/acquirer/challenge`,
          }),
        };
      },
    },
    {
      method: "POST",
      path: "/_mock/acquirer/challenge",
      kind: "page",
      handle: async ({ req, turn }) => {
        // Only the challenge page itself (the mock's origin, inside the checkout's iframe) decides.
        refuseCrossOrigin(req);
        const { payin, outcome } = await decideChallenge(turn, checked(ChallengeBody, apiBody(req)));
        return json(200, { outcome, status: payin.status });
      },
    },
  ];
}

/** Longest return URL the bank page takes. */
const MAX_RETURN_URL = 2048;

/**
 * The store page the open finance bank sends the customer back to: an absolute http(s) URL without
 * credentials, at most 2048 characters; anything else (`javascript:`, `data:`, relative) is refused,
 * so the bank page's link and refresh can never run script or leave the web.
 */
export function returnUrlOf(value: string | null): string | null {
  if (value === null || value === "") return null;
  const refuse = (message: string) =>
    new ApiError("INVALID_DATA", `returnUrl ${message}`, { details: [{ path: "returnUrl", message }] });
  if (value.length > MAX_RETURN_URL) throw refuse(`must have at most ${MAX_RETURN_URL} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse("must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw refuse("must be an absolute http or https URL");
  if (url.username || url.password) throw refuse("must not carry a user name or password");
  return url.href;
}

/** The HTTP status of the page for a challenge that is not open. */
const CLOSED_STATUS: Record<ClosedChallenge, number> = { unknown: 404, decided: 409, expired: 410 };

// Only a plain http(s) origin may receive the challenge's messages (no path, no "null").
function originOf(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== value) return null;
    return url.origin;
  } catch {
    return null;
  }
}
