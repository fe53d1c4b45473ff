import { isStorableText, STORABLE_TEXT_MESSAGE } from "@paykit/contract";
import type { ControlScope } from "../control/call.js";
import { credentialsAccount } from "../domain/accounts.js";
import { ApiError } from "../domain/errors.js";
import { constantTimeEqual } from "../domain/ids.js";
import type { Turn } from "../domain/turn.js";
import type { EngineRequest } from "./messages.js";

/**
 * Whom a control call concerns, for the access rules of a shared sandbox: `open` (anyone: a CI run
 * making its own account), `global` (every account: the sandbox clock, resetting everything, the whole
 * delivery log, the account list, faults for everyone), `caller` (the account of the keys the request
 * is sent with: `GET /_mock/account`), or one account (`accountId` `null` when the named resource does
 * not exist; `resource` names it in the 404 another account's keys get).
 */
export type ControlAccess = "open" | "global" | "caller" | { accountId: string | null; resource: string };

// Only the Bearer scheme is named: a Basic challenge would make a browser pop its login dialog over
// the dashboard (which asks for the token itself), though a shared sandbox also takes account keys.
const BEARER_CHALLENGE = 'Bearer realm="Paykit mock control"';

/** The admin token check of `--admin-token` (constant time). */
export function checkAdminToken(req: EngineRequest, token: string): void {
  const header = req.header("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1] || !constantTimeEqual(match[1], token)) {
    throw new ApiError("UNAUTHORIZED", "the control API needs Authorization: Bearer <admin token>", {
      headers: { "www-authenticate": BEARER_CHALLENGE },
    });
  }
}

/**
 * The rules of a sandbox a team shares (`sharedSandbox`): the admin token may do everything; an
 * account's own keys (Basic pk:sk, as on the merchant API) may make the calls that concern that account
 * and nothing else. Another account's resource answers 404 exactly as a missing one does, so keys
 * cannot even learn which ids exist elsewhere; a call about every account answers 403 to account keys.
 * Answers the account whose keys authorized the call, `undefined` for the admin token or an open call.
 */
export async function authorizeSharedControlCall(
  turn: Turn,
  req: EngineRequest,
  access: ControlAccess,
  adminToken: string,
): Promise<string | undefined> {
  if (access === "open") return undefined;
  const header = req.header("authorization") ?? "";
  if (/^Bearer\s/i.test(header)) {
    checkAdminToken(req, adminToken);
    return undefined;
  }
  const caller = /^Basic\s/i.test(header)
    ? ((await credentialsAccount(header, (pk) => turn.tx.accountByPublicKey(pk)))?.id ?? null)
    : null;
  if (caller === null) {
    throw new ApiError(
      "UNAUTHORIZED",
      "this control call needs the account's own keys (Basic pk:sk) or the admin token (Bearer)",
      { headers: { "www-authenticate": BEARER_CHALLENGE } },
    );
  }
  if (access === "global") {
    throw new ApiError(
      "FORBIDDEN",
      "this control call concerns every account of the shared sandbox: it needs the admin token",
      { status: 403 },
    );
  }
  if (access !== "caller" && access.accountId !== caller)
    throw new ApiError("NOT_FOUND", `${access.resource} does not exist`);
  return caller;
}

/** The `accountId` a control body names, if any (a body that is not JSON concerns everyone). */
export function accountIdInBody(body: string | null): string | undefined {
  return textInBody(body, "accountId");
}

/** A text field of a JSON body, if the body is a JSON object holding one. */
export function textInBody(body: string | null, field: string): string | undefined {
  if (body === null) return undefined;
  try {
    const value = JSON.parse(body) as unknown;
    const text =
      typeof value === "object" && value !== null ? (value as Record<string, unknown>)[field] : undefined;
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An id a control call names, refused before any store reads it when it is not storable text (NUL, a
 * lone surrogate): no record can have it, and PostgreSQL refuses such a parameter outright. The answer
 * is the one the call's own validation gives such a field.
 */
function storableId(id: string, field: string): string {
  if (!isStorableText(id))
    throw new ApiError("INVALID_DATA", `${field} ${STORABLE_TEXT_MESSAGE}`, {
      details: [{ path: field, message: STORABLE_TEXT_MESSAGE }],
    });
  return id;
}

/** One account, by id, as a control call's access (`accountId` null when it does not exist). */
async function oneAccount(turn: Turn, accountId: string, field = "id"): Promise<ControlAccess> {
  const account = await turn.tx.account(storableId(accountId, field));
  return { accountId: account === null ? null : accountId, resource: `account ${accountId}` };
}

/** Whom one request of a control call concerns, from the call's scope in the control table. */
export async function accessOf(
  scope: ControlScope,
  turn: Turn,
  req: EngineRequest,
  params: Record<string, string>,
): Promise<ControlAccess> {
  const id = params.id ?? "";
  if (scope === "payin" || scope === "payout" || scope === "delivery") storableId(id, "id");
  switch (scope) {
    case "open":
    case "global":
    case "caller":
      return scope;
    case "allAccounts":
      return "global";
    case "account":
      return oneAccount(turn, id);
    case "payin":
      return { accountId: (await turn.tx.payin(id))?.accountId ?? null, resource: `payin ${id}` };
    case "payout":
      return { accountId: (await turn.tx.payout(id))?.accountId ?? null, resource: `payout ${id}` };
    case "delivery":
      return {
        accountId: (await turn.tx.delivery(id))?.accountId ?? null,
        resource: `webhook delivery ${id}`,
      };
    case "queried": {
      // `?accountId=` narrows a list (or the faults) to one account; without it the call is everyone's
      const accountId = new URLSearchParams(req.query).get("accountId") || undefined;
      return accountId === undefined ? "global" : oneAccount(turn, accountId, "accountId");
    }
    case "bodyAccount": {
      // a fault or a PIX key whose body names `accountId` concerns that account; without it, everyone
      const accountId = accountIdInBody(req.body);
      return accountId === undefined ? "global" : oneAccount(turn, accountId, "accountId");
    }
  }
}
