// History for bench/shared-sandbox.mjs, written straight into the mock's own schema. The row shapes are
// not written here by hand: a real mock process creates one PIX payin with a webhook, it is paid and its
// APPROVED webhook delivered (see `captureTemplate`), and every seeded payin, delivery and delivery attempt
// is that row copied by `INSERT … SELECT generate_series`, with its own id, referenceId, externalId and
// times. The seeded payins are APPROVED and their deliveries delivered, so a mock that reads them back
// has no work to arm for them; the account's saved totals are then set to what its payins credit.

/**
 * SQL for `value` (a bigint expression) in `length` Crockford base32 characters, as the mock's ids use
 * them (src/domain/ids.ts: 10 time characters, then 16 random ones). Inline, not a function: a SQL
 * function with a subquery is not inlined, and costs more than the row it names.
 */
function crockfordSql(value, length) {
  return Array.from(
    { length },
    (_, k) =>
      `substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (((${value}) >> ${5 * (length - 1 - k)}) & 31)::int + 1, 1)`,
  ).join(" || ");
}

/** Seeded records are one second apart, all older than anything the bench creates through the API. */
const SPACING_MS = 1_000;

/**
 * Reads the rows a real mock wrote for one paid PIX payin with a delivered webhook (`payinId`), whole
 * (every column, as JSON), then deletes them, so the account holds seeded records only. Answers what
 * {@link seed} copies.
 */
export async function captureTemplate(db, payinId) {
  const one = async (sql, what) => {
    const { rows } = await db.query(sql, [payinId]);
    if (rows.length !== 1)
      throw new Error(`the template payin ${payinId} has ${rows.length} ${what} in the store, not 1`);
    return rows[0].row;
  };
  const payin = await one("SELECT to_jsonb(p) AS row FROM paykit_payins p WHERE id = $1", "rows");
  const delivery = await one(
    "SELECT to_jsonb(d) AS row FROM paykit_deliveries d WHERE resource_id = $1 AND state = 'delivered'",
    "delivered webhooks",
  );
  const attempt = await one(
    `SELECT to_jsonb(a) AS row FROM paykit_delivery_attempts a
       JOIN paykit_deliveries d ON d.id = a.delivery_id WHERE d.resource_id = $1`,
    "delivery attempts",
  );
  await db.query("DELETE FROM paykit_payins WHERE id = $1", [payinId]);
  await db.query("DELETE FROM paykit_deliveries WHERE id = $1", [delivery.id]);
  return { payin, delivery, attempt };
}

/** The id of seeded payin `i` (1-based), as {@link seed} writes it. */
export function seededPayinId(template, i, total) {
  return `pi_${crockford(seededTime(template, i, total), 10)}000000${crockford(i, 10)}`;
}

const seededTime = (template, i, total) =>
  Number(template.payin.record.createdAt) - (total + 1 - i) * SPACING_MS - 60_000;

function crockford(value, length) {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let out = "";
  for (let k = length - 1; k >= 0; k--) out += alphabet[Math.floor(value / 32 ** k) % 32];
  return out;
}

/**
 * The columns every seeded row of the account takes from it rather than from the template, on schemas
 * that have them: `epoch` (a reset bumps the account's, and rows of an older one are gone for readers).
 */
async function accountColumns(db, accountId) {
  const { rows } = await db.query("SELECT to_jsonb(a) AS row FROM paykit_accounts a WHERE id = $1", [
    accountId,
  ]);
  const epoch = rows[0]?.row.epoch;
  return epoch === undefined ? {} : { epoch };
}

/** The rows of `k` (i, t: created ms, u: id suffix) for seeded records `$1`…`$2`. */
const SERIES = `k AS (
  SELECT i, t, ${crockfordSql("t", 10)} || '000000' || ${crockfordSql("i::bigint", 10)} AS u
    FROM (SELECT i, $3::bigint + i * $4::bigint AS t FROM generate_series($1::int, $2::int) AS i) AS s)`;

/**
 * Makes `accountId` hold seeded payins 1…`count` (of at most `total` ever seeded in this run), each with
 * its delivered APPROVED webhook and one delivery attempt, and nothing else (rows a reset left, of any
 * epoch, are deleted first). Every column is
 * the template's (jsonb_populate_record), but for ids, references, times and the account's own columns.
 * No mock process may be running on the database. Answers the account's counts afterwards.
 */
export async function seed(db, template, accountId, count, total) {
  const { payin, delivery, attempt } = template;
  const own = JSON.stringify({ ...(await accountColumns(db, accountId)), account_id: accountId });
  const base = seededTime(template, 0, total);
  const [pending, approved] = payin.record.transitions;
  const approvedAfter = approved.at - pending.at;
  const deliveredAfter = Date.parse(delivery.created_at) - approved.at;
  const attemptAfter = Date.parse(attempt.at) - Date.parse(delivery.created_at);
  for (const table of ["paykit_payins", "paykit_payouts", "paykit_deliveries"])
    await db.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
  const batch = 100_000;
  for (let from = 1; from <= count; from += batch) {
    const series = [Math.min(count, from + batch - 1), base, SPACING_MS];
    await db.query(
      `WITH ${SERIES}
       INSERT INTO paykit_payins
       SELECT r.* FROM k, LATERAL jsonb_populate_record(NULL::paykit_payins, $5::jsonb || $6::jsonb || jsonb_build_object(
                'id', 'pi_' || u, 'reference_id', 'seed-' || i,
                'created_at', to_timestamp(t / 1000.0), 'updated_at', to_timestamp((t + $7) / 1000.0),
                'record', ($5::jsonb -> 'record') || jsonb_build_object(
                  'id', 'pi_' || u, 'accountId', $6::jsonb -> 'account_id', 'referenceId', 'seed-' || i,
                  'externalId', 'acq_seed' || lpad(i::text, 20, '0'), 'createdAt', t,
                  'transitions', jsonb_build_array(
                    jsonb_build_object('status', 'PENDING', 'at', t),
                    jsonb_build_object('status', 'APPROVED', 'at', t + $7))))) AS r`,
      [from, ...series, JSON.stringify(payin), own, approvedAfter],
    );
    await db.query(
      `WITH ${SERIES}
       INSERT INTO paykit_deliveries
       SELECT r.* FROM k, LATERAL jsonb_populate_record(NULL::paykit_deliveries, $5::jsonb || $6::jsonb || jsonb_build_object(
                'id', 'wh_' || u, 'webhook_id', 'msg_' || u, 'resource_id', 'pi_' || u,
                'payload', replace(replace($5::jsonb ->> 'payload', $8, 'pi_' || u), $9, '"referenceId":"seed-' || i || '"'),
                'created_at', to_timestamp((t + $7) / 1000.0))) AS r`,
      [
        from,
        ...series,
        JSON.stringify(delivery),
        own,
        approvedAfter + deliveredAfter,
        payin.id,
        `"referenceId":${JSON.stringify(payin.reference_id)}`,
      ],
    );
    await db.query(
      `WITH ${SERIES}
       INSERT INTO paykit_delivery_attempts
       SELECT r.* FROM k, LATERAL jsonb_populate_record(NULL::paykit_delivery_attempts, $5::jsonb || jsonb_build_object(
                'delivery_id', 'wh_' || u, 'at', to_timestamp((t + $6) / 1000.0))) AS r`,
      [from, ...series, JSON.stringify(attempt), approvedAfter + deliveredAfter + attemptAfter],
    );
  }
  // The account's saved totals (what the mock reads back), and the balance row beside them.
  await db.query(
    `UPDATE paykit_accounts SET settings = jsonb_set(settings, '{approvedNet}', to_jsonb(
       (SELECT coalesce(sum((record->>'netAmount')::bigint), 0) FROM paykit_payins
         WHERE account_id = $1 AND status = 'APPROVED' AND ${currentEpoch(own)}))) WHERE id = $1`,
    [accountId],
  );
  await db.query(
    `UPDATE paykit_balances b SET available = (a.settings->>'openingBalance')::bigint + (a.settings->>'approvedNet')::bigint
            - (a.settings->>'reserved')::bigint - (a.settings->>'debited')::bigint
       FROM paykit_accounts a WHERE a.id = b.account_id AND a.id = $1`,
    [accountId],
  );
  await db.query("ANALYZE");
  return counts(db, accountId);
}

/** SQL true for a record row of the account's current epoch (always, on a schema without epochs). */
const currentEpoch = (own) =>
  "epoch" in JSON.parse(own) ? `epoch = ${Number(JSON.parse(own).epoch)}` : "true";

/** The account's payins and deliveries (current epoch) and its saved approvedNet; every payin and delivery. */
export async function counts(db, accountId) {
  const live = currentEpoch(JSON.stringify(await accountColumns(db, accountId)));
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM paykit_payins WHERE account_id = $1 AND ${live})::int AS payins,
            (SELECT count(*) FROM paykit_deliveries WHERE account_id = $1 AND ${live})::int AS deliveries,
            (SELECT count(*) FROM paykit_payins)::int AS "allPayins",
            (SELECT count(*) FROM paykit_deliveries)::int AS "allDeliveries",
            (SELECT (settings->>'approvedNet')::bigint FROM paykit_accounts WHERE id = $1)::float8 AS "approvedNet"`,
    [accountId],
  );
  return rows[0];
}
