// The --data-dir engine evaluation (issue 15), printed as a table: open time, single-row transaction
// throughput (the mock commits each request), memory, disk per record, and the newest-page latency
// at 1,000 and at 20,000 rows of one account. A Map insert is the in-memory baseline in the same run.
//   pnpm --filter @paykit-tests/store-engines bench      [ENGINE_ROWS=2000]
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENGINES, payinRow } from "./engines.mjs";

const ROWS = Number(process.env.ENGINE_ROWS ?? 2_000);
const BIG = 20_000;

function diskBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return total;
}
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
async function pageLatency(db, accountId) {
  for (let i = 0; i < 20; i++) await db.page(accountId, 10);
  const ms = await timed(async () => {
    for (let i = 0; i < 200; i++) await db.page(accountId, 10);
  });
  return (ms * 1000) / 200;
}

// baseline: the in-memory mode's write, a Map set of the same record
const map = new Map();
const mapMs = await timed(async () => {
  for (let n = 0; n < ROWS; n++) {
    const row = payinRow("acct_a", n);
    map.set(row.id, row);
  }
});
const mapRate = ROWS / (mapMs / 1000);

const rows = [["", ...Object.keys(ENGINES)]];
const results = {};
for (const [name, open] of Object.entries(ENGINES)) {
  global.gc?.();
  const dir = mkdtempSync(join(tmpdir(), `paykit-engine-${name}-`));
  const rssBefore = process.memoryUsage().rss;
  let db;
  const createMs = await timed(async () => {
    db = await open(dir);
  });
  const rssOpen = process.memoryUsage().rss - rssBefore;
  const insertMs = await timed(async () => {
    for (let n = 0; n < ROWS; n++) await db.insert(payinRow("acct_a", n));
  });
  let duplicateRefused = false;
  await db.insert({ ...payinRow("acct_a", 0), id: "pi_dup" }).catch(() => {
    duplicateRefused = true;
  });
  const small = await pageLatency(db, "acct_a");
  const fill = [];
  for (let n = 0; n < BIG; n++) fill.push(payinRow("acct_b", n));
  const fillMs = await timed(() => db.insertMany(fill));
  await db.insert(payinRow("acct_b", BIG));
  const big = await pageLatency(db, "acct_b");
  const count = await db.count();
  const rssLoaded = process.memoryUsage().rss - rssBefore;
  await db.close();
  const disk = diskBytes(dir);
  let reopened;
  const reopenMs = await timed(async () => {
    reopened = await open(dir);
  });
  const kept = await reopened.count();
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
  results[name] = {
    create: `${createMs.toFixed(0)} ms`,
    reopen: `${reopenMs.toFixed(0)} ms`,
    insert: `${(ROWS / (insertMs / 1000)).toFixed(0)} rows/s (${((insertMs * 1000) / ROWS).toFixed(0)} µs each; ${(ROWS / (insertMs / 1000) / mapRate).toExponential(1)}x a Map)`,
    bulk: `${(BIG / (fillMs / 1000)).toFixed(0)} rows/s in one transaction`,
    unique: duplicateRefused ? "duplicate referenceId refused" : "DUPLICATE ACCEPTED",
    page: `${small.toFixed(0)} µs at ${ROWS} rows, ${big.toFixed(0)} µs at ${BIG + 1} (${(big / small).toFixed(2)}x)`,
    rss: `${mib(rssOpen)} open, ${mib(rssLoaded)} after ${count} rows`,
    disk: `${mib(disk)} (${(disk / count).toFixed(0)} B/row)`,
    kept: `${kept} of ${count} after close and reopen`,
  };
}
for (const key of Object.keys(results.pglite))
  rows.push([key, ...Object.keys(ENGINES).map((e) => results[e][key])]);
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
console.log(
  `store engines, node ${process.version}, ${ROWS} single-row transactions, Map baseline ${mapRate.toFixed(0)} rows/s`,
);
for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(widths[i])).join("  "));
