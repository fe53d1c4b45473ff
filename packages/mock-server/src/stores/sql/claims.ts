// Which deliveries' attempts a process may make now, as one statement each (graphile-worker's way: the
// database is the queue). An attempt is due when its time came on the sandbox clock, no hold is left
// on its account's out-of-order batch, and no live lease holds it. An account's `paykit-mock listen`
// (docs/decisions/mock-listen.md) changes that for the events it takes: only the process its listener
// polls makes them, and they go in order per resource: a later one waits while an older one is pending
// (the worker brings the older one forward once, when the later one is queued). The memory store says
// the same in stores/memory/claims.ts.

/** A statement and its parameters. */
interface Query {
  text: string;
  params: unknown[];
}

// Whether the live listener `l` takes the event of delivery `x`.
const takes = (x: string) =>
  `(l.events IS NULL OR (${x}.record->>'resource') || '.' || lower(${x}.record->>'status') = ANY(l.events)
    OR (${x}.record->>'resource') || '.*' = ANY(l.events))`;

// The sandbox clock now ($1 is real time).
const SANDBOX_NOW = "($1 + (SELECT clock_offset_ms FROM paykit_sandbox WHERE id = 1))";

/**
 * The conditions of an attempt free to make now, on `paykit_deliveries d` left-joined with its
 * account's live listener `l`, for process `$2` (`owner` null: for any process, counting what is open).
 */
function freeNow(owner: string | null): string {
  return `d.state = 'pending' AND d.due_ms IS NOT NULL
    AND d.hold_until_ms <= $1
    AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= $1)
    AND NOT (d.out_of_order AND EXISTS (
      SELECT 1 FROM paykit_deliveries h
       WHERE h.account_id = d.account_id AND h.state = 'pending' AND h.hold_until_ms > $1))
    AND d.due_ms <= ${SANDBOX_NOW}
    AND CASE WHEN l.account_id IS NULL OR NOT ${takes("d")} THEN true
      ELSE ${owner === null ? "true" : "l.owner = $2"}
        AND NOT EXISTS (
          SELECT 1 FROM paykit_deliveries o
           WHERE o.account_id = d.account_id AND o.epoch = d.epoch AND o.resource_id = d.resource_id
             AND o.seq < d.seq AND o.state = 'pending' AND ${takes("o")})
      END`;
}

const FROM = `paykit_deliveries d
  JOIN paykit_accounts a ON a.id = d.account_id AND a.epoch = d.epoch AND a.removed_at IS NULL
  LEFT JOIN paykit_listeners l ON l.account_id = d.account_id AND l.until_ms > $1`;

/** Claims the attempts due now (of an account, or these ids, or any), leased to `owner`. */
export function claimQuery(
  owner: string,
  now: number,
  options: { accountId?: string; ids?: readonly string[]; limit: number; leaseMs: number },
): Query {
  const params: unknown[] = [now, owner, options.limit, now + options.leaseMs];
  let scope = "";
  if (options.accountId !== undefined) {
    params.push(options.accountId);
    scope += ` AND d.account_id = $${params.length}`;
  }
  if (options.ids !== undefined) {
    params.push([...options.ids]);
    scope += ` AND d.id = ANY($${params.length}::text[])`;
  }
  return {
    text: `WITH claimed AS (
             SELECT d.id FROM ${FROM}
              WHERE ${freeNow(owner)}${scope}
              ORDER BY d.due_ms, d.seq LIMIT $3
              FOR UPDATE OF d SKIP LOCKED)
           UPDATE paykit_deliveries r SET lease_owner = $2, lease_until_ms = $4
             FROM claimed c, paykit_accounts a
            WHERE r.id = c.id AND a.id = r.account_id
           RETURNING r.seq, r.record, a.*, (SELECT clock_offset_ms FROM paykit_sandbox WHERE id = 1) AS sandbox_offset_ms`,
    params,
  };
}

/** How many attempts are open now: due and free for some process, or under a live lease. */
export function openAttemptsQuery(
  now: number,
  filter: { accountId?: string; ids?: readonly string[] },
): Query {
  const params: unknown[] = [now, null];
  let scope = "";
  if (filter.accountId !== undefined) {
    params.push(filter.accountId);
    scope += ` AND d.account_id = $${params.length}`;
  }
  if (filter.ids !== undefined) {
    params.push([...filter.ids]);
    scope += ` AND d.id = ANY($${params.length}::text[])`;
  }
  return {
    text: `SELECT count(*)::int AS n FROM ${FROM}
            WHERE d.state = 'pending' AND $2::text IS NULL${scope}
              AND ((d.lease_until_ms IS NOT NULL AND d.lease_until_ms > $1) OR (${freeNow(null)}))`,
    params,
  };
}

/** The account's pending deliveries a listener takes (of these resources, or all) are due now. */
export function bringForwardQuery(
  now: number,
  accountId: string,
  events: readonly string[] | null,
  resourceIds?: readonly string[],
): Query {
  return {
    text: `UPDATE paykit_deliveries d
              SET due_ms = ${SANDBOX_NOW},
                  record = jsonb_set(d.record, '{nextAttemptAt}', to_jsonb(${SANDBOX_NOW} + a.clock_offset_ms))
             FROM paykit_accounts a, (SELECT $3::text[] AS events) l
            WHERE a.id = d.account_id AND a.epoch = d.epoch AND d.account_id = $2 AND d.state = 'pending'
              AND (d.due_ms IS NULL OR d.due_ms > ${SANDBOX_NOW}) AND ${takes("d")}
              AND ($4::text[] IS NULL OR d.resource_id = ANY($4::text[]))`,
    params: [
      now,
      accountId,
      events === null ? null : [...events],
      resourceIds === undefined ? null : [...resourceIds],
    ],
  };
}
