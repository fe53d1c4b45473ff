// The order guard's verdicts for every pair of statuses, written out by hand as tables (not derived
// from the code under test): row = the status known, column = the status of the event that arrives,
// both with the same or a newer `updatedAt`. F forward, R repeat, S stale. An older `updatedAt` is
// always S. Shared by the rules' unit test and the store contract (every store answers the same).
import type { WebhookResourceKind } from "../src/order.js";

const PAYOUT = `
                   AWAITING_APPROVAL APPROVED PENDING PROCESSING COMPLETED FAILED REFUSED CANCELED REFUNDED
AWAITING_APPROVAL  R                 F        S       F          F         F      F       F        F
APPROVED           S                 R        S       F          F         F      F       S        F
PENDING            S                 S        R       F          F         F      F       S        F
PROCESSING         S                 S        S       R          F         F      F       S        F
COMPLETED          S                 S        S       S          R         S      S       S        F
FAILED             S                 S        S       S          S         R      S       S        S
REFUSED            S                 S        S       S          S         S      R       S        S
CANCELED           S                 S        S       S          S         S      S       R        S
REFUNDED           S                 S        S       S          S         S      S       S        R
`;

const PAYIN = `
             PENDING APPROVED REFUSED PENDING_3DS EXPIRED
PENDING      R       F        F       S           F
APPROVED     S       R        S       S           S
REFUSED      S       S        R       S           S
PENDING_3DS  S       F        F       R           F
EXPIRED      S       S        S       S           R
`;

/** One cell of a table: the status known, the one arriving, and the verdict. */
export interface OrderPair {
  kind: WebhookResourceKind;
  known: string;
  incoming: string;
  verdict: "forward" | "repeat" | "stale";
}

const VERDICTS = { F: "forward", R: "repeat", S: "stale" } as const;

function cells(kind: WebhookResourceKind, table: string): OrderPair[] {
  const [header, ...rows] = table.trim().split("\n");
  const columns = (header as string).trim().split(/\s+/);
  return rows.flatMap((row) => {
    const [known, ...marks] = row.trim().split(/\s+/);
    return marks.map((mark, i) => ({
      kind,
      known: known as string,
      incoming: columns[i] as string,
      verdict: VERDICTS[mark as keyof typeof VERDICTS],
    }));
  });
}

/** Every pair of the two tables: 81 payout pairs and 25 payin pairs. */
export const ORDER_PAIRS: readonly OrderPair[] = [...cells("payout", PAYOUT), ...cells("payin", PAYIN)];

/**
 * A payout's or payin's events along one path of the contract's tables, oldest first: every order
 * they may arrive in must end at the last one.
 */
export const PATHS: ReadonlyArray<{ kind: WebhookResourceKind; statuses: readonly string[] }> = [
  { kind: "payout", statuses: ["PENDING", "PROCESSING", "COMPLETED", "REFUNDED"] },
  { kind: "payout", statuses: ["PENDING", "PROCESSING", "FAILED"] },
  { kind: "payout", statuses: ["PENDING", "PROCESSING", "REFUSED"] },
  { kind: "payout", statuses: ["AWAITING_APPROVAL", "APPROVED", "PROCESSING", "COMPLETED", "REFUNDED"] },
  { kind: "payout", statuses: ["AWAITING_APPROVAL", "CANCELED"] },
  { kind: "payin", statuses: ["PENDING", "APPROVED"] },
  { kind: "payin", statuses: ["PENDING", "EXPIRED"] },
  { kind: "payin", statuses: ["PENDING_3DS", "REFUSED"] },
];

/** Every order of `items`. */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}
