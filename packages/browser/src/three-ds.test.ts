// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from "vitest";
import { acquirerNetwork } from "../test/acquirer-network.js";
import { challengeData, pendingPayin, THREE_DS_CARD } from "../test/fixtures.js";
import type { AcquirerChallengeParams, AcquirerThreeDS, ThreeDSEvent, ThreeDSStatus } from "./index.js";
import { handlePendingThreeDS } from "./three-ds.js";

let network = acquirerNetwork();
afterEach(() => {
  vi.useRealTimers();
  network.reset();
  network = acquirerNetwork();
});

/** A fake acquirer SDK whose challenge answers `answer` (an outcome, an error, or never). */
function fakeAcquirer(answer: ThreeDSStatus | Error | "never" | { outcome: unknown } = "AUTHENTICATED") {
  const challenge = vi.fn(async (_params: AcquirerChallengeParams): Promise<{ outcome: ThreeDSStatus }> => {
    if (answer === "never") return new Promise(() => {});
    if (answer instanceof Error) throw answer;
    return (typeof answer === "string" ? { outcome: answer } : answer) as { outcome: ThreeDSStatus };
  });
  const init = vi.fn(async (_params: { session: string }) => ({ challenge }));
  const sdk: AcquirerThreeDS = { init };
  return { sdk, init, challenge };
}

/** Starts the flow, then lets the acquirer's script load and define `sdk`. */
function runWithScript(
  sdk: AcquirerThreeDS | undefined,
  options: Parameters<typeof handlePendingThreeDS>[2] = {},
) {
  const payin = pendingPayin();
  const flow = handlePendingThreeDS(payin, challengeData, options);
  network.load(network.tags()[0]!, sdk);
  return { payin, flow };
}

describe("handlePendingThreeDS: the customer's decision", () => {
  it.each(["AUTHENTICATED", "REJECTED", "CANCELED"] as const)(
    "resolves %s with the payin id and the 3DS transaction id",
    async (outcome) => {
      const { payin, flow } = runWithScript(fakeAcquirer(outcome).sdk);
      await expect(flow).resolves.toEqual({
        status: outcome,
        payinId: payin.id,
        transactionId: "3ds_tx_123",
      });
    },
  );

  it("starts the acquirer's session with the payin's token and hands the challenge exactly what docs/decisions/three-ds.md lists", async () => {
    const acquirer = fakeAcquirer();
    await runWithScript(acquirer.sdk).flow;
    expect(acquirer.init).toHaveBeenCalledWith({ session: "3ds_session_abc" });
    expect(acquirer.challenge).toHaveBeenCalledWith({
      transactionId: "3ds_tx_123",
      card: THREE_DS_CARD,
      customer: challengeData.customer,
      amount: 10000,
      installments: 1,
      signal: expect.any(AbortSignal),
    });
    expect(acquirer.challenge.mock.calls[0]?.[0]).not.toHaveProperty("container");
    expect(acquirer.challenge.mock.calls[0]?.[0].signal?.aborted).toBe(false);
  });

  it("renders the challenge in the page's container when one is given", async () => {
    const container = document.createElement("div");
    const acquirer = fakeAcquirer();
    await runWithScript(acquirer.sdk, { container }).flow;
    expect(acquirer.challenge.mock.calls[0]?.[0].container).toBe(container);
  });

  it("reports each step to onEvent, in order", async () => {
    const events: ThreeDSEvent[] = [];
    await runWithScript(fakeAcquirer("REJECTED").sdk, { onEvent: (event) => events.push(event) }).flow;
    const ids = { payinId: "pi_01JD3DS0000000000000000000", transactionId: "3ds_tx_123" };
    expect(events).toEqual([
      { type: "script-loading", ...ids },
      { type: "script-loaded", ...ids },
      { type: "challenge-opened", ...ids },
      { type: "challenge-completed", status: "REJECTED", ...ids },
    ]);
  });

  it("does not load the script again for a second payin of the same acquirer", async () => {
    const acquirer = fakeAcquirer();
    const first = pendingPayin();
    const flow = handlePendingThreeDS(first, challengeData);
    network.load(network.tags()[0]!, acquirer.sdk);
    await flow;
    const events: string[] = [];
    const second = pendingPayin({ id: "pi_second", threeDSecureSdkUrl: first.threeDSecureSdkUrl });
    await expect(
      handlePendingThreeDS(second, challengeData, { onEvent: (event) => events.push(event.type) }),
    ).resolves.toMatchObject({ payinId: "pi_second" });
    expect(network.tags()).toHaveLength(1);
    expect(events).toEqual(["script-loaded", "challenge-opened", "challenge-completed"]);
  });

  it("uses the SDK of a script tag the page already ran, without waiting for a load event", async () => {
    const payin = pendingPayin();
    const own = document.createElement("script");
    own.src = payin.threeDSecureSdkUrl!;
    document.head.append(own);
    (globalThis as { AcquirerThreeDS?: AcquirerThreeDS }).AcquirerThreeDS = fakeAcquirer().sdk;
    await expect(handlePendingThreeDS(payin, challengeData)).resolves.toMatchObject({
      status: "AUTHENTICATED",
    });
  });

  it("keeps the customer's decision when the page's onEvent throws, and reports that error apart", async () => {
    vi.useFakeTimers();
    const uiBug = new Error("progress bar exploded");
    const flow = runWithScript(fakeAcquirer().sdk, {
      onEvent: () => {
        throw uiBug;
      },
    }).flow;
    await expect(flow).resolves.toMatchObject({ status: "AUTHENTICATED" });
    expect(() => vi.runOnlyPendingTimers()).toThrow(uiBug);
  });
});

describe("handlePendingThreeDS: NOT_PENDING", () => {
  it.each([
    ["an APPROVED card payin", { status: "APPROVED", threeDSecurePending: false }, "is APPROVED"],
    ["threeDSecurePending false", { threeDSecurePending: false }, "threeDSecurePending true"],
    ["a PIX payin", { paymentMethod: "PIX" }, "CREDIT_CARD"],
    ["no threeDSecureSdkUrl", { threeDSecureSdkUrl: undefined }, "lacks threeDSecureSdkUrl"],
    ["no threeDSecureSession", { threeDSecureSession: undefined }, "lacks threeDSecureSession"],
    [
      "no threeDSecureTransactionId",
      { threeDSecureTransactionId: undefined },
      "lacks threeDSecureTransactionId",
    ],
  ])("rejects %s with NOT_PENDING and loads nothing", async (_, overrides, says) => {
    const flow = handlePendingThreeDS(pendingPayin(overrides), challengeData);
    await expect(flow).rejects.toMatchObject({ name: "PaykitThreeDSError", code: "NOT_PENDING" });
    await expect(flow).rejects.toThrow(says);
    expect(network.tags()).toHaveLength(0);
  });

  it("rejects a missing payin answer with NOT_PENDING", async () => {
    await expect(handlePendingThreeDS(null as never, challengeData)).rejects.toMatchObject({
      code: "NOT_PENDING",
    });
  });
});

describe("handlePendingThreeDS: a broken flow is a typed error", () => {
  it.each([
    ["the script defines no AcquirerThreeDS", undefined],
    ["AcquirerThreeDS has no init()", {} as AcquirerThreeDS],
  ])("SDK_MISSING when %s", async (_, sdk) => {
    await expect(runWithScript(sdk).flow).rejects.toMatchObject({ code: "SDK_MISSING" });
  });

  it.each([
    ["a session without challenge()", {}],
    ["no session at all", null],
  ])("CHALLENGE_FAILED when init() answers %s (outside the acquirer contract)", async (_, session) => {
    const sdk = { init: async () => session } as unknown as AcquirerThreeDS;
    await expect(runWithScript(sdk).flow).rejects.toMatchObject({ code: "CHALLENGE_FAILED" });
  });

  it("SCRIPT_LOAD_FAILED when the script fails to load twice; only script-loading was reported", async () => {
    const events: string[] = [];
    const flow = handlePendingThreeDS(pendingPayin(), challengeData, {
      onEvent: (event) => events.push(event.type),
    });
    network.fail(network.tags()[0]!);
    network.fail(network.tags()[0]!);
    await expect(flow).rejects.toMatchObject({ code: "SCRIPT_LOAD_FAILED" });
    expect(events).toEqual(["script-loading"]);
  });

  it("SCRIPT_TIMEOUT when the script does not load within timeoutMs", async () => {
    vi.useFakeTimers();
    const flow = handlePendingThreeDS(pendingPayin(), challengeData, { timeoutMs: 5_000 });
    flow.catch(() => {});
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(flow).rejects.toMatchObject({ code: "SCRIPT_TIMEOUT" });
  });

  it("CHALLENGE_FAILED when the acquirer's init() throws, keeping its error as cause", async () => {
    const broken = new Error("session expired");
    const sdk: AcquirerThreeDS = { init: () => Promise.reject(broken) };
    await expect(runWithScript(sdk).flow).rejects.toMatchObject({ code: "CHALLENGE_FAILED", cause: broken });
  });

  it("CHALLENGE_FAILED when the challenge throws; the message carries no card data", async () => {
    const leaky = new Error(`card ${THREE_DS_CARD.number} cvv ${THREE_DS_CARD.cvv} declined by issuer`);
    const error: unknown = await runWithScript(fakeAcquirer(leaky).sdk).flow.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "PaykitThreeDSError", code: "CHALLENGE_FAILED", cause: leaky });
    for (const secret of [THREE_DS_CARD.number, THREE_DS_CARD.cvv, THREE_DS_CARD.holderName]) {
      expect(String(error)).not.toContain(secret);
    }
  });

  it.each([{ outcome: "MAYBE" }, { outcome: undefined }])(
    "CHALLENGE_FAILED when the challenge answers %o",
    async (answer) => {
      await expect(runWithScript(fakeAcquirer(answer).sdk).flow).rejects.toMatchObject({
        code: "CHALLENGE_FAILED",
      });
    },
  );

  it("ABORTED when the signal aborts while the customer is in the challenge", async () => {
    const controller = new AbortController();
    const acquirer = fakeAcquirer("never");
    const { flow } = runWithScript(acquirer.sdk, { signal: controller.signal });
    await vi.waitFor(() => expect(acquirer.challenge).toHaveBeenCalled());
    controller.abort(new Error("customer closed the tab"));
    await expect(flow).rejects.toMatchObject({
      code: "ABORTED",
      cause: new Error("customer closed the tab"),
    });
  });

  it("ABORTED without loading anything when the signal is already aborted", async () => {
    const flow = handlePendingThreeDS(pendingPayin(), challengeData, { signal: AbortSignal.abort() });
    await expect(flow).rejects.toMatchObject({ code: "ABORTED" });
    expect(network.tags()).toHaveLength(0);
  });

  it("ABORTED without opening the challenge when the SDK is already there", async () => {
    const acquirer = fakeAcquirer();
    const payin = pendingPayin();
    const own = document.createElement("script");
    own.src = payin.threeDSecureSdkUrl!;
    document.head.append(own);
    (globalThis as { AcquirerThreeDS?: AcquirerThreeDS }).AcquirerThreeDS = acquirer.sdk;
    const flow = handlePendingThreeDS(payin, challengeData, { signal: AbortSignal.abort() });
    await expect(flow).rejects.toMatchObject({ code: "ABORTED" });
    expect(acquirer.init).not.toHaveBeenCalled();
  });
});

describe("handlePendingThreeDS: the secret key never enters the browser", () => {
  it.each([
    ["a secretKey option", { secretKey: "sk_test_4eC39HqLyjWDarjtT1zdp7dc" }],
    ["an sk_live_ string in any option", { apiKey: "sk_live_4eC39HqLyjWDarjtT1zdp7dc" }],
    ["an sk_ nonce", { nonce: "sk_test_oops" }],
  ])("rejects %s with SECRET_KEY_IN_BROWSER, without echoing the key", async (_, options) => {
    const error: unknown = await handlePendingThreeDS(pendingPayin(), challengeData, options as never).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "SECRET_KEY_IN_BROWSER" });
    expect(String(error)).not.toContain("4eC39HqLyjWDarjtT1zdp7dc");
    expect(network.tags()).toHaveLength(0);
  });
});

/** An error the acquirer's script rejects the challenge with, carrying its own `code` (the acquirer contract). */
const acquirerError = (code: unknown, message = "challenge closed") =>
  Object.assign(new Error(message), { code });

describe("handlePendingThreeDS: a challenge the acquirer no longer has", () => {
  it.each(["CHALLENGE_UNAVAILABLE", "CHALLENGE_EXPIRED"] as const)(
    "rejects with the acquirer's %s, keeps its error as cause and never echoes its text",
    async (code) => {
      const leaky = acquirerError(code, `card ${THREE_DS_CARD.number} has no challenge`);
      const error: unknown = await runWithScript(fakeAcquirer(leaky).sdk).flow.catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "PaykitThreeDSError", code, cause: leaky });
      expect(String(error)).toContain("read the payin's status from your backend");
      expect(String(error)).not.toContain(THREE_DS_CARD.number);
    },
  );

  it.each([["ABORTED"], ["NOT_PENDING"], ["CHALLENGE_TIMEOUT"], [42], [undefined]])(
    "reports an acquirer error with code %s as CHALLENGE_FAILED: only the two closed codes pass through",
    async (code) => {
      await expect(runWithScript(fakeAcquirer(acquirerError(code)).sdk).flow).rejects.toMatchObject({
        code: "CHALLENGE_FAILED",
      });
    },
  );

  it("reports no challenge-completed step for a closed challenge", async () => {
    const events: string[] = [];
    const { flow } = runWithScript(fakeAcquirer(acquirerError("CHALLENGE_UNAVAILABLE")).sdk, {
      onEvent: (event) => events.push(event.type),
    });
    await flow.catch(() => {});
    expect(events).toEqual(["script-loading", "script-loaded", "challenge-opened"]);
  });
});

describe("handlePendingThreeDS: challengeTimeoutMs bounds the challenge", () => {
  /** Starts a flow whose customer never decides, under fake timers, once the challenge is open. */
  async function openForever(options: Parameters<typeof handlePendingThreeDS>[2] = {}) {
    vi.useFakeTimers();
    const acquirer = fakeAcquirer("never");
    const { flow } = runWithScript(acquirer.sdk, options);
    flow.catch(() => {});
    // Microtasks only (vi.waitFor would move the fake clock): the challenge opens without any timer.
    for (let turn = 0; turn < 100 && acquirer.challenge.mock.calls.length === 0; turn++)
      await Promise.resolve();
    const { signal } = acquirer.challenge.mock.calls[0]![0];
    return { flow, signal: signal! };
  }

  it.each([
    ["the given challengeTimeoutMs", { challengeTimeoutMs: 30_000 }, 30_000],
    ["the documented default of 10 minutes", {}, 600_000],
  ])(
    "rejects with CHALLENGE_TIMEOUT after %s, aborts the acquirer's challenge and leaves no timer",
    async (_, options, limitMs) => {
      const { flow, signal } = await openForever(options);
      await vi.advanceTimersByTimeAsync(limitMs - 1);
      expect(signal.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await expect(flow).rejects.toMatchObject({ name: "PaykitThreeDSError", code: "CHALLENGE_TIMEOUT" });
      await expect(flow).rejects.toThrow(`${limitMs} ms`);
      expect(signal.aborted).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    },
  );

  it("Infinity means no limit: no timer is armed", async () => {
    const { signal } = await openForever({ challengeTimeoutMs: Number.POSITIVE_INFINITY });
    expect(vi.getTimerCount()).toBe(0);
    expect(signal.aborted).toBe(false);
  });

  it("clears its timer once the customer decides", async () => {
    vi.useFakeTimers();
    await expect(runWithScript(fakeAcquirer("AUTHENTICATED").sdk).flow).resolves.toMatchObject({
      status: "AUTHENTICATED",
    });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("clears its timer and aborts the acquirer's challenge when the page's signal aborts", async () => {
    const controller = new AbortController();
    const { flow, signal } = await openForever({ signal: controller.signal });
    controller.abort();
    await expect(flow).rejects.toMatchObject({ code: "ABORTED" });
    expect(signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("clears its timer when the acquirer rejects", async () => {
    vi.useFakeTimers();
    const flow = runWithScript(fakeAcquirer(acquirerError("CHALLENGE_EXPIRED")).sdk).flow;
    await expect(flow).rejects.toMatchObject({ code: "CHALLENGE_EXPIRED" });
    expect(vi.getTimerCount()).toBe(0);
  });
});
