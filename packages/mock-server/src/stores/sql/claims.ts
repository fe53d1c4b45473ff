// Which deliveries' attempts a process may make now, as one statement each (graphile-worker's way: the
// database is the queue). An attempt is due when its time came on the sandbox clock, no hold is left
// on its account's out-of-order batch, and no live lease holds it; an account whose `paykit-mock
// listen` another process holds is that process's to send, and a listened account's resource waits
// for its older events (docs/decisions/mock-listen.md). The memory store says the same in
// stores/memory/claims.ts.

/** A statement and its parameters. */
interface Query {
  text: string;
  params: unknown[];
}

// The conditions of an attempt free to make now, for `$owner` (null: by any process, for counting).
function freeNow(owner: string | null): string {
  return `d.state = 'pending' AND d.due_ms IS NOT NULL
    AND d.due_ms <= $1 + (SELECT clock_offset_ms FROM paykit_sandbox WHERE id = 1)
    AND d.hold_until_ms <= $1
    AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= $1)
    AND NOT (d.out_of_order AND EXISTS (
      SELECT 1 FROM paykit_deliveries h
       WHERE h.account_id = d.account_id AND h.state = 'pending' AND h.hold_until_ms > $1))
    AND NOT EXISTS (
      SELECT 1 FROM paykit_listeners l WHERE l.account_id = d.account_id AND l.until_ms > $1
        AND (${owner === null ? "false" : "l.owner <> $2"} OR EXISTS (
          SELECT 1 FROM paykit_deliveries o
           WHERE o.account_id = d.account_id AND o.epoch = d.epoch AND o.resource_id = d.resource_id
             AND o.seq < d.seq AND o.state = 'pending')))`;
}

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
             SELECT d.id FROM paykit_deliveries d
               JOIN paykit_accounts a ON a.id = d.account_id AND a.epoch = d.epoch AND a.removed_at IS NULL
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
export function openAttemptsQuery(now: number, filter: { accountId?: string; ids?: readonly string[] }): Query {
  const params: unknown[] = [now];
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
    text: `SELECT count(*)::int AS n FROM paykit_deliveries d
             JOIN paykit_accounts a ON a.id = d.account_id AND a.epoch = d.epoch AND a.removed_at IS NULL
            WHERE d.state = 'pending'${scope}
              AND ((d.lease_until_ms IS NOT NULL AND d.lease_until_ms > $1) OR (${freeNow(null)}))`,
    params,
  };
}
