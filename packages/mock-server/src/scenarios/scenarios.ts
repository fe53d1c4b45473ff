// Every trigger scenario of `paykit-mock trigger` (docs/testing.md, "Your laptop and a team sandbox",
// renders this list as a table, and a test keeps the two equal). Creation goes through the merchant
// API with the sample requests; every later move is a control call named as in the control table.
import type { PaymentMethod } from "@paykit/contract";
import { type CardOutcome, MAGIC_CARDS, MAGIC_PIX_KEYS } from "../domain/magic.js";
import { SAMPLE_CARD } from "../domain/samples.js";
import type { TriggerScenario, TriggerStep } from "./scenario.js";

// The card number the mock acquirer answers with `status` (the magic values, not a second copy).
function magicCard(status: Extract<CardOutcome, { kind: "status" }>["status"]) {
  const number = Object.entries(MAGIC_CARDS).find(
    ([, outcome]) => outcome.kind === "status" && outcome.status === status,
  )?.[0];
  if (number === undefined) throw new Error(`no magic card answers ${status}`);
  return { card: { ...SAMPLE_CARD, number } };
}

// Every moving call waits for the deliveries it causes, so the run can report their answers.
const AWAIT = { awaitWebhooks: true } as const;

const pending = (method: PaymentMethod): TriggerStep => ({ create: "payin", method, to: "PENDING" });
const threeDS: TriggerStep = {
  create: "payin",
  method: "CREDIT_CARD",
  overrides: magicCard("PENDING_3DS"),
  to: "PENDING_3DS",
};
const payoutCreated: TriggerStep = { create: "payout", to: "PENDING" };
const awaitingApproval: TriggerStep = { create: "payout", to: "AWAITING_APPROVAL" };
const processing: TriggerStep = { call: "advancePayout", args: [AWAIT], to: "PROCESSING" };
const automatic = { payoutApproval: "automatic" } as const;
const manual = { payoutApproval: "manual" } as const;

/**
 * Every scenario of `paykit-mock trigger`, in the order `--list` shows them; entries sharing a name
 * are its `--method`/`--outcome` choices, the first being the default.
 */
export const TRIGGER_SCENARIOS: readonly TriggerScenario[] = [
  {
    name: "payin.approved",
    method: "PIX",
    description: "a PIX payin the customer pays",
    steps: [pending("PIX"), { call: "payPayin", args: [AWAIT], to: "APPROVED" }],
    expect: { payin: "APPROVED", webhooks: ["APPROVED"] },
  },
  {
    name: "payin.approved",
    method: "BOLETO",
    description: "a boleto the customer pays",
    steps: [pending("BOLETO"), { call: "payPayin", args: [AWAIT], to: "APPROVED" }],
    expect: { payin: "APPROVED", webhooks: ["APPROVED"] },
  },
  {
    name: "payin.approved",
    method: "OPEN_FINANCE",
    description: "an open finance payin the customer authorizes at the bank",
    steps: [pending("OPEN_FINANCE"), { call: "authorizePayin", args: [true, AWAIT], to: "APPROVED" }],
    expect: { payin: "APPROVED", webhooks: ["APPROVED"] },
  },
  {
    name: "payin.approved",
    method: "CREDIT_CARD",
    description: "a card payin approved at once (its 201 answer says so; no webhook)",
    steps: [{ create: "payin", method: "CREDIT_CARD", to: "APPROVED" }],
    expect: { payin: "APPROVED", webhooks: [] },
  },
  {
    name: "payin.expired",
    method: "PIX",
    description: "a PIX payin nobody pays expires",
    steps: [pending("PIX"), { call: "expirePayin", args: [AWAIT], to: "EXPIRED" }],
    expect: { payin: "EXPIRED", webhooks: ["EXPIRED"] },
  },
  {
    name: "payin.expired",
    method: "BOLETO",
    description: "a boleto nobody pays expires",
    steps: [pending("BOLETO"), { call: "expirePayin", args: [AWAIT], to: "EXPIRED" }],
    expect: { payin: "EXPIRED", webhooks: ["EXPIRED"] },
  },
  {
    name: "payin.expired",
    method: "OPEN_FINANCE",
    description: "an open finance payin the customer never authorizes expires",
    steps: [pending("OPEN_FINANCE"), { call: "expirePayin", args: [AWAIT], to: "EXPIRED" }],
    expect: { payin: "EXPIRED", webhooks: ["EXPIRED"] },
  },
  {
    name: "payin.expired",
    method: "CREDIT_CARD",
    description: "a card payin whose 3DS challenge is never completed expires",
    steps: [threeDS, { call: "expirePayin", args: [AWAIT], to: "EXPIRED" }],
    expect: { payin: "EXPIRED", webhooks: ["EXPIRED"] },
  },
  {
    name: "payin.refused",
    method: "OPEN_FINANCE",
    description: "the customer denies an open finance payin at the bank",
    steps: [pending("OPEN_FINANCE"), { call: "authorizePayin", args: [false, AWAIT], to: "REFUSED" }],
    expect: { payin: "REFUSED", webhooks: ["REFUSED"] },
  },
  {
    name: "payin.refused",
    method: "CREDIT_CARD",
    description: "the acquirer refuses a card at once (its 201 answer says so; no webhook)",
    steps: [{ create: "payin", method: "CREDIT_CARD", overrides: magicCard("REFUSED"), to: "REFUSED" }],
    expect: { payin: "REFUSED", webhooks: [] },
  },
  {
    name: "payin.3ds",
    outcome: "approve",
    description: "a card payin with a 3DS challenge the customer passes",
    steps: [threeDS, { call: "completeThreeDS", args: ["AUTHENTICATED", AWAIT], to: "APPROVED" }],
    expect: { payin: "APPROVED", webhooks: ["APPROVED"] },
  },
  {
    name: "payin.3ds",
    outcome: "reject",
    description: "a card payin with a 3DS challenge the customer fails",
    steps: [threeDS, { call: "completeThreeDS", args: ["REJECTED", AWAIT], to: "REFUSED" }],
    expect: { payin: "REFUSED", webhooks: ["REFUSED"] },
  },
  {
    name: "payout.completed",
    description: "a payout the bank completes",
    account: automatic,
    steps: [payoutCreated, processing, { call: "advancePayout", args: [AWAIT], to: "COMPLETED" }],
    expect: { payout: "COMPLETED", webhooks: ["PROCESSING", "COMPLETED"] },
  },
  {
    name: "payout.failed",
    description: `the bank rejects a payout (PIX key ${MAGIC_PIX_KEYS.reject}); its amount returns`,
    account: automatic,
    steps: [
      { create: "payout", overrides: { pixKey: MAGIC_PIX_KEYS.reject, pixKeyType: "EMAIL" }, to: "PENDING" },
      processing,
      { call: "advancePayout", args: [AWAIT], to: "FAILED" },
    ],
    expect: { payout: "FAILED", webhooks: ["PROCESSING", "FAILED"] },
  },
  {
    name: "payout.refused",
    description: `the bank refuses a payout (PIX key ${MAGIC_PIX_KEYS.refuse}); its amount returns`,
    account: automatic,
    steps: [
      { create: "payout", overrides: { pixKey: MAGIC_PIX_KEYS.refuse, pixKeyType: "EMAIL" }, to: "PENDING" },
      processing,
      { call: "advancePayout", args: [AWAIT], to: "REFUSED" },
    ],
    expect: { payout: "REFUSED", webhooks: ["PROCESSING", "REFUSED"] },
  },
  {
    name: "payout.refunded",
    description: "the receiving bank returns a completed payout",
    account: automatic,
    steps: [
      payoutCreated,
      processing,
      { call: "advancePayout", args: [AWAIT], to: "COMPLETED" },
      { call: "refundPayout", args: [AWAIT], to: "REFUNDED" },
    ],
    expect: { payout: "REFUNDED", webhooks: ["PROCESSING", "COMPLETED", "REFUNDED"] },
  },
  {
    name: "payout.awaiting-approval",
    description: "a payout left waiting for approval in the dashboard (no webhook yet)",
    account: manual,
    steps: [awaitingApproval],
    expect: { payout: "AWAITING_APPROVAL", webhooks: [] },
  },
  {
    name: "payout.approved",
    description: "a payout approved in the dashboard, then completed by the bank",
    account: manual,
    steps: [
      awaitingApproval,
      { call: "approvePayout", args: [AWAIT], to: "APPROVED" },
      processing,
      { call: "advancePayout", args: [AWAIT], to: "COMPLETED" },
    ],
    expect: { payout: "COMPLETED", webhooks: ["APPROVED", "PROCESSING", "COMPLETED"] },
  },
  {
    name: "payout.canceled",
    description: "a payout rejected in the dashboard; its amount returns",
    account: manual,
    steps: [awaitingApproval, { call: "rejectPayout", args: [AWAIT], to: "CANCELED" }],
    expect: { payout: "CANCELED", webhooks: ["CANCELED"] },
  },
];
