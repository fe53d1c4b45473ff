// CPU per POST /payin of one process on PostgreSQL, in the mock and in the server (after `pnpm build`):
// `node bench/shared-request-cost.mjs`.

import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { startPostgres } from "../../../scripts/services.mjs";
import {
  ADMIN,
  basic,
  DEFAULT_KEYS,
  killAllMocks,
  startMock,
  stopMock,
} from "./shared-sandbox-processes.mjs";

const { samplePayin } = await import("../dist/index.js");
const ticks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
const pgPids = () =>
  readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("postgres");
      } catch {
        return false;
      }
    })
    .map(Number);
const pg = await startPostgres();
try {
  const m = await startMock(["--store", pg.url], {
    path: "/payout?limit=1",
    headers: { authorization: basic(DEFAULT_KEYS) },
  });
  const keys = await (
    await fetch(`${m.url}/_mock/accounts`, { method: "POST", headers: ADMIN, body: "{}" })
  ).json();
  const sum = (pids) =>
    pids.reduce((s, p) => {
      try {
        return s + ticks(p);
      } catch {
        return s;
      }
    }, 0);
  const pids = pgPids();
  const [m0, p0] = [ticks(m.pid), sum(pids)];
  const r = await new Promise((done, fail) =>
    autocannon(
      {
        url: `${m.url}/payin`,
        method: "POST",
        connections: 48,
        duration: 5,
        headers: { authorization: basic(keys), "content-type": "application/json" },
        body: JSON.stringify(samplePayin("PIX", { referenceId: "r" })),
      },
      (e, x) => (e ? fail(e) : done(x)),
    ),
  );
  const [m1, p1] = [ticks(m.pid), sum(pgPids())];
  const n = r["2xx"];
  console.log(
    `${Math.round(n / r.duration)}/s; per request: mock ${(((m1 - m0) / n) * 1e6).toFixed(0)} µs CPU, postgres ${(((p1 - p0) / n) * 1e6).toFixed(0)} µs CPU; p50 latency ${r.latency.p50} ms`,
  );
  await stopMock(m);
} finally {
  await killAllMocks();
  await pg.stop();
}
