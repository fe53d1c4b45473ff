// The two disruptions bench/shared-sandbox.mjs measures while clients keep sending requests: kill -9 of
// one of the processes serving the store, and a reset of the big account over the control API.
import { killGroup } from "../../../scripts/processes.mjs";
import { ADMIN, percentile, runClients, sleep } from "./shared-sandbox-processes.mjs";

/** Clients per surviving process. */
const CLIENTS = 8;

/**
 * The longest time with no successful answer among `log`'s entries, from `from` to `to` (ms), counting
 * the stretch from `from` to the first answer and from the last one to `to`.
 */
function longestGap(log, ok, from, to) {
  const ends = log
    .filter((r) => ok(r.status) && r.end >= from && r.end <= to)
    .map((r) => r.end)
    .sort((a, b) => a - b);
  let gap = 0;
  let last = from;
  for (const end of [...ends, to]) {
    gap = Math.max(gap, end - last);
    last = end;
  }
  return gap;
}

const statuses = (entries) => {
  const by = {};
  for (const r of entries) by[r.status === 0 ? "no answer" : r.status] = (by[r.status] ?? 0) + 1;
  return by;
};

/**
 * kill -9 of `victim` while `survivors` serve POST /payin (unique referenceIds) to {@link CLIENTS}
 * clients each (every process is equal: none takes over anything). Waits until every survivor has
 * answered a request sent after the kill (or the deadline), then one second more. Answers the figures:
 * the longest stretch with no answer from the survivors after the kill, and the one before it for
 * reference.
 */
export async function killOne({ size, victim, survivors, headers, payinBody, deadlineMs }) {
  let stopped = false;
  const load = runClients(
    survivors.map((f) => f.url),
    CLIENTS,
    (url, client, n) =>
      fetch(`${url}/payin`, {
        method: "POST",
        headers,
        body: payinBody(`kill-${size}-${url}-${client}-${n}`),
      }),
    () => stopped,
  );
  const warm = performance.now();
  while (performance.now() - warm < 2_000 || load.log.filter((r) => r.status === 201).length < 20) {
    if (performance.now() - warm > 60_000) break;
    await sleep(50);
  }
  const killedAt = performance.now();
  killGroup(victim.child, "SIGKILL");
  const served = () =>
    survivors.every((f) => load.log.some((r) => r.url === f.url && r.status === 201 && r.start > killedAt));
  while (!served() && performance.now() - killedAt < deadlineMs) await sleep(50);
  const recovered = served();
  await sleep(1_000);
  const end = performance.now();
  stopped = true;
  await load.done;
  const after = load.log.filter((r) => r.end > killedAt && r.start < end);
  return {
    survivors,
    recovered,
    gapMs: longestGap(load.log, (s) => s === 201, killedAt, end),
    gapBeforeMs: longestGap(load.log, (s) => s === 201, warm + 500, killedAt),
    failed: after.filter((r) => r.status !== 201).length,
    statuses: statuses(after),
    answered: after.length,
  };
}

/**
 * Resets the big account (`POST /_mock/accounts/{id}/reset`) on the first of `mocks` while
 * {@link CLIENTS} clients per process read and create payins of another account (`headers`). Answers
 * the reset's time and answer, the other account's p99 over the requests that overlapped the reset,
 * whether the seeded payin `probeId` is gone afterwards, and how long the store took to drop its rows.
 */
export async function resetAccount({
  db,
  size,
  mocks,
  accountId,
  bigHeaders,
  probeId,
  headers,
  payinBody,
  deadlineMs,
}) {
  const made = await fetch(`${mocks[0].url}/payin`, {
    method: "POST",
    headers,
    body: payinBody(`reset-${size}`),
  });
  const otherId = (await made.json()).id;
  let stopped = false;
  const load = runClients(
    mocks.map((m) => m.url),
    CLIENTS / 2,
    (url, client, n) =>
      n % 2 === 0
        ? fetch(`${url}/payin/${otherId}`, { headers })
        : fetch(`${url}/payin`, { method: "POST", headers, body: payinBody(`reset-${size}-${client}-${n}`) }),
    () => stopped,
  );
  await sleep(1_000);
  const startedAt = performance.now();
  const answer = await fetch(`${mocks[0].url}/_mock/accounts/${accountId}/reset`, {
    method: "POST",
    headers: ADMIN,
    signal: AbortSignal.timeout(deadlineMs),
  }).then(
    async (res) => ({ status: res.status, body: (await res.text()).slice(0, 200) }),
    (error) => ({ status: 0, body: String(error?.message ?? error) }),
  );
  const resetMs = performance.now() - startedAt;
  const endedAt = performance.now();
  await sleep(500);
  stopped = true;
  await load.done;
  const overlapping = load.log.filter((r) => r.start < endedAt && r.end > startedAt);
  const probe = await fetch(`${mocks.at(-1).url}/payin/${probeId}`, { headers: bigHeaders }).catch(
    () => null,
  );
  await probe?.arrayBuffer();
  // The store drops the rows after the answer (write-behind today): how long until it holds none.
  let emptiedMs = null;
  while (performance.now() - startedAt < deadlineMs) {
    const { rows } = await db.query("SELECT count(*)::int AS n FROM paykit_payins WHERE account_id = $1", [
      accountId,
    ]);
    if (rows[0].n === 0) {
      emptiedMs = performance.now() - startedAt;
      break;
    }
    await sleep(250);
  }
  return {
    resetMs,
    answer,
    p99Ms: percentile(
      overlapping.map((r) => r.end - r.start),
      99,
    ),
    otherRequests: overlapping.length,
    otherFailed: overlapping.filter((r) => r.status !== 200 && r.status !== 201).length,
    otherStatuses: statuses(overlapping),
    probeStatus: probe?.status ?? 0,
    emptiedMs,
  };
}
