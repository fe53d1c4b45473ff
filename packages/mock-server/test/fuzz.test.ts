// A property-based fuzz suite over every route of the mock (issue 10, "No input may produce a 500").
//
// fast-check generates requests to every public, control and page route: valid samples mutated
// (wrong types, 2^53-1, negatives, NaN-like strings, null, arrays, `__proto__`/`constructor` keys,
// long, unicode and control-character strings), bodies that are not objects, raw text, random
// queries and headers (content types, Authorization, Origin, Sec-Fetch-Site). Each run is a batch of
// requests against a fresh engine; afterwards the mock must still create a payin and tell the time.
// A smaller part goes over real HTTP (node:http), where the Host header can be hostile too.
//
// Properties: no status >= 500 except the documented business 502s and faults this test injected;
// every error body is JSON with a string `code` and `message`; the mock still answers normally.
//
// Replay: PAYKIT_FUZZ_SEED=<seed> (default printed on the summary line). PAYKIT_FUZZ_SURVEY=1 counts
// without failing and prints each distinct finding with the body and stack; PAYKIT_FUZZ_STATUSES=1
// prints how often each route answered each status (coverage); PAYKIT_FUZZ_SCALE=10 runs 10x the cases.
import { request as httpRequest } from "node:http";
import * as fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { sharedPostgresUrl } from "../../../tests/support/services.js";
import {
  createEngine,
  createMockServer,
  type MockEngine,
  type MockServer,
  SAMPLE_CARD,
  samplePayin,
  samplePayout,
} from "../src/index.js";
import { databaseFor, databaseName, emptyTables } from "./durable-harness.js";
import { basic } from "./fixtures.js";

const DEFAULT_SEED = 20_261_124;
const SEED = Number(process.env.PAYKIT_FUZZ_SEED ?? DEFAULT_SEED);
if (!Number.isSafeInteger(SEED))
  throw new Error(`PAYKIT_FUZZ_SEED must be an integer, got ${process.env.PAYKIT_FUZZ_SEED}`);
const SURVEY = process.env.PAYKIT_FUZZ_SURVEY === "1";
// PAYKIT_FUZZ_SCALE=10 runs ten times as many cases (and allows ten times the time) for a deeper local run.
const SCALE = Math.max(1, Number(process.env.PAYKIT_FUZZ_SCALE ?? 1) || 1);
const ENGINE_BATCHES = 300 * SCALE;
const HTTP_BATCHES = 60 * SCALE;
const BATCH = { engine: 10, http: 5 };
// Time caps well under the test timeouts on a loaded 2-core machine; fast-check stops early at them.
const ENGINE_TIME_MS = 20_000 * SCALE;
const HTTP_TIME_MS = 10_000 * SCALE;
const ADMIN_TOKEN = "fuzz-admin-token-0123456789";

/**
 * 5xx answers the service documents as business errors (docs/decisions/error-body.md).
 */
const BUSINESS_5XX = new Set(["PROVIDER_ERROR", "TEMPORARY_UNAVAILABLE", "PROVIDER_REJECTED"]);

// ---------------------------------------------------------------------------------------------------
// Routes

type IdKind = "payin" | "payout" | "account" | "delivery" | "file" | "any";

interface RouteSpec {
  method: string;
  /** Path with `:kind` placeholders filled from the batch's ids or random strings. */
  path: string;
  /** Valid-ish bodies to mutate (none: the route takes no body, one is sent anyway sometimes). */
  samples?: (ctx: Ctx) => unknown[];
  /** Query keys the route reads. */
  queryKeys?: string[];
}

const isoSamples = [
  "2030-01-01T00:00:00Z",
  "1970-01-01",
  "9999-12-31T23:59:59Z",
  "2026-06-01T12:00:00-03:00",
];

const ROUTES: RouteSpec[] = [
  {
    method: "POST",
    path: "/payin",
    samples: (ctx) => [
      samplePayin("PIX", { webhookUrl: ctx.webhookUrl }),
      samplePayin("BOLETO"),
      samplePayin("OPEN_FINANCE"),
      samplePayin("CREDIT_CARD"),
      samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number: "4000000000003220" } }),
    ],
  },
  { method: "GET", path: "/payin" },
  { method: "GET", path: "/payin/:payin" },
  {
    method: "POST",
    path: "/payout",
    samples: (ctx) => [
      samplePayout({ webhookUrl: ctx.webhookUrl }),
      samplePayout({ pixKey: "12345678909", pixKeyType: "CPF" }),
      samplePayout({ amount: 99_999 }),
    ],
  },
  {
    method: "GET",
    path: "/payout",
    queryKeys: ["status", "startDate", "endDate", "limit", "page", "referenceId"],
  },
  { method: "GET", path: "/payout/:payout" },
  {
    method: "POST",
    path: "/_mock/accounts",
    samples: () => [
      { balance: 100_000, kycApproved: true, payoutApproval: "manual" },
      { fees: { payin: { PIX: { percentBps: 100 } }, payoutFlatCents: 10 }, limits: { nightMaxCents: 1 } },
      {
        publicKey: "pk_test_fuzz12345",
        secretKey: "sk_test_fuzz12345",
        webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      },
    ],
  },
  { method: "GET", path: "/_mock/accounts" },
  { method: "GET", path: "/_mock/accounts/:account" },
  {
    method: "POST",
    path: "/_mock/accounts/:account/settings",
    samples: () => [
      { kycApproved: false },
      { fees: { payin: { CREDIT_CARD: { flatCents: 5 } }, cardReserveBps: 500, cardReserveDays: 1 } },
      { limits: { dayMaxCents: 10, nightMaxCents: 5 }, webhookDuplicates: true, webhookOutOfOrder: true },
      { payoutApproval: "manual", autoAdvance: false, creditCardEnabled: false },
    ],
  },
  { method: "POST", path: "/_mock/accounts/:account/reset" },
  { method: "GET", path: "/_mock/accounts/:account/clock" },
  {
    method: "POST",
    path: "/_mock/accounts/:account/clock",
    samples: () => [
      { advanceMs: 3_600_000 },
      { now: "2031-02-03T04:05:06Z" },
      { now: "2030-01-01", advanceMs: 1 },
    ],
  },
  {
    method: "POST",
    path: "/_mock/accounts/:account/webhook-secret",
    samples: () => [{ gracePeriodMs: 1000 }, {}],
  },
  { method: "GET", path: "/_mock/payins", queryKeys: ["accountId", "limit"] },
  { method: "GET", path: "/_mock/payouts", queryKeys: ["accountId", "limit"] },
  { method: "POST", path: "/_mock/payins/:payin/pay" },
  {
    method: "POST",
    path: "/_mock/payins/:payin/authorize",
    samples: () => [{ approve: true }, { approve: false }],
  },
  { method: "POST", path: "/_mock/payins/:payin/expire" },
  {
    method: "POST",
    path: "/_mock/payins/:payin/three-ds",
    samples: () => [{ outcome: "AUTHENTICATED" }, { outcome: "REJECTED" }],
  },
  { method: "POST", path: "/_mock/payouts/:payout/approve" },
  { method: "POST", path: "/_mock/payouts/:payout/reject" },
  { method: "POST", path: "/_mock/payouts/:payout/advance" },
  {
    method: "POST",
    path: "/_mock/payouts/:payout/fail",
    samples: () => [{ status: "FAILED" }, { status: "REFUSED" }, {}],
  },
  { method: "POST", path: "/_mock/payouts/:payout/refund" },
  { method: "GET", path: "/_mock/clock" },
  {
    method: "POST",
    path: "/_mock/clock",
    samples: () => [
      ...isoSamples.map((now) => ({ now })),
      { advanceMs: 60_000 },
      { advanceMs: 86_400_000 * 400 },
      { now: "2030-01-01T00:00:00Z", advanceMs: 1 },
    ],
  },
  { method: "GET", path: "/_mock/webhooks", queryKeys: ["accountId"] },
  { method: "POST", path: "/_mock/webhooks/flush" },
  { method: "POST", path: "/_mock/webhooks/:delivery/redeliver" },
  { method: "GET", path: "/_mock/faults", queryKeys: ["accountId"] },
  {
    method: "POST",
    path: "/_mock/faults",
    samples: () => [
      { path: "/payin", status: 503, times: 1 },
      { method: "GET", path: "/payout*", status: 429 },
      { path: "/payin", latencyMs: 1 },
      { path: "/payout", dropResponse: true },
      { path: "/payin/*", status: 400, code: "FUZZ" },
      { path: "/payout", status: 500, accountId: "acct_fuzz_unknown" },
    ],
  },
  { method: "DELETE", path: "/_mock/faults", queryKeys: ["accountId"] },
  {
    method: "POST",
    path: "/_mock/rate-limit",
    samples: () => [{ limit: 5, windowMs: 1000 }, { limit: null }],
  },
  { method: "GET", path: "/_mock/pix-keys" },
  {
    method: "POST",
    path: "/_mock/pix-keys",
    samples: () => [
      { key: "fuzz@example.com", type: "EMAIL", name: "Fuzz Teste" },
      { key: "+5511999999999", type: "PHONE", ispb: "12345678" },
      { key: "12345678909", type: "CPF", document: "12345678909" },
    ],
  },
  { method: "POST", path: "/_mock/reset" },
  { method: "GET", path: "/_mock/dashboard" },
  { method: "GET", path: "/_mock/boleto/:file" },
  { method: "GET", path: "/_mock/open-finance/:payin", queryKeys: ["returnUrl"] },
  {
    method: "POST",
    path: "/_mock/open-finance/:payin",
    samples: () => [{ decision: "approve" }, { decision: "deny", returnUrl: "https://shop.example/back" }],
    queryKeys: ["returnUrl"],
  },
  { method: "GET", path: "/_mock/acquirer/three-ds.js" },
  { method: "GET", path: "/_mock/acquirer/challenge", queryKeys: ["tx", "origin"] },
  {
    method: "POST",
    path: "/_mock/acquirer/challenge",
    samples: (ctx) => [{ tx: ctx.ids.tx[0] ?? "tx", session: ctx.ids.session[0] ?? null, action: "approve" }],
  },
];

// ---------------------------------------------------------------------------------------------------
// What a batch knows: ids harvested from the mock's own answers

interface Ctx {
  webhookUrl: string;
  authorization: string;
  origin: string;
  ids: Record<"payin" | "payout" | "account" | "delivery" | "tx" | "session" | "file", string[]>;
}

function harvest(ctx: Ctx, value: unknown, depth = 0): void {
  if (depth > 4 || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 20)) harvest(ctx, item, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  const id = record.id;
  if (typeof id === "string") {
    if (id.startsWith("wh_")) ctx.ids.delivery.push(id);
    else if (typeof record.paymentMethod === "string") {
      ctx.ids.payin.push(id);
      if (record.paymentMethod === "BOLETO") ctx.ids.file.push(`${id}.pdf`);
    } else if ("pixKey" in record) ctx.ids.payout.push(id);
  }
  if (typeof record.accountId === "string") ctx.ids.account.push(record.accountId);
  if (typeof record.threeDSecureTransactionId === "string") ctx.ids.tx.push(record.threeDSecureTransactionId);
  if (typeof record.threeDSecureSession === "string") ctx.ids.session.push(record.threeDSecureSession);
  for (const [key, child] of Object.entries(record)) if (key !== "id") harvest(ctx, child, depth + 1);
}

// ---------------------------------------------------------------------------------------------------
// Arbitraries

const HOSTILE_CONSTANTS: unknown[] = [
  2 ** 53 - 1,
  9_007_199_254_740_991,
  -(2 ** 53 - 1),
  2 ** 52,
  8.64e15,
  8.64e15 + 1,
  1e308,
  -1,
  0,
  -0,
  0.5,
  2 ** 31,
  "NaN",
  "Infinity",
  "-Infinity",
  "1e999",
  "0x10",
  "",
  " ",
  "\u0000",
  "\u202e\u0000\r\n",
  "😀".repeat(300),
  "x".repeat(5_000),
  "+275760-09-13T00:00:00.000Z",
  "-271821-04-20T00:00:00.000Z",
  "0000-01-01T00:00:00Z",
  "10000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "1969-12-31T23:59:59Z",
  "2026-02-30",
  null,
  true,
  [],
  {},
  [null],
  { __proto__: null },
];

/** `null` (the ordinary choice) `n` times out of `n + 1`, else a value of `arb`. */
function rarely<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: n, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

const hostileKey = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty"),
  fc.string({ maxLength: 12 }),
);

/** An object with an own enumerable key (`__proto__` included, which `JSON.stringify` then writes). */
function withKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_CONSTANTS) },
  { weight: 3, arbitrary: fc.constantFrom(2 ** 53 - 1, 2 ** 52, 8.64e15, 1e308, -1, 1.5, "NaN", null) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.oneof(fc.maxSafeInteger(), fc.maxSafeNat()) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(hostileKey, fc.jsonValue({ maxDepth: 1 }))
      .map(([key, value]) => withKey({}, key, value)),
  },
);

type Mutation = { op: "set" | "delete" | "add" | "wrap"; path: number[]; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom("set", "set", "delete", "add", "wrap"),
  path: fc.array(fc.nat(50), { maxLength: 3 }),
  key: hostileKey,
  value: hostileValue,
});

function clone(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** Applies a mutation at a path chosen by index among the keys met on the way. */
function mutate(root: unknown, m: Mutation): unknown {
  if (root === null || typeof root !== "object") return m.value;
  let node = root as Record<string, unknown>;
  for (const step of m.path.slice(0, -1)) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const child = node[keys[step % keys.length]!];
    if (child === null || typeof child !== "object") break;
    node = child as Record<string, unknown>;
  }
  const keys = Object.keys(node);
  const last = m.path.at(-1) ?? 0;
  const key = keys.length > 0 && m.op !== "add" ? keys[last % keys.length]! : m.key;
  if (m.op === "delete") delete node[key];
  else if (m.op === "wrap") node[key] = [node[key]];
  else withKey(node, key, m.value);
  return root;
}

type BodyRecipe =
  | { kind: "none" }
  | { kind: "sample"; index: number; mutations: Mutation[] }
  | { kind: "value"; value: unknown }
  | { kind: "text"; text: string };

const bodyRecipe: fc.Arbitrary<BodyRecipe> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("sample" as const),
      index: fc.nat(20),
      mutations: fc.array(mutation, { maxLength: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("value" as const),
      value: fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom(null, 0, -1, 9_007_199_254_740_991, "", "null", true, [], [{}], [null]),
        },
        fc.integer(),
        fc.string({ maxLength: 20 }),
        fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("text" as const),
      text: fc.oneof(
        fc.constantFrom(
          "{",
          "{}}",
          "[1,",
          "nul",
          "\u0000",
          " ",
          "\ufeff{}",
          '{"a":1e999}',
          "x".repeat(1024 * 1024 + 1),
        ),
        fc.string({ unit: "binary", maxLength: 60 }),
      ),
    }),
  },
);

function bodyText(recipe: BodyRecipe, route: RouteSpec, ctx: Ctx): string | undefined {
  switch (recipe.kind) {
    case "none":
      return undefined;
    case "text":
      return recipe.text;
    case "value":
      return JSON.stringify(recipe.value);
    case "sample": {
      const samples = route.samples?.(ctx) ?? [{}];
      let body = clone(samples[recipe.index % samples.length]);
      for (const m of recipe.mutations) body = mutate(body, m);
      // An injected latency is real time: keep it short so a batch cannot sleep for minutes.
      const fault = body as { latencyMs?: unknown } | null;
      if (route.path === "/_mock/faults" && typeof fault?.latencyMs === "number" && fault.latencyMs > 20)
        fault.latencyMs = fault.latencyMs <= 120_000 ? 20 : fault.latencyMs;
      return JSON.stringify(body);
    }
  }
}

type IdRecipe = { kind: "known"; index: number } | { kind: "raw"; text: string };

const idRecipe: fc.Arbitrary<IdRecipe> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("known" as const), index: fc.nat(30) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("raw" as const),
      text: fc.oneof(
        fc.constantFrom(
          "%zz",
          "%E0%A4%A",
          "..",
          "%2e%2e",
          "x".repeat(3000),
          "pay_",
          "po_",
          "%00",
          "__proto__",
          "constructor",
        ),
        fc.string({ maxLength: 30 }).map(encodeURIComponent),
      ),
    }),
  },
);

function idOf(kind: IdKind, recipe: IdRecipe, ctx: Ctx): string {
  if (recipe.kind === "raw") return recipe.text;
  const pool = kind === "any" ? [] : ctx.ids[kind];
  return pool.length === 0 ? "none" : encodeURIComponent(pool[recipe.index % pool.length]!);
}

const queryRecipe: fc.Arbitrary<{ pairs: [number, string][]; raw: string | null }> = fc.record({
  pairs: fc.array(
    fc.tuple(
      fc.nat(20),
      fc.oneof(
        fc.constantFrom(
          "",
          "1",
          "0",
          "-1",
          "1001",
          "9007199254740991",
          "1e3",
          "NaN",
          "PENDING",
          "2030-01-01",
          "x".repeat(3000),
        ),
        fc.constantFrom(
          "https://shop.example/back",
          "javascript:alert(1)",
          "http://u:p@x.test/",
          "null",
          "http://127.0.0.1",
        ),
        fc.string({ maxLength: 20 }),
      ),
    ),
    { maxLength: 4 },
  ),
  raw: rarely(
    fc.oneof(
      fc.constantFrom("%", "&&&", "a=%zz", "limit=1&limit=2", "=", "__proto__=1", "constructor[a]=1"),
      fc.string(),
    ),
    4,
  ),
});

function queryText(q: { pairs: [number, string][]; raw: string | null }, route: RouteSpec, ctx: Ctx): string {
  const keys = [...(route.queryKeys ?? []), "accountId", "limit", "__proto__", "extra"];
  const params = new URLSearchParams();
  for (const [index, value] of q.pairs) {
    const key = keys[index % keys.length]!;
    params.append(
      key,
      key === "accountId" && value === "1"
        ? (ctx.ids.account[0] ?? value)
        : key === "tx"
          ? (ctx.ids.tx[0] ?? value)
          : value,
    );
  }
  const text = params.toString();
  return q.raw === null ? text : text ? `${text}&${q.raw}` : q.raw;
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/merge-patch+json",
  "application/json;;;",
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
  "*/*",
];

type HeaderRecipe = {
  contentType: string | null;
  authorization: number | string | null;
  origin: string | null;
  secFetchSite: string | null;
  extra: [string, string] | null;
};

const headerRecipe: fc.Arbitrary<HeaderRecipe> = fc.record({
  contentType: rarely(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, fc.string({ maxLength: 30 })),
    3,
  ),
  // A number picks a prepared variant (valid Basic, admin Bearer, wrong secret...); a string is sent as is.
  authorization: rarely(fc.oneof({ weight: 4, arbitrary: fc.nat(10) }, fc.string({ maxLength: 40 })), 4),
  origin: rarely(
    fc.oneof(
      fc.constantFrom("self", "http://evil.test", "null", "https://attacker.example:8443", ""),
      fc.string({ maxLength: 20 }),
    ),
    3,
  ),
  secFetchSite: rarely(fc.constantFrom("cross-site", "same-site", "same-origin", "none", "x"), 4),
  extra: rarely(
    fc.tuple(
      fc.constantFrom("accept", "x-forwarded-host", "content-length", "cookie"),
      fc.string({ maxLength: 20 }),
    ),
    4,
  ),
});

function authorizationOf(choice: number | string, ctx: Ctx): string {
  if (typeof choice === "string") return choice;
  const variants = [
    ctx.authorization,
    ctx.authorization,
    ctx.authorization,
    `Bearer ${ADMIN_TOKEN}`,
    `Basic ${btoa("pk_test_nope:sk_test_nope")}`,
    "Basic !!!notbase64",
    "Basic",
    `Basic ${btoa("a:b:c")}`,
    `basic ${ctx.authorization.slice(6)}`,
    `Basic ${"A".repeat(16_000)}`,
    `Bearer  ${ADMIN_TOKEN} `,
  ];
  return variants[choice % variants.length]!;
}

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

type Case = {
  route: number;
  method: number | null;
  id: IdRecipe;
  body: BodyRecipe;
  query: { pairs: [number, string][]; raw: string | null };
  headers: HeaderRecipe;
};

// Routes that read a body are picked four times as often: that is where most input goes.
const ROUTE_INDEX = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ROUTES.flatMap((r, i) => (r.samples ? [i] : []))) },
  { weight: 1, arbitrary: fc.nat(ROUTES.length - 1) },
);

const caseArb: fc.Arbitrary<Case> = fc.record({
  route: ROUTE_INDEX,
  method: rarely(fc.nat(METHODS.length - 1), 9),
  id: idRecipe,
  body: bodyRecipe,
  query: queryRecipe,
  headers: headerRecipe,
});

const HOSTS = [
  "a b",
  "[::1",
  "host:99999",
  "",
  "localhost:-1",
  "exa mple.com",
  "x@y",
  "%zz",
  "évil.test",
  "[::1]:80",
  "127.0.0.1:1/path",
  "a".repeat(300),
];
const hostArb = rarely(
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOSTS) }, fc.string({ maxLength: 20 })),
  1,
);

// ---------------------------------------------------------------------------------------------------
// Building and checking one request

interface Built {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function build(c: Case, ctx: Ctx): Built {
  const route = ROUTES[c.route]!;
  const method = c.method === null ? route.method : METHODS[c.method]!;
  const path = route.path.replace(/:(\w+)/g, (_, kind: IdKind) => idOf(kind, c.id, ctx));
  const query = queryText(c.query, route, ctx);
  const headers: Record<string, string> = {};
  if (c.headers.contentType !== null) headers["content-type"] = c.headers.contentType;
  else if (c.body.kind !== "none") headers["content-type"] = "application/json";
  // Without a chosen variant, each route gets the credentials it needs (pages ignore them).
  if (c.headers.authorization !== null) headers.authorization = authorizationOf(c.headers.authorization, ctx);
  else headers.authorization = route.path.startsWith("/_mock") ? `Bearer ${ADMIN_TOKEN}` : ctx.authorization;
  if (c.headers.origin !== null) headers.origin = c.headers.origin === "self" ? ctx.origin : c.headers.origin;
  if (c.headers.secFetchSite !== null) headers["sec-fetch-site"] = c.headers.secFetchSite;
  if (c.headers.extra !== null) headers[c.headers.extra[0]] = c.headers.extra[1];
  const body = method === "GET" || method === "HEAD" ? undefined : bodyText(c.body, route, ctx);
  return {
    label: `${route.method} ${route.path}`,
    method,
    path: query ? `${path}?${query}` : path,
    headers,
    body,
  };
}

interface Tally {
  cases: number;
  skipped: number;
  routes: Set<string>;
  fiveXX: number;
  nonJson: number;
  findings: Map<string, string>;
  statuses: Map<string, number>;
}

const tally = (): Tally => ({
  cases: 0,
  skipped: 0,
  routes: new Set(),
  fiveXX: 0,
  nonJson: 0,
  findings: new Map(),
  statuses: new Map(),
});
const totals = { engine: tally(), http: tally(), cluster: tally() };

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Checks one answer; a finding is recorded and, unless surveying, fails the run. */
function check(t: Tally, built: Built, answer: Answer | "dropped", faultsInjected: boolean): string | null {
  t.cases += 1;
  t.routes.add(built.label);
  const bucket = `${built.label} ${answer === "dropped" ? "dropped" : answer.status}`;
  t.statuses.set(bucket, (t.statuses.get(bucket) ?? 0) + 1);
  const where = `${built.method} ${built.path.slice(0, 120)}`;
  if (answer === "dropped") {
    if (faultsInjected) return null;
    return record(t, "dropped", `${built.label}: connection dropped without an injected fault (${where})`);
  }
  let body: { code?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = undefined;
  }
  if (answer.status >= 500) {
    const code = typeof body?.code === "string" ? body.code : "";
    const injected =
      faultsInjected && typeof body?.message === "string" && body.message.startsWith("injected fault");
    if (!BUSINESS_5XX.has(code) && !injected) {
      t.fiveXX += 1;
      return record(
        t,
        `5xx ${built.label} ${answer.status} ${code}`,
        `${built.label}: ${answer.status} ${answer.text.slice(0, 200)} (${where}; headers ${JSON.stringify(built.headers).slice(0, 300)}; body ${built.body?.slice(0, 300)})`,
      );
    }
  }
  const isError = answer.status >= 400;
  if (isError && built.method !== "HEAD") {
    const jsonBody =
      answer.contentType.startsWith("application/json") &&
      typeof body?.code === "string" &&
      typeof body.message === "string";
    if (!jsonBody) {
      t.nonJson += 1;
      return record(
        t,
        `nonjson ${built.label} ${answer.status}`,
        `${built.label}: ${answer.status} error body is not JSON {code, message}: ${answer.contentType} ${answer.text.slice(0, 120)} (${where})`,
      );
    }
  }
  return null;
}

function record(t: Tally, key: string, message: string): string {
  if (!t.findings.has(key)) t.findings.set(key, message);
  return message;
}

// ---------------------------------------------------------------------------------------------------
// Engine and HTTP drivers

const noWebhooks = async () => new Response("receiver down", { status: 500 });

async function engineCall(
  engine: MockEngine,
  base: string,
  built: Built,
): Promise<Answer | "dropped" | "skipped"> {
  let request: Request;
  try {
    request = new Request(base + built.path, {
      method: built.method,
      headers: built.headers,
      body: built.body,
    });
  } catch {
    return "skipped"; // a header value or URL fetch itself refuses: no request reaches the mock
  }
  const res = await engine.handle(request);
  if (res.type === "error") return "dropped";
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text: await res.text() };
}

function httpCall(url: URL, built: Built, host: string | null): Promise<Answer | "dropped" | "skipped"> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...built.headers };
    delete headers["content-length"];
    if (host !== null) headers.host = host;
    if (built.body !== undefined) headers["content-length"] = String(Buffer.byteLength(built.body));
    let req: ReturnType<typeof httpRequest>;
    try {
      req = httpRequest({
        host: url.hostname,
        port: url.port,
        method: built.method,
        path: built.path,
        headers,
        setHost: host === null,
        timeout: 10_000,
      });
    } catch {
      resolve("skipped"); // node:http refuses the header or path before sending
      return;
    }
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", () => resolve("dropped"));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve("dropped"));
    req.end(built.body);
  });
}

/** After a batch: undo what a batch may legitimately switch off, then a payin and the clock must answer. */
async function stillHealthy(
  send: (built: Built) => Promise<Answer | "dropped" | "skipped">,
  ctx: Ctx,
  accountId: string,
): Promise<string | null> {
  const control = (method: string, path: string, body?: unknown): Built => ({
    label: "health",
    method,
    path,
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await send(control("DELETE", "/_mock/faults"));
  await send(control("POST", "/_mock/rate-limit", { limit: null }));
  await send(control("POST", `/_mock/accounts/${accountId}/settings`, { kycApproved: true }));
  const payin = await send({
    label: "health",
    method: "POST",
    path: "/payin",
    headers: { "content-type": "application/json", authorization: ctx.authorization },
    body: JSON.stringify(samplePayin("PIX")),
  });
  if (typeof payin === "string" || payin.status !== 201)
    return `POST /payin answers ${typeof payin === "string" ? payin : `${payin.status} ${payin.text.slice(0, 200)}`}`;
  const clock = await send(control("GET", "/_mock/clock"));
  if (typeof clock === "string" || clock.status !== 200)
    return `GET /_mock/clock answers ${typeof clock === "string" ? clock : `${clock.status} ${clock.text.slice(0, 200)}`}`;
  return null;
}

/** Seeds a fresh mock with one resource of each kind, so generated ids hit real records. */
async function seed(
  send: (built: Built) => Promise<Answer | "dropped" | "skipped">,
  ctx: Ctx,
): Promise<void> {
  const post = async (path: string, body: unknown, authorization = ctx.authorization) => {
    const answer = await send({
      label: "seed",
      method: "POST",
      path,
      headers: { "content-type": "application/json", authorization },
      body: JSON.stringify(body),
    });
    if (typeof answer !== "string") harvest(ctx, JSON.parse(answer.text));
  };
  await post("/payin", samplePayin("PIX", { webhookUrl: ctx.webhookUrl }));
  await post("/payin", samplePayin("BOLETO"));
  await post("/payin", samplePayin("OPEN_FINANCE"));
  await post("/payin", samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number: "4000000000003220" } }));
  await post("/payout", samplePayout({ webhookUrl: ctx.webhookUrl }));
  await post("/_mock/accounts", { balance: 50_000, payoutApproval: "manual" }, `Bearer ${ADMIN_TOKEN}`);
}

function freshCtx(account: { accountId: string; publicKey: string; secretKey: string }, origin: string): Ctx {
  return {
    webhookUrl: "http://receiver.fuzz.test/hooks",
    authorization: basic(account),
    origin,
    ids: { payin: [], payout: [], account: [account.accountId], delivery: [], tx: [], session: [], file: [] },
  };
}

function summary(t: Tally): string {
  return `${t.cases} cases, ${t.routes.size} routes, ${t.fiveXX} 5xx, ${t.nonJson} non-JSON error bodies`;
}

function failures(t: Tally): string {
  return [...t.findings.values()].join("\n");
}

// ---------------------------------------------------------------------------------------------------

describe("fuzz: no input makes the mock answer 5xx or a non-JSON error", () => {
  const unexpected: unknown[] = [];
  const onUncaught = (error: unknown) => unexpected.push(error);
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);

  afterAll(() => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
    const all = tally();
    for (const t of [totals.engine, totals.http, totals.cluster]) {
      all.cases += t.cases;
      all.fiveXX += t.fiveXX;
      all.nonJson += t.nonJson;
      for (const r of t.routes) all.routes.add(r);
    }
    console.log(
      `fuzz: ${summary(all)} (engine ${totals.engine.cases}, http ${totals.http.cases}, cluster ${totals.cluster.cases}; seed ${SEED}, replay with PAYKIT_FUZZ_SEED=${SEED}${SCALE > 1 ? ` PAYKIT_FUZZ_SCALE=${SCALE}` : ""})`,
    );
    const missed = ROUTES.map((r) => `${r.method} ${r.path}`).filter((label) => !all.routes.has(label));
    if (missed.length > 0) console.log(`fuzz: routes never reached: ${missed.join(", ")}`);
    if (SURVEY)
      console.log(
        `fuzz findings:\n${failures(totals.engine)}\n${failures(totals.http)}\nuncaught: ${unexpected.map(String).join("\n")}`,
      );
    if (process.env.PAYKIT_FUZZ_STATUSES === "1")
      console.log(
        [...totals.engine.statuses]
          .sort()
          .map(([k, n]) => `${k}: ${n}`)
          .join("\n"),
      );
  });

  let sharedBatch = false;
  it(
    `engine: ${ENGINE_BATCHES} batches of ${BATCH.engine} requests through engine.handle`,
    async () => {
      const t = totals.engine;
      const base = "http://mock.test";
      await fc.assert(
        fc.asyncProperty(
          fc.array(caseArb, { minLength: BATCH.engine, maxLength: BATCH.engine }),
          async (cases) => {
            const internal: unknown[] = [];
            // Every other batch under a shared sandbox's access rules (account keys on control calls).
            sharedBatch = !sharedBatch;
            const engine = createEngine({
              adminToken: ADMIN_TOKEN,
              sharedSandbox: sharedBatch,
              fetch: noWebhooks,
              onError: (e) => internal.push(e),
            });
            try {
              const ctx = freshCtx(engine.account, base);
              const send = (built: Built) => engineCall(engine, base, built);
              await seed(send, ctx);
              let faultsInjected = false;
              for (const c of cases) {
                const built = build(c, ctx);
                const answer = await send(built);
                if (answer === "skipped") {
                  t.skipped += 1;
                  continue;
                }
                if (answer !== "dropped") {
                  if (built.path.startsWith("/_mock/faults") && answer.status === 201) faultsInjected = true;
                  try {
                    harvest(ctx, JSON.parse(answer.text));
                  } catch {
                    // an HTML page or a PDF
                  }
                }
                const finding = check(t, built, answer, faultsInjected);
                if (finding && SURVEY && internal.length > 0) {
                  const stack = (internal.at(-1) as Error).stack?.split("\n").slice(0, 3).join("\n  ");
                  t.findings.set(
                    `${built.label} ${stack}`,
                    `${finding}\n  body: ${built.body?.slice(0, 200)}\n  ${stack}`,
                  );
                }
                if (finding && !SURVEY)
                  throw new Error(`${finding}\n${internal.map((e) => (e as Error).stack).join("\n")}`);
              }
              const sick = await stillHealthy(send, ctx, engine.account.accountId);
              if (sick) {
                record(t, `health ${sick.slice(0, 40)}`, `after the batch, ${sick}`);
                if (!SURVEY) throw new Error(`after the batch, ${sick}`);
              }
            } finally {
              engine.close();
            }
          },
        ),
        {
          seed: SEED,
          numRuns: ENGINE_BATCHES,
          interruptAfterTimeLimit: ENGINE_TIME_MS,
          markInterruptAsFailure: false,
          endOnFailure: true,
        },
      );
      expect(unexpected.map(String)).toEqual([]);
    },
    90_000 * SCALE,
  );

  /** Batches of hostile requests over node:http to the mock `start` serves. */
  async function httpBatches(
    t: Tally,
    start: () => Promise<{ url: string; account: MockServer["account"]; close(): Promise<void> }>,
    timeLimitMs: number = HTTP_TIME_MS,
  ) {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(caseArb, hostArb), { minLength: BATCH.http, maxLength: BATCH.http }),
        async (cases) => {
          const mock = await start();
          try {
            const url = new URL(mock.url);
            const ctx = freshCtx(mock.account, mock.url);
            const send = (built: Built, host: string | null = null) => httpCall(url, built, host);
            await seed(send, ctx);
            let faultsInjected = false;
            for (const [c, host] of cases) {
              const built = build(c, ctx);
              const answer = await send(built, host);
              if (answer === "skipped") {
                t.skipped += 1;
                continue;
              }
              if (answer !== "dropped") {
                if (built.path.startsWith("/_mock/faults") && answer.status === 201) faultsInjected = true;
                try {
                  harvest(ctx, JSON.parse(answer.text));
                } catch {
                  // an HTML page or a PDF
                }
              }
              const finding = check(t, built, answer, faultsInjected);
              if (finding && !SURVEY) throw new Error(`${finding} (Host: ${JSON.stringify(host)})`);
            }
            const sick = await stillHealthy(send, ctx, mock.account.accountId);
            if (sick) {
              record(t, `health ${sick.slice(0, 40)}`, `after the batch, ${sick}`);
              if (!SURVEY) throw new Error(`after the batch, ${sick}`);
            }
          } finally {
            await mock.close();
          }
        },
      ),
      {
        seed: SEED,
        numRuns: HTTP_BATCHES,
        interruptAfterTimeLimit: timeLimitMs,
        markInterruptAsFailure: false,
        endOnFailure: true,
      },
    );
    expect(unexpected.map(String)).toEqual([]);
  }

  it(
    `http: ${HTTP_BATCHES} batches of ${BATCH.http} requests over node:http with hostile Host headers`,
    () => httpBatches(totals.http, () => createMockServer({ adminToken: ADMIN_TOKEN, fetch: noWebhooks })),
    60_000 * SCALE,
  );

  it(
    "cluster: the same batches through the second of two mock servers on one PostgreSQL store",
    async () => {
      // one pair for every batch, each batch starting from a reset sandbox (two processes' start on
      // PostgreSQL per batch took most of the suite's budget on a loaded machine)
      let pair: { first: MockServer; second: MockServer } | null = null;
      try {
        await httpBatches(totals.cluster, async () => {
          if (pair === null) {
            const db = await databaseFor("postgres");
            await emptyTables(db);
            const store = {
              url: (await sharedPostgresUrl()).replace(/\/[^/]*$/, `/${await databaseName(db)}`),
            };
            // a store keeps secret keys as hashes: both processes are given the default account's keys
            const defaultAccount = {
              publicKey: "pk_test_fuzzcluster0000001",
              secretKey: "sk_test_fuzzcluster0000000000000001",
            };
            const options = {
              adminToken: ADMIN_TOKEN,
              sharedSandbox: false,
              fetch: noWebhooks,
              store,
              defaultAccount,
            };
            const first = await createMockServer(options);
            pair = { first, second: await createMockServer(options) };
          }
          const { second } = pair;
          return {
            url: second.url,
            account: second.account,
            close: () => second.control.reset(),
          };
        });
      } finally {
        const open = pair as { first: MockServer; second: MockServer } | null;
        await open?.second.close();
        await open?.first.close();
      }
    },
    60_000 * SCALE,
  );
});
