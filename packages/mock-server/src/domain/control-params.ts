import {
  centsUpTo,
  IsoDateTime,
  MAX_AMOUNT_CENTS,
  PAYMENT_METHODS,
  PIX_KEY_TYPES,
  storableString,
} from "@paykit/contract";
import * as z from "zod/mini";
import { CLOCK_MAX_MS, CLOCK_MIN_MS, clockTimeOf } from "./clock.js";
import { LISTEN_EVENT } from "./listeners.js";
import { CONTROL_LIST_LIMIT } from "./lists.js";

// Shapes of the mock's own control API (docs/decisions/mock-control-api.md). They are not
// wire shapes of the service, so they live here rather than in @paykit/contract. Every text field is a
// storableString, the contract's one rule for text (docs/decisions/shared-sandbox-storable-text.md): what a control
// call accepts, every store keeps.

// Money settings are capped so that every balance sum stays an exact integer (docs/decisions/requests.md).
const MAX_SETTING_CENTS = MAX_AMOUNT_CENTS.PAYOUT;
/** The largest opening balance of a mock account, in cents (R$ 100 bilhões). */
export const MAX_OPENING_BALANCE_CENTS = 10_000_000_000_000;
// The contract's cents schema: an amount that is not whole cents is told so the way the API tells it.
const settingCents = () => centsUpTo(MAX_SETTING_CENTS, 0);

const FeeRule = z.union([
  z.strictObject({ percentBps: z.int().check(z.gte(0), z.lte(10_000)) }),
  z.strictObject({ flatCents: settingCents() }),
]);
// One optional rule per method as a strict object, not a record: a record let `__proto__` through,
// which then replaced the prototype of the account's fee table.
const PayinFees = z.strictObject(
  Object.fromEntries(PAYMENT_METHODS.map((method) => [method, z.optional(FeeRule)])) as Record<
    (typeof PAYMENT_METHODS)[number],
    z.ZodMiniOptional<typeof FeeRule>
  >,
);
const Fees = z.strictObject({
  payin: z.optional(PayinFees),
  payoutFlatCents: z.optional(settingCents()),
  cardReserveBps: z.optional(z.int().check(z.gte(0), z.lte(10_000))),
  cardReserveDays: z.optional(z.int().check(z.gte(0), z.lte(3_650))),
});
const Limits = z.strictObject({
  nightMaxCents: z.optional(settingCents()),
  dayMaxCents: z.optional(settingCents()),
});
const settings = {
  kycApproved: z.optional(z.boolean()),
  creditCardEnabled: z.optional(z.boolean()),
  payoutApproval: z.optional(z.enum(["automatic", "manual"])),
  autoAdvance: z.optional(z.boolean()),
  pixDirectory: z.optional(z.enum(["open", "strict"])),
  webhookSecret: z.optional(
    storableString(
      z.regex(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, { error: "must be whsec_ followed by base64" }),
    ),
  ),
  fees: z.optional(Fees),
  limits: z.optional(Limits),
  webhookDuplicates: z.optional(z.boolean()),
  webhookOutOfOrder: z.optional(z.boolean()),
};

/** Body of `POST /_mock/accounts`. */
export const CreateAccountBody = z.strictObject({
  ...settings,
  balance: z.optional(centsUpTo(MAX_OPENING_BALANCE_CENTS, 0)),
  publicKey: z.optional(
    storableString(
      z.regex(/^pk_test_[A-Za-z0-9_]{8,100}$/, { error: "must be pk_test_ and 8-100 letters or digits" }),
    ),
  ),
  secretKey: z.optional(
    storableString(
      z.regex(/^sk_test_[A-Za-z0-9_]{8,100}$/, { error: "must be sk_test_ and 8-100 letters or digits" }),
    ),
  ),
});

/** Body of `POST /_mock/accounts/{id}/settings`. */
export const UpdateAccountBody = z.strictObject(settings);

/** Body of `POST /_mock/accounts/{id}/webhook-secret` (a rotation); the grace is in mock-clock ms, at most 30 days. */
export const RotateWebhookSecretBody = z.strictObject({
  gracePeriodMs: z.optional(z.int().check(z.gte(0), z.lte(30 * 24 * 60 * 60 * 1000))),
});

/** Body of `POST /_mock/payins/{id}/authorize`. */
export const AuthorizeBody = z.strictObject({ approve: z.boolean() });

/** Body of `POST /_mock/payins/{id}/three-ds`. */
export const ThreeDSBody = z.strictObject({ outcome: z.enum(["AUTHENTICATED", "REJECTED"]) });

/** Body of `POST /_mock/payouts/{id}/fail`. */
export const FailBody = z.strictObject({ status: z.optional(z.enum(["FAILED", "REFUSED"])) });

/** Body of `POST /_mock/clock`. */
export const ClockBody = z.strictObject({
  now: z.optional(
    z.pipe(
      IsoDateTime,
      storableString(
        z.refine(
          (value) => {
            const ms = clockTimeOf(value);
            return ms >= CLOCK_MIN_MS && ms <= CLOCK_MAX_MS;
          },
          { error: "must be between 1970-01-01 and 9999-12-31" },
        ),
      ),
    ),
  ),
  // Whether the sum stays in range is checked against the clock at the call (ControlOperations.setClock).
  advanceMs: z.optional(z.int().check(z.gte(0), z.lte(CLOCK_MAX_MS - CLOCK_MIN_MS))),
});

/** Longest fault `path` (the longest URL a browser sends is about this). */
export const MAX_FAULT_PATH = 2048;

/** Body of `POST /_mock/faults`. */
export const FaultBody = z.strictObject({
  method: z.optional(storableString(z.regex(/^[A-Za-z]{1,10}$/, { error: "must be an HTTP method" }))),
  path: storableString(z.maxLength(MAX_FAULT_PATH), z.regex(/^\/\S*$/, { error: "must start with /" })),
  status: z.optional(z.int().check(z.gte(400), z.lte(599))),
  code: z.optional(storableString(z.minLength(1), z.maxLength(100))),
  times: z.optional(z.int().check(z.gte(1))),
  latencyMs: z.optional(z.int().check(z.gte(0), z.lte(120_000))),
  dropResponse: z.optional(z.boolean()),
  accountId: z.optional(storableString(z.minLength(1), z.maxLength(100))),
});

/** Body of `POST /_mock/rate-limit`: `{ limit: null }` switches it off. */
export const RateLimitBody = z.strictObject({
  limit: z.nullable(z.int().check(z.gte(1))),
  windowMs: z.optional(z.int().check(z.gte(1))),
});

/** Body of `POST /_mock/pix-keys`. */
export const PixKeyBody = z.strictObject({
  key: storableString(z.minLength(1), z.maxLength(77)),
  type: z.enum(PIX_KEY_TYPES),
  name: z.optional(storableString(z.minLength(1), z.maxLength(200))),
  document: z.optional(storableString()),
  ispb: z.optional(storableString(z.regex(/^\d{8}$/, { error: "must be 8 digits" }))),
  accountId: z.optional(storableString(z.minLength(1), z.maxLength(100))),
});

/** Body the challenge page posts to `/_mock/acquirer/challenge`. */
export const ChallengeBody = z.strictObject({
  tx: storableString(z.minLength(1), z.maxLength(100)),
  session: z.nullable(storableString(z.maxLength(200))),
  action: z.enum(["approve", "reject"]),
});

/**
 * Query of every control list (`GET /_mock/payins`, `/payouts`, `/webhooks`, `/accounts`, `/pix-keys`;
 * limit already read as a number when numeric); the cursor's content is checked by the list itself.
 */
export const ListQuery = z.strictObject({
  accountId: z.optional(storableString(z.minLength(1), z.maxLength(200))),
  limit: z.optional(z.int().check(z.gte(1), z.lte(CONTROL_LIST_LIMIT.max))),
  cursor: z.optional(storableString(z.minLength(1), z.maxLength(4000))),
});

/** An event a listener takes: `payin.approved`, or `payout.*` for every payout event. */
const ListenEvent = storableString(
  z.regex(LISTEN_EVENT, { error: "must be an event such as payin.approved or payout.*" }),
);
/** `POST /_mock/accounts/{id}/listen`: one poll of `paykit-mock listen`. */
export const ListenBody = z.strictObject({
  listener: storableString(
    z.regex(/^[A-Za-z0-9_-]{8,100}$/, { error: "must be 8 to 100 letters, digits, _ or -" }),
  ),
  acks: z.optional(
    z
      .array(
        z.strictObject({
          attemptId: storableString(z.minLength(1), z.maxLength(200)),
          statusCode: z.nullable(z.int().check(z.gte(100), z.lte(599))),
          error: z.nullable(storableString(z.maxLength(500))),
        }),
      )
      .check(z.maxLength(1000)),
  ),
  events: z.optional(z.array(ListenEvent).check(z.maxLength(100))),
  waitMs: z.optional(z.int().check(z.gte(0), z.lte(25_000))),
  detach: z.optional(z.boolean()),
});
