// "Whatever the API accepts, the store keeps" (issue 21), as a property over every text field of every
// route that takes text, merchant API and control API, in memory, on PGlite and on PostgreSQL:
//   (a) well-formed text (astral characters, emoji, combining marks, quotes, backslashes) is accepted and
//       read back exactly as sent, and again after the durable mock is stopped and started;
//   (b) a lone UTF-16 surrogate or a NUL is refused with 400 INVALID_DATA naming the field, and another
//       account on the same mock goes on working (one odd string never blocks the sandbox).
// The fields are read from the schemas (every string leaf of each request schema), and the table of
// example bodies must fill every one of them, so a new text field cannot be left out.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as contract from "@paykit/contract";
import {
  isStorableText,
  PayinCreateParams,
  PayoutCreateParams,
  PayoutListQuery,
  STORABLE_TEXT_MESSAGE,
  validate,
} from "@paykit/contract";
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as z from "zod/mini";
import { sharedPostgresUrl } from "../../../tests/support/services.js";
import * as controlParams from "../src/domain/control-params.js";
import {
  ChallengeBody,
  ClockBody,
  CreateAccountBody,
  FaultBody,
  ListenBody,
  ListQuery,
  PixKeyBody,
  UpdateAccountBody,
} from "../src/domain/control-params.js";
import { encodeCursor } from "../src/domain/lists.js";
import { createMockServer, type MockServer, type MockServerOptions, samplePayin } from "../src/index.js";
import { openPostgres } from "../src/stores/sql/sql-client.js";
import { basic } from "./fixtures.js";

const ADMIN = "storable-text-admin-token";
const RUNS = 10;
// On a durable store every accepted value is a commit: fewer per field there (the same generators and
// seed), so that the file stays well under a minute on a loaded CI machine.
const DURABLE_RUNS = 3;
// Stable runs on CI; PAYKIT_TEXT_SEED=<n> replays another.
const SEED = Number(process.env.PAYKIT_TEXT_SEED ?? 20_260_521);

type Path = (string | number)[];
type Body = Record<string, unknown>;
type Keys = { accountId: string; publicKey: string; secretKey: string };

// ---------------------------------------------------------------------------------------------------
// The text fields of a schema, read from zod's definitions: `#` stands for any array index, `*` for
// anything inside an opaque JSON value (split rules, 3DS data).

interface Def {
  type: string;
  shape?: Record<string, z.ZodMiniType>;
  innerType?: z.ZodMiniType;
  in?: z.ZodMiniType;
  element?: z.ZodMiniType;
  options?: z.ZodMiniType[];
}
const defOf = (schema: z.ZodMiniType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

function textFieldsOf(schema: z.ZodMiniType, prefix: string[] = [], out = new Set<string>()): Set<string> {
  const def = defOf(schema);
  switch (def.type) {
    case "string":
      out.add(prefix.join("."));
      break;
    case "object":
      for (const [key, field] of Object.entries(def.shape!)) textFieldsOf(field, [...prefix, key], out);
      break;
    case "optional":
    case "nullable":
    case "default":
    case "readonly":
    case "nonoptional":
      textFieldsOf(def.innerType!, prefix, out);
      break;
    case "pipe":
      textFieldsOf(def.in!, prefix, out);
      break;
    case "array":
      textFieldsOf(def.element!, [...prefix, "#"], out);
      break;
    case "union":
      for (const option of def.options!) textFieldsOf(option, prefix, out);
      break;
    case "record":
    case "unknown":
    case "any":
      out.add([...prefix, "*"].join("."));
      break;
    default:
      // enums, literals, numbers and booleans hold no free text
      break;
  }
  return out;
}

/** Every string in a body with its path, and the field (schema path) it fills. */
function textValuesOf(schema: z.ZodMiniType, value: unknown, path: Path = [], field: string[] = []) {
  const out: { path: Path; field: string }[] = [];
  const fields = textFieldsOf(schema);
  const walk = (v: unknown, p: Path, f: string[]) => {
    const opaque = fields.has([...f, "*"].join("."));
    if (typeof v === "string") {
      // enums and literals are strings too, but hold no free text
      const field = (opaque ? [...f, "*"] : f).join(".");
      if (fields.has(field)) out.push({ path: p, field });
    } else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, [...p, i], opaque ? f : [...f, "#"]);
    } else if (v !== null && typeof v === "object")
      for (const [k, item] of Object.entries(v)) walk(item, [...p, k], opaque ? f : [...f, k]);
  };
  walk(value, path, field);
  return out;
}

const getAt = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>(
    (v, key) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined),
    value,
  );
function setAt(body: Body, path: Path, value: string): Body {
  const copy = structuredClone(body);
  let target: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  target[path[path.length - 1]!] = value;
  return copy;
}

// ---------------------------------------------------------------------------------------------------
// Every route that takes text: its schema, a full example (every optional text field filled), how it is
// sent, and where what it stored is read back.

interface Ctx {
  url: string;
  /** The account the properties write with. */
  keys: Keys;
  /** A fresh number, for values that must be unique (referenceIds, keys). */
  n: () => number;
}
interface Route {
  name: string;
  schema: z.ZodMiniType;
  /** A valid input filling every text field; fresh values (referenceId, key) on each call. */
  example: (ctx: Ctx) => Body;
  /** Sends the input; the query routes put it in the query string. */
  send: (ctx: Ctx, input: Body) => Promise<Answer>;
  /** Whether the fields travel in a URL query: there a lone surrogate cannot even be written. */
  query?: true;
  /** Reads back what a 2xx answer stored, shaped like the input; null when the call keeps no text. */
  readBack: ((ctx: Ctx, input: Body, answer: Answer) => Promise<ReadBack>) | null;
  /** Fields that name something to look up (an account, a 3DS transaction), not text to keep: an unknown one is a 404. */
  lookups?: string[];
  /** Fields whose format the engine checks beyond the schema (a PIX key per its type): no free text. */
  formatted?: string[];
}
type Answer = { status: number; body: Record<string, unknown> };
type Pick = (body: Record<string, unknown>) => unknown;
/** What was read back, and how to read it again after a restart (null: the process alone keeps it). */
type ReadBack = { read: unknown; again: { path: string; auth: string; pick: Pick } | null };

async function call(ctx: Ctx, method: string, path: string, auth: string, body?: unknown): Promise<Answer> {
  const res = await fetch(ctx.url + path, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
const admin = `Bearer ${ADMIN}`;
const api = (ctx: Ctx) => basic(ctx.keys);
async function readVia(ctx: Ctx, path: string, auth: string, pick: Pick): Promise<ReadBack> {
  const answer = await call(ctx, "GET", path, auth);
  expect(answer.status, path).toBe(200);
  return { read: pick(answer.body), again: { path, auth, pick } };
}
const query = (input: Body) => new URLSearchParams(input as Record<string, string>).toString();

const payinRoute = (name: string, example: (ctx: Ctx) => Body): Route => ({
  name: `POST /payin (${name})`,
  schema: PayinCreateParams,
  example,
  send: (ctx, input) => call(ctx, "POST", "/payin", api(ctx), input),
  readBack: (ctx, _input, answer) => readVia(ctx, `/payin/${answer.body.id}`, api(ctx), (body) => body),
});
const optionalPayinFields = (ctx: Ctx) => ({
  referenceId: `text-${ctx.n()}`,
  webhookUrl: `https://merchant.example/hooks/${ctx.n()}`,
  bankId: "bank-1",
  antifraud: { sessionId: "af-session-1" },
  subSellerId: "seller-1",
  split: [{ recipient: "acc_1", note: "a note" }],
  items: [{ title: "Livro", quantity: 1, unitPrice: 10_000, description: "Capa dura" }],
  amount: 10_000,
});
const fullCustomer = () => {
  const { customer } = samplePayin("PIX");
  return { ...customer, address: { ...customer.address!, complement: "apto 1", neighborhood: "Centro" } };
};

const ROUTES: Route[] = [
  payinRoute("PIX", (ctx) => ({
    ...samplePayin("PIX"),
    ...optionalPayinFields(ctx),
    customer: fullCustomer(),
  })),
  payinRoute("BOLETO", (ctx) => ({ ...samplePayin("BOLETO"), ...optionalPayinFields(ctx) })),
  payinRoute("OPEN_FINANCE", (ctx) => ({ ...samplePayin("OPEN_FINANCE"), ...optionalPayinFields(ctx) })),
  payinRoute("CREDIT_CARD, card data", (ctx) => {
    const body = samplePayin("CREDIT_CARD");
    return { ...body, ...optionalPayinFields(ctx), card: { ...body.card, threeDSecure: { eci: "05" } } };
  }),
  payinRoute("CREDIT_CARD, card token", (ctx) => ({
    ...samplePayin("CREDIT_CARD"),
    ...optionalPayinFields(ctx),
    card: { token: "tok_visa_1", installments: 1, threeDSecure: { eci: "05" } },
  })),
  {
    name: "POST /payout",
    schema: PayoutCreateParams,
    example: (ctx) => ({
      amount: 1_000,
      pixKey: "maria@example.com",
      pixKeyType: "EMAIL",
      referenceId: `text-payout-${ctx.n()}`,
      beneficiaryName: "Maria Souza",
      beneficiaryDocument: "52998224725",
      webhookUrl: `https://merchant.example/hooks/${ctx.n()}`,
    }),
    send: (ctx, input) => call(ctx, "POST", "/payout", api(ctx), input),
    readBack: (ctx, input) =>
      readVia(ctx, `/payout?${query({ referenceId: input.referenceId })}`, api(ctx), (body) => {
        const [payout, ...more] = body.data as unknown[];
        expect(more).toEqual([]);
        return payout;
      }),
  },
  {
    name: "GET /payout (query)",
    schema: PayoutListQuery,
    example: () => ({ referenceId: "ref-1", startDate: "2020-01-01", endDate: "2999-12-31T00:00:00Z" }),
    send: (ctx, input) => call(ctx, "GET", `/payout?${query(input)}`, api(ctx)),
    query: true,
    readBack: null,
  },
  {
    name: "POST /_mock/accounts",
    schema: CreateAccountBody,
    example: (ctx) => ({
      publicKey: `pk_test_text${ctx.n()}xxxxxxxx`,
      secretKey: `sk_test_text${ctx.n()}xxxxxxxx`,
      webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
    send: (ctx, input) => call(ctx, "POST", "/_mock/accounts", admin, input),
    readBack: null,
  },
  {
    name: "POST /_mock/accounts/{id}/settings",
    schema: UpdateAccountBody,
    example: () => ({ webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
    send: (ctx, input) => call(ctx, "POST", `/_mock/accounts/${ctx.keys.accountId}/settings`, admin, input),
    readBack: null,
  },
  {
    name: "POST /_mock/accounts/{id}/clock",
    schema: ClockBody,
    example: () => ({ now: "2031-02-03T04:05:06Z" }),
    // Another account's clock: the one the properties write with keeps real time.
    send: async (ctx, input) => {
      const other = await call(ctx, "POST", "/_mock/accounts", admin, {});
      return call(ctx, "POST", `/_mock/accounts/${other.body.accountId}/clock`, admin, input);
    },
    readBack: null,
  },
  {
    name: "POST /_mock/faults",
    schema: FaultBody,
    // A path no request of this test takes, so the fault never fires; cleared once read back.
    example: (ctx) => ({
      method: "GET",
      path: "/never-requested/",
      status: 503,
      code: "TEXT_PROBE",
      accountId: ctx.keys.accountId,
    }),
    send: (ctx, input) => call(ctx, "POST", "/_mock/faults", admin, input),
    readBack: async (ctx, _input, answer) => {
      const { read } = await readVia(ctx, "/_mock/faults", admin, (body) =>
        (body.data as { id: string }[]).find((fault) => fault.id === answer.body.id),
      );
      await call(ctx, "DELETE", "/_mock/faults", admin);
      // Faults are armed in the process that serves the requests; a restart does not keep them.
      return { read, again: null };
    },
    lookups: ["accountId"],
  },
  {
    name: "POST /_mock/pix-keys",
    schema: PixKeyBody,
    example: (ctx) => ({
      key: `text${ctx.n()}@example.com`,
      type: "EMAIL",
      name: "Maria Souza",
      document: "52998224725",
      ispb: "12345678",
      accountId: ctx.keys.accountId,
    }),
    send: (ctx, input) => call(ctx, "POST", "/_mock/pix-keys", admin, input),
    readBack: (ctx, input) =>
      readVia(ctx, `/_mock/pix-keys?accountId=${ctx.keys.accountId}`, admin, (body) =>
        (body.data as { key: string }[]).find((entry) => entry.key === input.key),
      ),
    lookups: ["accountId"],
    formatted: ["key", "document"],
  },
  {
    name: "POST /_mock/acquirer/challenge",
    schema: ChallengeBody,
    example: () => ({ tx: "tx_unknown", session: "session", action: "approve" }),
    send: (ctx, input) => call(ctx, "POST", "/_mock/acquirer/challenge", "", input),
    readBack: null,
    // No such transaction: a well-formed id is looked up (404), never refused as text.
    lookups: ["tx", "session"],
  },
  {
    name: "POST /_mock/accounts/{id}/listen",
    schema: ListenBody,
    // A listener that stops at once: its ack names no attempt handed out (ignored), so nothing is kept.
    example: (ctx) => ({
      listener: `listener-text-${ctx.n()}`,
      acks: [{ attemptId: "la_1_msg_text", statusCode: 200, error: "connection refused" }],
      events: ["payin.approved"],
      detach: true,
    }),
    send: (ctx, input) => call(ctx, "POST", `/_mock/accounts/${ctx.keys.accountId}/listen`, admin, input),
    readBack: null,
    formatted: ["listener", "events.#"],
  },
  {
    name: "GET /_mock/payins (query)",
    schema: ListQuery,
    // A cursor is checked as one (the page after the oldest possible payin: none), never kept.
    example: (ctx) => ({ accountId: ctx.keys.accountId, cursor: encodeCursor("payins", "pi_0") }),
    send: (ctx, input) => call(ctx, "GET", `/_mock/payins?${query(input)}`, admin),
    query: true,
    readBack: null,
    lookups: ["accountId"],
    formatted: ["cursor"],
  },
];

// ---------------------------------------------------------------------------------------------------
// Strings to send.

// Well-formed text that JSON, SQL and UTF-8 must all carry unchanged.
const SPECIAL = [
  "😀",
  "👩‍👩‍👧",
  "𝄞",
  "e\u0301",
  "ção",
  "中文",
  '"',
  "\\",
  "'",
  "<&>",
  "\u2028",
  "\ufeff",
  "\ufffd",
  "%00",
  "\\u0000",
];
const wellFormed = fc
  .array(
    fc.oneof(
      fc.constantFrom(...SPECIAL),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }),
      fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((parts) => parts.join(""))
  // No whitespace or control characters, which some formats (a fault path, referenceId) refuse as such.
  .filter((s) => isStorableText(s) && !/[\s\p{Cc}]/u.test(s));

const BAD = ["\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d"];
/** A field's valid value with a lone surrogate or a NUL put somewhere in it. */
const spoiled = (base: string, onlyNul: boolean) =>
  fc
    .record({ bad: onlyNul ? fc.constant("\u0000") : fc.constantFrom(...BAD), at: fc.nat(base.length) })
    .map(({ bad, at }) => base.slice(0, at) + bad + base.slice(at));

/** The fields to test: each text field once, in the first example that fills it. */
function fieldsToTest(ctx: Ctx) {
  const seen = new Set<string>();
  const out: { route: Route; path: Path; field: string }[] = [];
  for (const route of ROUTES) {
    for (const { path, field } of textValuesOf(route.schema, route.example(ctx))) {
      const key = `${route.schema === PayinCreateParams ? "POST /payin" : route.name} ${field}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ route, path, field });
    }
  }
  return out;
}

const dotted = (path: Path) => path.join(".");
const PROBE = 'Zé 😀 "q" \\ e\u0301 中';

// ---------------------------------------------------------------------------------------------------

describe("the table covers every text field of every request schema", () => {
  const ctx: Ctx = { url: "", keys: { accountId: "acct_x", publicKey: "", secretKey: "" }, n: () => 1 };

  it("every request schema of the contract and of the control API with text is a route of the table", () => {
    const inTable = new Set(ROUTES.map((route) => route.schema));
    const payinOptions = new Set(defOf(PayinCreateParams).options);
    const schemas = [
      ...Object.entries(contract).filter(([name]) => /(Params|Query)$/.test(name)),
      ...Object.entries(controlParams).filter(([name]) => /(Body|Query)$/.test(name)),
    ] as [string, z.ZodMiniType][];
    expect(schemas.length).toBeGreaterThan(10);
    const missing = schemas
      .filter(([, schema]) => textFieldsOf(schema).size > 0)
      .filter(([, schema]) => !inTable.has(schema) && !payinOptions.has(schema))
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it.each(
    [...new Set(ROUTES.map((route) => route.schema))].map((schema) => [
      ROUTES.find((route) => route.schema === schema)!.name,
      schema,
    ]),
  )("the examples of %s fill every text field and are valid", (_name, schema) => {
    const routes = ROUTES.filter((route) => route.schema === schema);
    const filled = new Set<string>();
    for (const route of routes) {
      const example = route.example(ctx);
      expect(validate(schema, example)).toMatchObject({ success: true });
      for (const { field } of textValuesOf(schema, example)) filled.add(field);
    }
    expect([...filled].sort()).toEqual([...textFieldsOf(schema)].sort());
  });
});

let databases = 0;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const MODES: Record<string, () => Promise<MockServerOptions["store"]>> = {
  memory: async () => undefined,
  pglite: async () => {
    const dir = mkdtempSync(join(tmpdir(), "paykit-text-"));
    dirs.push(dir);
    return { dataDir: dir };
  },
  postgres: async () => {
    const url = await sharedPostgresUrl();
    const name = `text_${process.pid}_${++databases}_${Date.now().toString(36)}`;
    const adminDb = await openPostgres(url, { max: 1 });
    await adminDb.query(`CREATE DATABASE ${name}`);
    await adminDb.close();
    return { url: url.replace(/\/[^/]*$/, `/${name}`) };
  },
};

describe.each(Object.keys(MODES))("text fields on a mock in %s", (mode) => {
  let options: MockServerOptions;
  let mock: MockServer | undefined;
  let ctx: Ctx;
  let other: Keys;
  let counter = 0;
  /** What was read back after each accepted write, to read again after a restart. */
  const kept: { path: string; auth: string; pick: Pick; read: unknown }[] = [];

  beforeAll(async () => {
    options = {
      store: await MODES[mode]!(),
      adminToken: ADMIN,
      autoAdvance: false,
      sharedSandbox: false,
    };
    mock = await createMockServer(options);
    ctx = { url: mock.url, keys: undefined as never, n: () => ++counter };
    ctx.keys = (await call(ctx, "POST", "/_mock/accounts", admin, { balance: 1_000_000_000 })).body as Keys;
    other = (await call(ctx, "POST", "/_mock/accounts", admin, {})).body as Keys;
  });
  afterAll(async () => {
    await mock?.close();
  });

  /** Another account creates a payin and reads it: the sandbox is not blocked. */
  async function otherAccountWorks() {
    const auth = basic(other);
    const created = await call(ctx, "POST", "/payin", auth, {
      ...samplePayin("PIX"),
      referenceId: `other-${ctx.n()}`,
    });
    expect(created.status).toBe(201);
    const read = await call(ctx, "GET", `/payin/${created.body.id}`, auth);
    expect(read.status).toBe(200);
    kept.push({ path: `/payin/${created.body.id}`, auth, pick: (b) => b, read: read.body });
  }

  it("refuses a lone surrogate or a NUL in any text field with 400 INVALID_DATA naming it", async () => {
    for (const { route, path } of fieldsToTest(ctx)) {
      const base = String(getAt(route.example(ctx), path));
      await fc.assert(
        fc.asyncProperty(spoiled(base, route.query === true), async (value) => {
          const answer = await route.send(ctx, setAt(route.example(ctx), path, value));
          const where = `${route.name} ${dotted(path)} = ${JSON.stringify(value)}`;
          expect(answer.status, where).toBe(400);
          expect(answer.body.code, where).toBe("INVALID_DATA");
          expect(answer.body.details, where).toContainEqual({
            path: dotted(path),
            message: STORABLE_TEXT_MESSAGE,
          });
        }),
        { numRuns: mode === "memory" ? RUNS : DURABLE_RUNS, seed: SEED },
      );
      await otherAccountWorks();
    }
  });

  it("accepts well-formed text in every free-text field and reads it back exactly", async () => {
    const compared = new Set<string>();
    for (const { route, path, field } of fieldsToTest(ctx)) {
      // A free-text field takes any well-formed text after its example value; a formatted one (CPF,
      // e-mail, URL host) does not, and is covered by (b) alone.
      const probe = route.example(ctx);
      if (route.formatted?.includes(field)) continue;
      if (!validate(route.schema, setAt(probe, path, `${getAt(probe, path)}${PROBE}`)).success) continue;
      await fc.assert(
        fc.asyncProperty(wellFormed, async (suffix) => {
          const example = route.example(ctx);
          const value = `${getAt(example, path)}${suffix}`;
          const input = setAt(example, path, value);
          fc.pre(validate(route.schema, input).success);
          const answer = await route.send(ctx, input);
          const where = `${route.name} ${dotted(path)} = ${JSON.stringify(value)}`;
          if (route.lookups?.includes(field)) {
            // Looked up, not kept: unknown, and never refused as text.
            expect(answer.status, where).toBe(404);
            return;
          }
          expect(answer.status, `${where}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
          if (route.readBack === null) return;
          const { read, again } = await route.readBack(ctx, input, answer);
          const back = getAt(read, path);
          if (back !== undefined) {
            expect(back, where).toBe(value);
            compared.add(`${route.schema === PayinCreateParams ? "POST /payin" : route.name} ${field}`);
          }
          if (again !== null) kept.push({ ...again, read });
        }),
        { numRuns: mode === "memory" ? RUNS : DURABLE_RUNS, seed: SEED },
      );
    }
    // What the mock keeps of a request's text is compared, not just accepted.
    expect([...compared]).toEqual(
      expect.arrayContaining([
        "POST /payin referenceId",
        "POST /payin customer.name",
        "POST /payin customer.address.street",
        "POST /payin items.#.title",
        "POST /payin items.#.description",
        "POST /payout referenceId",
        "POST /payout beneficiaryName",
        "POST /_mock/faults code",
        "POST /_mock/pix-keys name",
      ]),
    );
  });

  it.runIf(mode !== "memory")(
    "reads every accepted text back the same after a stop and a start",
    async () => {
      expect(kept.length).toBeGreaterThan(50);
      await mock!.close();
      mock = undefined;
      mock = await createMockServer(options);
      ctx.url = mock.url;
      for (const { path, auth, pick, read } of kept) {
        const answer = await call(ctx, "GET", path, auth);
        expect(answer.status, path).toBe(200);
        expect(pick(answer.body), path).toEqual(read);
      }
    },
  );
});
