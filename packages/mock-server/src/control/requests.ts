// How the control table's calls (table.ts) read and answer: the query schemas that are the control
// API's own (the body schemas are the domain's, domain/control-params.ts), how a typed method's arguments
// become a query or body, and what a method resolves with from the HTTP body.
import { PAYIN_STATUSES, PAYOUT_STATUSES, storableString } from "@paykit/contract";
import * as z from "zod/mini";
import type { ControlCallOptions, SetClockParams } from "../domain/control.js";
import { ListQuery } from "../domain/control-params.js";
import type { DeliveryFilter } from "../domain/deliveries.js";
import { ApiError } from "../domain/errors.js";
import type { ListOptions, ListPage } from "../domain/lists.js";

/** `?awaitWebhooks=true` of a call that moves a payin or payout. */
export const AwaitQuery = z.strictObject({ awaitWebhooks: z.optional(z.boolean()) });
/** `?accountId=` of a call that concerns one account, or every account without it. */
export const AccountQuery = z.strictObject({
  accountId: z.optional(storableString(z.minLength(1), z.maxLength(200))),
});

/**
 * `GET /_mock/webhooks`'s query: the list's page and account, and which deliveries: one payin's or
 * payout's (`resourceId`), one event status, one state, newest first or oldest first (the default).
 */
export const WebhookListQuery = z.strictObject({
  ...ListQuery.shape,
  resourceId: z.optional(storableString(z.minLength(1), z.maxLength(200))),
  status: z.optional(z.enum([...new Set([...PAYIN_STATUSES, ...PAYOUT_STATUSES])])),
  state: z.optional(z.enum(["pending", "delivered", "failed"])),
  order: z.optional(z.enum(["newest", "oldest"])),
});

/** Which page of the delivery log, and which deliveries (`webhooks(accountId, options)`). */
export type WebhookListOptions = ListOptions & DeliveryFilter;

/** A clock body as JSON: a Date or epoch ms `now` as ISO 8601 (anything else is left for ClockBody). */
export function clockBody(params: SetClockParams): object {
  const now = params.now;
  if (!(now instanceof Date) && typeof now !== "number") return params;
  const date = new Date(now);
  return { ...params, now: Number.isNaN(date.getTime()) ? String(now) : date.toISOString() };
}

/** A moving call's `?awaitWebhooks=`. */
export const awaiting = (options: ControlCallOptions | undefined) => ({
  awaitWebhooks: options?.awaitWebhooks,
});
/** A list's query: its account and page. */
export const listQuery = (accountId: string | undefined, options: ListOptions | undefined) => ({
  accountId,
  limit: options?.limit,
  cursor: options?.cursor,
});
/** A page's entries: what a list method resolves with. */
export const pageData = <T>(page: ListPage<T>): T[] => page.data;
/** The `data` of an answer. */
export const dataOf = <T>(wire: { data: T }): T => wire.data;
/** What an acknowledgement resolves with. */
export const nothing = (): void => {};

/** The delivery log's query: its account and page, and the filters and order of `options`. */
export function webhookListQuery(accountId: string | undefined, options: WebhookListOptions | undefined) {
  return {
    ...listQuery(accountId, options),
    resourceId: options?.resourceId,
    status: options?.status,
    state: options?.state,
    order: options?.order,
  };
}

/**
 * The account of the keys a `GET /_mock/account` was sent with; 404 when it came with none that an
 * account has (docs/decisions/account-list-and-own-account.md).
 */
export function keysAccount(caller: string | undefined): string {
  if (caller !== undefined) return caller;
  throw new ApiError(
    "NOT_FOUND",
    "no account of this mock has the keys of this request: send the account's keys as Authorization: Basic base64(publicKey:secretKey)",
  );
}
