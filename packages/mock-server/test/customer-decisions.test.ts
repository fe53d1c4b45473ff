// The customer's decisions as domain rules, without HTTP: the open finance bank page's per-payin token
// and decision, and the 3DS challenge's session, expiry and first outcome. The pages' routes only read
// the request, call these and render (test/open-finance.test.ts and the scenarios cover them over HTTP).
import { afterEach, describe, expect, it } from "vitest";
import { bankAuthorization, decideAtBank } from "../src/domain/open-finance.js";
import { createPayin, expireOnClock, expirePayin } from "../src/domain/payins.js";
import { MockState } from "../src/domain/state.js";
import { closedChallenge, decideChallenge } from "../src/domain/three-ds.js";
import { SAMPLE_CARD, samplePayin } from "../src/index.js";

const states: MockState[] = [];
afterEach(() => {
  for (const state of states.splice(0)) state.close();
});

function start() {
  const state = new MockState({ autoAdvance: false }, expireOnClock);
  states.push(state);
  const create = (body: object) =>
    createPayin(state, state.defaultAccount, body, "http://mock.test", null).payin;
  return { state, create };
}

describe("the open finance bank's decision", () => {
  it.each([
    ["approve", "APPROVED"],
    ["deny", "REFUSED"],
  ])("%s from the bank's own page makes the payin %s", (decision, status) => {
    const { state, create } = start();
    const payin = create(samplePayin("OPEN_FINANCE"));
    const { token } = bankAuthorization(state, payin.id);
    expect(decideAtBank(state, payin.id, { token, decision }).status).toBe(status);
  });

  it.each([
    ["no token", undefined, "approve", { code: "INVALID_PAGE_TOKEN", status: 403 }],
    ["another payin's token", "other", "approve", { code: "INVALID_PAGE_TOKEN", status: 403 }],
    ["a token that is not text", 42, "approve", { code: "INVALID_PAGE_TOKEN", status: 403 }],
    ["another decision", "own", "maybe", { code: "INVALID_DATA", status: 400 }],
    ["no decision", "own", undefined, { code: "INVALID_DATA", status: 400 }],
  ])("refuses %s and decides nothing", (_, token, decision, error) => {
    const { state, create } = start();
    const payin = create(samplePayin("OPEN_FINANCE"));
    const own = bankAuthorization(state, payin.id).token;
    const other = bankAuthorization(state, create(samplePayin("OPEN_FINANCE")).id).token;
    const sent = token === "own" ? own : token === "other" ? other : token;
    expect(() => decideAtBank(state, payin.id, { token: sent, decision })).toThrow(
      expect.objectContaining(error),
    );
    expect(payin.status).toBe("PENDING");
  });

  it.each([
    ["a PIX payin", "PIX"],
    ["an unknown id", null],
  ] as const)("has no bank page for %s (404)", (_, method) => {
    const { state, create } = start();
    const id = method === null ? "pi_unknown" : create(samplePayin(method)).id;
    const notFound = expect.objectContaining({ code: "NOT_FOUND", status: 404 });
    expect(() => bankAuthorization(state, id)).toThrow(notFound);
    expect(() => decideAtBank(state, id, { token: "", decision: "approve" })).toThrow(notFound);
  });
});

describe("the 3DS challenge's decision", () => {
  function pending() {
    const { state, create } = start();
    const payin = create(
      samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number: "4000000000003220" } }),
    );
    const { transactionId: tx, session } = payin.threeDS!;
    return { state, payin, tx, session };
  }

  it("is open while the payin waits, and answers its first outcome to every later decision", () => {
    const { state, payin, tx, session } = pending();
    expect(closedChallenge(state, tx)).toBeNull();
    expect(decideChallenge(state, { tx, session, action: "approve" }).outcome).toBe("AUTHENTICATED");
    expect(payin.status).toBe("APPROVED");
    expect(closedChallenge(state, tx)).toBe("decided");
    expect(decideChallenge(state, { tx, session, action: "reject" }).outcome).toBe("AUTHENTICATED");
    expect(payin.status).toBe("APPROVED");
  });

  it("rejects: the payin is REFUSED", () => {
    const { state, payin, tx, session } = pending();
    expect(decideChallenge(state, { tx, session, action: "reject" }).outcome).toBe("REJECTED");
    expect(payin.status).toBe("REFUSED");
  });

  it.each([
    ["an unknown transaction", "3ds_unknown", "own", { code: "CHALLENGE_UNAVAILABLE", status: 404 }],
    ["another session", "own", "not-the-session", { code: "INVALID_DATA", status: 400 }],
    ["no session", "own", null, { code: "INVALID_DATA", status: 400 }],
  ])("refuses %s and decides nothing", (_, tx, session, error) => {
    const { state, payin, ...own } = pending();
    const decision = { tx: tx === "own" ? own.tx : tx, session: session === "own" ? own.session : session };
    expect(() => decideChallenge(state, { ...decision, action: "approve" })).toThrow(
      expect.objectContaining(error),
    );
    expect(payin.status).toBe("PENDING_3DS");
  });

  it("cannot be decided once it expired undecided (410), and says so", () => {
    const { state, payin, tx, session } = pending();
    expirePayin(state, payin.id);
    expect(closedChallenge(state, tx)).toBe("expired");
    expect(() => decideChallenge(state, { tx, session, action: "approve" })).toThrow(
      expect.objectContaining({ code: "CHALLENGE_EXPIRED", status: 410 }),
    );
    expect(payin.status).toBe("EXPIRED");
  });

  it("is unknown for a transaction no payin has", () => {
    expect(closedChallenge(start().state, "3ds_unknown")).toBe("unknown");
  });
});
