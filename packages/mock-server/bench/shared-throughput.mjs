// POST /payin throughput of the stateless shared sandbox (branch probe, after `pnpm build`): 1 and 3 processes on a
// fresh PostgreSQL, every process posting to the default account (one hot account) and then each to an account
// of its own. `node bench/shared-throughput.mjs`
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
const SECONDS = 5;
const pg = await startPostgres();
const run = (url, headers, connections) =>
  new Promise((done, fail) =>
    autocannon(
      {
        url: `${url}/payin`,
        method: "POST",
        connections,
        duration: SECONDS,
        headers,
        body: JSON.stringify(samplePayin("PIX", { referenceId: "r" })),
      },
      (e, r) => (e ? fail(e) : done(r)),
    ),
  );
const probe = { path: "/payout?limit=1", headers: { authorization: basic(DEFAULT_KEYS) } };
try {
  for (const n of [1, 3]) {
    const db = `${pg.url.replace(/\/postgres$/, "")}/postgres`;
    const mocks = [];
    for (let i = 0; i < n; i++) mocks.push(await startMock(["--store", db], probe));
    // hot: every process posts to the default account
    const hot = await Promise.all(
      mocks.map((m) =>
        run(
          m.url,
          { authorization: basic(DEFAULT_KEYS), "content-type": "application/json" },
          Math.round(48 / n),
        ),
      ),
    );
    // own: each process its own account
    const own = await Promise.all(
      mocks.map(async (m) => {
        const keys = await (
          await fetch(`${m.url}/_mock/accounts`, { method: "POST", headers: ADMIN, body: "{}" })
        ).json();
        return run(
          m.url,
          { authorization: basic(keys), "content-type": "application/json" },
          Math.round(48 / n),
        );
      }),
    );
    const rate = (rs) => Math.round(rs.reduce((s, r) => s + r["2xx"] / r.duration, 0));
    const bad = (rs) => rs.reduce((s, r) => s + r.non2xx + r.errors + r.timeouts, 0);
    console.log(
      `${n} process(es): hot account ${rate(hot)}/s (${bad(hot)} not 2xx), own accounts ${rate(own)}/s (${bad(own)} not 2xx)`,
    );
    for (const m of mocks) await stopMock(m);
    const c = new (await import("pg")).default.Client({ connectionString: db });
    await c.connect();
    await c.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    await c.end();
  }
} finally {
  await killAllMocks();
  await pg.stop();
}
