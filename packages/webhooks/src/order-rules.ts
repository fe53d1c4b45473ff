// What may follow what, for the order guard: derived from the contract's transition tables (the one
// place they are written) and applied the same way by every store (docs/decisions/webhook-order-guard.md).
import {
  PAYIN_STATUSES,
  PAYIN_TRANSITIONS,
  PAYOUT_STATUSES,
  PAYOUT_TRANSITIONS,
} from "@paykit/contract/rules";
import type { WebhookEvent } from "./event.js";

/** The two kinds of resource a webhook reports. */
export type WebhookResourceKind = WebhookEvent["kind"];

/** What the order guard knows of one payin or payout: the last status it let through, and when it changed. */
export interface OrderState {
  /** The status, as the service spelled it (a status newer than this SDK included). */
  status: string;
  /** The resource's `updatedAt` with that status, in milliseconds since the epoch. */
  updatedAtMs: number;
}

/**
 * One event's place in its resource's order, as a store compares it: its status and `updatedAt`, and
 * what the contract's tables say may come before that status. Built by {@link webhookOrderClaim}.
 */
export interface OrderClaim {
  /** The event's status. */
  status: string;
  /** The event's `updatedAt`, in milliseconds since the epoch. */
  updatedAtMs: number;
  /**
   * The statuses this one may follow, directly or through others (a COMPLETED follows PENDING and
   * PROCESSING); empty for a status this version does not know.
   */
  follows: readonly string[];
  /** Every status of the resource's kind this version knows (the contract's table). */
  statuses: readonly string[];
}

/**
 * How an event stands against what is known of its resource: `forward` (it moves the resource on, or
 * nothing is known yet), `repeat` (the status already known) or `stale` (older, or a status the
 * tables say cannot follow the known one).
 */
export type OrderVerdict = "forward" | "repeat" | "stale";

type Transitions = Readonly<Record<string, readonly string[]>>;

/** For each status, every status it can be reached from by one or more transitions. */
function predecessors(transitions: Transitions): ReadonlyMap<string, readonly string[]> {
  const reached = new Map<string, Set<string>>();
  for (const from of Object.keys(transitions)) {
    // Everything reachable from `from`: its successors, theirs, … (the tables are small and acyclic).
    const seen = new Set<string>();
    const queue = [...(transitions[from] ?? [])];
    while (queue.length > 0) {
      const next = queue.shift() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...(transitions[next] ?? []));
    }
    for (const to of seen) {
      const sources = reached.get(to) ?? new Set<string>();
      sources.add(from);
      reached.set(to, sources);
    }
  }
  return new Map([...reached].map(([to, sources]) => [to, [...sources].sort()]));
}

interface KindOrder {
  statuses: readonly string[];
  follows: ReadonlyMap<string, readonly string[]>;
}

// Derived on first use, so importing the guard costs nothing (the node client imports it at start).
let orders: Record<WebhookResourceKind, KindOrder> | undefined;

function orderOf(kind: WebhookResourceKind): KindOrder {
  orders ??= {
    payin: { statuses: PAYIN_STATUSES, follows: predecessors(PAYIN_TRANSITIONS) },
    payout: { statuses: PAYOUT_STATUSES, follows: predecessors(PAYOUT_TRANSITIONS) },
  };
  return orders[kind];
}

const NONE: readonly string[] = [];

/** A value for an error message: short, whatever it is. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * The {@link OrderClaim} of a payin's or payout's status at `updatedAt` (an ISO 8601 date-time), from the
 * contract's transition tables: for a status learned elsewhere than a webhook (the 201 answer, a
 * confirmed record). Throws a `TypeError` naming the field when one is missing or unreadable.
 */
export function orderClaimOf(kind: WebhookResourceKind, status: string, updatedAt: string): OrderClaim {
  return claimOf(kind, status, updatedAt, "");
}

/**
 * The {@link OrderClaim} of a verified webhook event: its resource's status and `updatedAt`, and what
 * the contract's transition tables say may come before that status.
 */
export function webhookOrderClaim(event: WebhookEvent): OrderClaim {
  if (event === null || typeof event !== "object" || event.data === null || typeof event.data !== "object") {
    throw new TypeError("webhook order: event must be a parsed webhook event ({ kind, id, data })");
  }
  return claimOf(event.kind, event.data.status, event.data.updatedAt, "event.data.");
}

function claimOf(kind: WebhookResourceKind, status: string, updatedAt: string, where: string): OrderClaim {
  if (kind !== "payin" && kind !== "payout") {
    throw new TypeError(`webhook order: kind must be "payin" or "payout", got ${shown(kind)}`);
  }
  if (typeof status !== "string" || status === "") {
    throw new TypeError(`webhook order: ${where}status must be a non-empty string`);
  }
  const updatedAtMs = typeof updatedAt === "string" ? Date.parse(updatedAt) : Number.NaN;
  if (!Number.isFinite(updatedAtMs)) {
    throw new TypeError(
      `webhook order: ${where}updatedAt must be an ISO 8601 date-time, got ${shown(updatedAt)}`,
    );
  }
  const order = orderOf(kind);
  return { status, updatedAtMs, follows: order.follows.get(status) ?? NONE, statuses: order.statuses };
}

/** The key a resource's order is kept under: its kind and id (`payout:po_…`). */
export function webhookOrderKey(event: Pick<WebhookEvent, "kind" | "id">): string {
  if (typeof event.id !== "string" || event.id === "") {
    throw new TypeError("webhook order: event.id must be a non-empty string");
  }
  return `${event.kind}:${event.id}`;
}

/**
 * Where an event stands against what is known of its resource, in this order:
 * 1. nothing known: `forward`;
 * 2. an older `updatedAt` than the known one: `stale`;
 * 3. the known status again: `repeat`;
 * 4. both statuses in the contract's tables: `forward` when the event's status can follow the known one
 *    (a COMPLETED after PENDING, even if PROCESSING never came; a REFUNDED after COMPLETED), `stale`
 *    otherwise (a PROCESSING after COMPLETED, a FAILED after COMPLETED), an equal `updatedAt` included;
 * 5. a status this version does not know, on either side: only a strictly newer `updatedAt` is `forward`.
 *
 * Every store decides with these rules; a store of your own (or your own database) can call this.
 */
export function webhookOrderVerdict(claim: OrderClaim, known: OrderState | null): OrderVerdict {
  if (known === null) return "forward";
  if (claim.updatedAtMs < known.updatedAtMs) return "stale";
  if (claim.status === known.status) return "repeat";
  if (claim.statuses.includes(claim.status) && claim.statuses.includes(known.status)) {
    return claim.follows.includes(known.status) ? "forward" : "stale";
  }
  return claim.updatedAtMs > known.updatedAtMs ? "forward" : "stale";
}
