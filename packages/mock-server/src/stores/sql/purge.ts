// Deletes what resets and removals hid (docs/decisions/shared-sandbox-resets-in-batches.md): the
// rows of an account's older epochs, and of removed accounts, a batch per transaction, so a big
// account's reset commits at once and its rows never hold another request up. Several processes may
// purge at once: each batch takes its rows in id order and skips those another process holds, so two
// purges never wait for each other (a DELETE of unordered rows deadlocked).
import type { Row } from "./columns.js";
import type { SqlDatabase } from "./sql-client.js";

/** Rows deleted per table and transaction. */
export const PURGE_BATCH = 1000;

/** The tables whose rows belong to an account's epoch: each one's key, and the order its index reads. */
const TABLES = [
  ["paykit_payins", "id", "epoch, id"],
  ["paykit_payouts", "id", "epoch, id"],
  ["paykit_deliveries", "id", "epoch, id"],
  ["paykit_due", "resource_id", "due_ms"],
] as const;

/** Deletes one batch of hidden rows; answers whether there may be more. */
export async function purgeBatch(db: SqlDatabase): Promise<boolean> {
  const { rows: targets } = await db.query<Row>(
    `SELECT id, epoch, removed_at IS NOT NULL AS removed FROM paykit_accounts
      WHERE removed_at IS NOT NULL OR purged_epoch < epoch ORDER BY id LIMIT 1`,
  );
  const target = targets[0];
  if (target === undefined) return false;
  const accountId = String(target.id);
  const epoch = Number(target.epoch);
  // the epochs to delete: below the account's, or all of a removed account's
  const below = target.removed === true ? epoch + 1 : epoch;
  let deleted = 0;
  for (const [table, key, order] of TABLES) {
    const { rows } = await db.query<Row>(
      `DELETE FROM ${table} WHERE ${key} IN (
         SELECT ${key} FROM ${table} WHERE account_id = $1 AND epoch < $2
          ORDER BY ${order} LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [accountId, below, PURGE_BATCH],
    );
    deleted += rows.length;
  }
  if (deleted > 0) return true;
  // nothing left (or what is left is held by another purge, which finishes it)
  if (target.removed === true) {
    await db.query(
      `DELETE FROM paykit_accounts WHERE id = $1 AND removed_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM paykit_payins WHERE account_id = $1)
         AND NOT EXISTS (SELECT 1 FROM paykit_payouts WHERE account_id = $1)
         AND NOT EXISTS (SELECT 1 FROM paykit_deliveries WHERE account_id = $1)
         AND NOT EXISTS (SELECT 1 FROM paykit_due WHERE account_id = $1)`,
      [accountId],
    );
    await db.query("DELETE FROM paykit_faults WHERE account_id = $1", [accountId]);
    await db.query("DELETE FROM paykit_pix_keys WHERE account_id = $1", [accountId]);
    await db.query("DELETE FROM paykit_listeners WHERE account_id = $1", [accountId]);
    // another process still deleting its rows: this one moves on
    const { rows } = await db.query("SELECT 1 FROM paykit_accounts WHERE id = $1", [accountId]);
    return rows.length === 0;
  }
  await db.query(
    `UPDATE paykit_accounts SET purged_epoch = $2 WHERE id = $1 AND purged_epoch < $2
       AND NOT EXISTS (SELECT 1 FROM paykit_payins WHERE account_id = $1 AND epoch < $2)
       AND NOT EXISTS (SELECT 1 FROM paykit_payouts WHERE account_id = $1 AND epoch < $2)
       AND NOT EXISTS (SELECT 1 FROM paykit_deliveries WHERE account_id = $1 AND epoch < $2)
       AND NOT EXISTS (SELECT 1 FROM paykit_due WHERE account_id = $1 AND epoch < $2)`,
    [accountId, epoch],
  );
  const { rows } = await db.query<Row>(
    "SELECT purged_epoch >= epoch AS done FROM paykit_accounts WHERE id = $1",
    [accountId],
  );
  return rows[0]?.done === true;
}
