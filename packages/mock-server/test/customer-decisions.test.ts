// The customer's decisions as domain rules, without HTTP: the open finance bank page's per-payin token
// and decision, and the 3DS challenge's session, expiry and first outcome. The pages' routes only read
// the request, call these in the request's turn and render (test/open-finance.test.ts and the scenarios
// cover them over HTTP). Each call here is one turn of a memory store, as a request is: the memory store
// cannot roll a refused turn back, so "decides nothing" also proves the rules refuse before they write.
import { describe, expect, it } from "vitest";
import { openAccount } from "../src/domain/control.js";
import { UlidFactory } from "../src/domain/ids.js";
import { bankAuthorization, decideAtBank } from "../src/domain/open-finance.js";
import { createPayin, expirePayin } from "../src/domain/payins.js";
import { closedChallenge, decideChallenge } from "../src/domain/three-ds.js";
import type { Turn } from "../src/domain/turn.js";
import { SAMPLE_CARD, samplePayin } from "../src/index.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";
import { Turns } from "../src/work/turns.js";

async function start() {
  const turns = new Turns(
    new MemoryStore(),
    {
      autoAdvance: false,
      advanceIntervalMs: 1000,
      pixDirectory: "open",
      maxRecords: Number.POSITIVE_INFINITY,
    },
    new UlidFactory(),
  );
  const accountId = await turns.run(async (turn) => (await openAccount(turn, {})).account.id);
  /** One turn, as one request of the pages. */
  const run = <T>(work: (turn: Turn) => Promise<T>) => turns.run(work);
  const create = (body: object) =>
    run(
      async (turn) =>
        (await createPayin(turn, await turn.account(accountId), body, "http://mock.test", null)).payin,
    );
  /** The payin's status as a later turn reads it. */
  const statusOf = (id: string) => run(async (turn) => (await turn.tx.payin(id))?.status);
  return { run, create, statusOf };
}

describe("the open finance bank's decision", () => {
  it.each([
    ["approve", "APPROVED"],
    ["deny", "REFUSED"],
  ])("%s from the bank's own page makes the payin %s", async (decision, status) => {
    const { run, create, statusOf } = await start();
    const payin = await create(samplePayin("OPEN_FINANCE"));
    const { token } = await run((turn) => bankAuthorization(turn, payin.id));
    expect((await run((turn) => decideAtBank(turn, payin.id, { token, decision }))).status).toBe(status);
    expect(await statusOf(payin.id)).toBe(status);
  });

  it.each([
    ["no token", undefined, "approve", { code: "INVALID_PAGE_TOKEN", status: 403 }],
    ["another payin's token", "other", "approve", { code: "INVALID_PAGE_TOKEN", status: 403 }],
    ["a token that is not text", 42, "approve", { code: "INVALID_PAGE_TOKEN", status: 403 }],
    ["another decision", "own", "maybe", { code: "INVALID_DATA", status: 400 }],
    ["no decision", "own", undefined, { code: "INVALID_DATA", status: 400 }],
  ])("refuses %s and decides nothing", async (_, token, decision, error) => {
    const { run, create, statusOf } = await start();
    const payin = await create(samplePayin("OPEN_FINANCE"));
    const own = (await run((turn) => bankAuthorization(turn, payin.id))).token;
    const otherPayin = await create(samplePayin("OPEN_FINANCE"));
    const other = (await run((turn) => bankAuthorization(turn, otherPayin.id))).token;
    expect(other).not.toBe(own);
    const sent = token === "own" ? own : token === "other" ? other : token;
    await expect(run((turn) => decideAtBank(turn, payin.id, { token: sent, decision }))).rejects.toThrow(
      expect.objectContaining(error),
    );
    expect(await statusOf(payin.id)).toBe("PENDING");
    expect(await statusOf(otherPayin.id)).toBe("PENDING");
  });

  it.each([
    ["a PIX payin", "PIX"],
    ["an unknown id", null],
  ] as const)("has no bank page for %s (404)", async (_, method) => {
    const { run, create } = await start();
    const id = method === null ? "pi_unknown" : (await create(samplePayin(method))).id;
    const notFound = expect.objectContaining({ code: "NOT_FOUND", status: 404 });
    await expect(run((turn) => bankAuthorization(turn, id))).rejects.toThrow(notFound);
    await expect(run((turn) => decideAtBank(turn, id, { token: "", decision: "approve" }))).rejects.toThrow(
      notFound,
    );
  });
});

describe("the 3DS challenge's decision", () => {
  async function pending() {
    const started = await start();
    const payin = await started.create(
      samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number: "4000000000003220" } }),
    );
    expect(payin.status).toBe("PENDING_3DS");
    const { transactionId: tx, session } = payin.threeDS!;
    return { ...started, payin, tx, session };
  }

  it("is open while the payin waits, and answers its first outcome to every later decision", async () => {
    const { run, statusOf, payin, tx, session } = await pending();
    expect(await run((turn) => closedChallenge(turn, tx))).toBeNull();
    const first = await run((turn) => decideChallenge(turn, { tx, session, action: "approve" }));
    expect(first.outcome).toBe("AUTHENTICATED");
    expect(await statusOf(payin.id)).toBe("APPROVED");
    expect(await run((turn) => closedChallenge(turn, tx))).toBe("decided");
    const again = await run((turn) => decideChallenge(turn, { tx, session, action: "reject" }));
    expect(again.outcome).toBe("AUTHENTICATED");
    expect(await statusOf(payin.id)).toBe("APPROVED");
  });

  it("rejects: the payin is REFUSED", async () => {
    const { run, statusOf, payin, tx, session } = await pending();
    expect((await run((turn) => decideChallenge(turn, { tx, session, action: "reject" }))).outcome).toBe(
      "REJECTED",
    );
    expect(await statusOf(payin.id)).toBe("REFUSED");
  });

  it.each([
    ["an unknown transaction", "3ds_unknown", "own", { code: "CHALLENGE_UNAVAILABLE", status: 404 }],
    ["another session", "own", "not-the-session", { code: "INVALID_DATA", status: 400 }],
    ["no session", "own", null, { code: "INVALID_DATA", status: 400 }],
  ])("refuses %s and decides nothing", async (_, tx, session, error) => {
    const { run, statusOf, payin, ...own } = await pending();
    const decision = { tx: tx === "own" ? own.tx : tx, session: session === "own" ? own.session : session };
    await expect(run((turn) => decideChallenge(turn, { ...decision, action: "approve" }))).rejects.toThrow(
      expect.objectContaining(error),
    );
    expect(await statusOf(payin.id)).toBe("PENDING_3DS");
    expect(await run((turn) => closedChallenge(turn, own.tx))).toBeNull();
  });

  it("cannot be decided once it expired undecided (410), and says so", async () => {
    const { run, statusOf, payin, tx, session } = await pending();
    await run((turn) => expirePayin(turn, payin.id));
    expect(await run((turn) => closedChallenge(turn, tx))).toBe("expired");
    await expect(run((turn) => decideChallenge(turn, { tx, session, action: "approve" }))).rejects.toThrow(
      expect.objectContaining({ code: "CHALLENGE_EXPIRED", status: 410 }),
    );
    expect(await statusOf(payin.id)).toBe("EXPIRED");
  });

  it("is unknown for a transaction no payin has", async () => {
    const { run } = await start();
    expect(await run((turn) => closedChallenge(turn, "3ds_unknown"))).toBe("unknown");
  });
});
