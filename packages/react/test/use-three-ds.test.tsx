// @vitest-environment happy-dom
import type { AcquirerChallengeParams, ThreeDSPayinResponse, ThreeDSStatus } from "@paykit/browser";
import { act } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ThreeDSRun, useThreeDS } from "../src/index.js";
import { actEnvironment } from "./fakes.js";
import { cleanup, render } from "./render.js";

actEnvironment();

const SDK_URL = "https://acquirer.example/3ds.js";
const PAYIN: ThreeDSPayinResponse = {
  id: "pi_01JDC000000000000000000000",
  status: "PENDING_3DS",
  paymentMethod: "CREDIT_CARD",
  threeDSecurePending: true,
  threeDSecureSession: "3ds_session",
  threeDSecureTransactionId: "3ds_tx",
  threeDSecureSdkUrl: SDK_URL,
};
const DATA = {
  card: { token: "tok_card" },
  customer: { name: "Ana Souza", document: "52998224725", email: "ana@example.com", phone: "11987654321" },
  amount: 10000,
  installments: 1,
};

/** The acquirer's challenges the page opened, each decided by the test. */
let challenges: Array<{
  params: AcquirerChallengeParams;
  decide(outcome: ThreeDSStatus): void;
  fail(error: unknown): void;
}>;

beforeEach(() => {
  challenges = [];
  // The acquirer's script is already in the page and has defined its SDK: the flow loads nothing.
  const script = document.createElement("script");
  script.src = SDK_URL;
  document.head.append(script);
  vi.stubGlobal("AcquirerThreeDS", {
    init: async () => ({
      challenge: (params: AcquirerChallengeParams) =>
        new Promise<{ outcome: ThreeDSStatus }>((resolve, reject) => {
          challenges.push({ params, decide: (outcome) => resolve({ outcome }), fail: reject });
          params.signal?.addEventListener("abort", () => reject(params.signal?.reason));
        }),
    }),
  });
});

afterEach(async () => {
  await cleanup();
  document.head.replaceChildren();
  vi.unstubAllGlobals();
});

function Probe({ seen }: { seen: ThreeDSRun[] }) {
  seen.push(useThreeDS());
  return null;
}

const last = (seen: ThreeDSRun[]) => seen.at(-1)!;

/** Waits until the acquirer's challenge `n` is open. */
async function opened(n: number) {
  await vi.waitFor(() => expect(challenges.length).toBeGreaterThanOrEqual(n));
  return challenges[n - 1]!;
}

describe("useThreeDS", () => {
  it("is idle, then running, then done with the customer's decision", async () => {
    const seen: ThreeDSRun[] = [];
    await render(<Probe seen={seen} />);
    expect(last(seen)).toMatchObject({ state: "idle", result: null, error: null });
    let outcome!: Promise<unknown>;
    await act(async () => {
      outcome = last(seen).run(PAYIN, DATA);
    });
    expect(last(seen).state).toBe("running");
    const challenge = await opened(1);
    expect(challenge.params).toMatchObject({ ...DATA, transactionId: "3ds_tx" });
    await act(async () => challenge.decide("AUTHENTICATED"));
    const result = { status: "AUTHENTICATED", payinId: PAYIN.id, transactionId: "3ds_tx" };
    await expect(outcome).resolves.toEqual(result);
    expect(last(seen)).toMatchObject({ state: "done", result, error: null });
  });

  it("is error with the typed error when the flow breaks, and run rejects with it", async () => {
    const seen: ThreeDSRun[] = [];
    await render(<Probe seen={seen} />);
    let outcome!: Promise<unknown>;
    await act(async () => {
      outcome = last(seen)
        .run({ ...PAYIN, status: "APPROVED" }, DATA)
        .catch((error) => error);
    });
    const error = await outcome;
    expect(error).toMatchObject({ name: "PaykitThreeDSError", code: "NOT_PENDING" });
    expect(last(seen)).toMatchObject({ state: "error", error, result: null });
  });

  it("on unmount aborts the flow: the challenge is told to close and run rejects with ABORTED", async () => {
    const seen: ThreeDSRun[] = [];
    const { unmount } = await render(<Probe seen={seen} />);
    let outcome!: Promise<unknown>;
    await act(async () => {
      outcome = last(seen)
        .run(PAYIN, DATA)
        .catch((error) => error);
    });
    const challenge = await opened(1);
    const states = seen.length;
    await unmount();
    expect(challenge.params.signal?.aborted).toBe(true);
    expect(await outcome).toMatchObject({ name: "PaykitThreeDSError", code: "ABORTED" });
    expect(seen).toHaveLength(states);
  });

  it("a second run stops the first, whose end changes nothing", async () => {
    const seen: ThreeDSRun[] = [];
    await render(<Probe seen={seen} />);
    let first!: Promise<unknown>;
    let second!: Promise<unknown>;
    await act(async () => {
      first = last(seen)
        .run(PAYIN, DATA)
        .catch((error) => error);
    });
    await opened(1);
    await act(async () => {
      second = last(seen).run(PAYIN, DATA);
    });
    expect(await first).toMatchObject({ code: "ABORTED" });
    expect(challenges[0]!.params.signal?.aborted).toBe(true);
    expect(last(seen).state).toBe("running");
    await act(async () => (await opened(2)).decide("CANCELED"));
    await expect(second).resolves.toMatchObject({ status: "CANCELED" });
    expect(last(seen)).toMatchObject({ state: "done", result: { status: "CANCELED" } });
  });

  it("stops when the page's own signal aborts", async () => {
    const seen: ThreeDSRun[] = [];
    await render(<Probe seen={seen} />);
    const page = new AbortController();
    let outcome!: Promise<unknown>;
    await act(async () => {
      outcome = last(seen)
        .run(PAYIN, DATA, { signal: page.signal })
        .catch((error) => error);
    });
    const challenge = await opened(1);
    await act(async () => page.abort());
    expect(await outcome).toMatchObject({ code: "ABORTED" });
    expect(challenge.params.signal?.aborted).toBe(true);
    expect(last(seen).state).toBe("error");
  });
});
