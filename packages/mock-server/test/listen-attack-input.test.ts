// Hostile bodies on `POST /_mock/accounts/{id}/listen`, with the account's own keys on a shared sandbox
// while a real listener holds the account: each is refused with 400 INVALID_DATA naming the field (a
// body past 1 MiB with 413), never a 500; none takes the account over from its listener, and the
// account's deliveries go on reaching the laptop. A table of the cases a reader expects, then a
// property over generated bodies (fast-check, fixed seed; PAYKIT_LISTEN_SEED=<n> replays another).
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../src/index.js";
import { basic } from "./fixtures.js";
import {
  cleanups,
  inProcessListener,
  laptopReceiver,
  logOf,
  merchant,
  until,
} from "./listen-attack-harness.js";

const SEED = Number(process.env.PAYKIT_LISTEN_SEED ?? 25_2025);
const RUNS = 300;
/** The fields of a poll, and a valid value of each. */
const VALID = { listener: "lst_hostile_poll", waitMs: 0 };
const KNOWN = ["listener", "acks", "events", "waitMs", "detach"];

const started = cleanups();
afterAll(() => started.run());

let mock: MockServer;
let keys: { accountId: string; publicKey: string; secretKey: string };
let receiver: Awaited<ReturnType<typeof laptopReceiver>>;
let listener: ReturnType<typeof inProcessListener>;

beforeAll(async () => {
  mock = await createMockServer({
    autoAdvance: false,
    sharedSandbox: true,
    adminToken: "listen-input-admin",
  });
  started.add(() => mock.close());
  keys = await mock.control.createAccount({});
  receiver = await laptopReceiver();
  started.add(receiver.close);
  listener = inProcessListener({ url: mock.url, keys, forwardTo: receiver.url });
  started.add(listener.stop);
  await listener.ready;
});

/** Sends a poll body as given (a string is sent as it is: JSON with odd keys, or not JSON at all). */
async function send(body: unknown): Promise<{ status: number; code?: string; paths: string[] }> {
  const res = await fetch(`${mock.url}/_mock/accounts/${keys.accountId}/listen`, {
    method: "POST",
    headers: { authorization: basic(keys), "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const answer = (await res.json()) as { code?: string; details?: { path: string }[] };
  return { status: res.status, code: answer.code, paths: (answer.details ?? []).map((d) => d.path) };
}

/** The valid poll with one more key, written as JSON text (so `__proto__` is a key like any other). */
const withKey = (key: string, value: unknown) =>
  `${JSON.stringify(VALID).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(value)}}`;

const ack = (fields: Record<string, unknown> = {}) => ({
  attemptId: "la_1_msg_x",
  statusCode: 200,
  error: null,
  ...fields,
});

describe("a hostile poll is refused, naming the field", () => {
  it.each([
    ["a listener id too short", { ...VALID, listener: "short" }, "listener"],
    ["a listener id with a slash", { ...VALID, listener: "lst_../../x" }, "listener"],
    [
      "a lone surrogate in an ack's attemptId",
      { ...VALID, acks: [ack({ attemptId: "la_\ud800" })] },
      "acks.0.attemptId",
    ],
    [
      "a NUL in an ack's error",
      { ...VALID, acks: [ack({ statusCode: null, error: "a\u0000b" })] },
      "acks.0.error",
    ],
    ["a status code of 600", { ...VALID, acks: [ack({ statusCode: 600 })] }, "acks.0.statusCode"],
    ["a status code of 99", { ...VALID, acks: [ack(), ack({ statusCode: 99 })] }, "acks.1.statusCode"],
    ["a status code of 200.5", { ...VALID, acks: [ack({ statusCode: 200.5 })] }, "acks.0.statusCode"],
    [
      "an ack without its status code",
      { ...VALID, acks: [{ attemptId: "la_1", error: null }] },
      "acks.0.statusCode",
    ],
    ["an ack with an unknown key", { ...VALID, acks: [ack({ settled: true })] }, "acks.0.settled"],
    ["1001 acks", { ...VALID, acks: Array.from({ length: 1001 }, () => ack()) }, "acks"],
    ["an event that is none", { ...VALID, events: ["charge.succeeded"] }, "events.0"],
    ["101 events", { ...VALID, events: Array.from({ length: 101 }, () => "payin.*") }, "events"],
    ["a wait of 25001 ms", { ...VALID, waitMs: 25_001 }, "waitMs"],
    ["a wait of -1 ms", { ...VALID, waitMs: -1 }, "waitMs"],
    ["detach as a string", { ...VALID, detach: "yes" }, "detach"],
    ["an unknown key", withKey("accountId", "acct_other"), "accountId"],
    ["a __proto__ key", withKey("__proto__", { detach: true }), "__proto__"],
    ["a constructor key", withKey("constructor", 1), "constructor"],
  ])("%s", async (_name, body, path) => {
    const answer = await send(body);
    expect(answer).toMatchObject({ status: 400, code: "INVALID_DATA" });
    expect(answer.paths).toContain(path);
  });

  it.each([
    ["not JSON", "{listener:"],
    ["null", "null"],
    ["an array", "[]"],
    ["a number", "42"],
  ])("a body that is %s", async (_name, body) => {
    expect(await send(body)).toMatchObject({ status: 400, code: "INVALID_DATA" });
  });

  it("a body past 1 MiB is 413, not 500", async () => {
    const acks = Array.from({ length: 1000 }, () =>
      ack({ attemptId: "x".repeat(200), error: "e".repeat(900) }),
    );
    expect(await send({ ...VALID, acks })).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
  });
});

// Generated bodies: the valid poll with one or more fields made invalid, each generator's values
// being invalid for its field by construction.
const lone = fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff");
const withLone = fc
  .tuple(fc.string({ maxLength: 20 }), lone, fc.string({ maxLength: 20 }))
  .map(([a, b, c]) => a + b + c);
const notString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.nat(), { maxLength: 2 }),
);
// NaN and the infinities are left out: JSON writes them as null, which is a valid status code
const notInt = fc.oneof(
  fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 5 }),
  fc.boolean(),
);
const badListener = fc.oneof(
  fc.string({ maxLength: 7 }),
  fc.string({ minLength: 101, maxLength: 300 }),
  fc.string({ minLength: 8, maxLength: 40 }).filter((s) => !/^[A-Za-z0-9_-]{8,100}$/.test(s)),
  withLone,
  notString,
);
const badAckField = fc.oneof(
  fc.record({
    attemptId: fc.oneof(fc.constant(""), withLone, fc.string({ minLength: 201, maxLength: 400 }), notString),
  }),
  fc.record({
    statusCode: fc.oneof(fc.integer({ max: 99 }), fc.integer({ min: 600 }), notInt),
  }),
  fc.record({ error: fc.oneof(withLone, fc.string({ minLength: 501, maxLength: 800 }), fc.integer()) }),
  fc.record({ settled: fc.jsonValue() }),
);
const badAcks = fc.oneof(
  fc
    .tuple(fc.array(fc.constant(ack()), { maxLength: 3 }), badAckField)
    .map(([good, bad]) => [...good, ack(bad)]),
  fc.integer({ min: 1001, max: 1500 }).map((n) => Array.from({ length: n }, () => ack())),
  fc.oneof(fc.string(), fc.integer(), fc.record({ attemptId: fc.string() })),
);
const badEvents = fc.oneof(
  fc.array(
    fc.string({ maxLength: 30 }).filter((s) => !/^(payin|payout)\.([a-z_]{1,40}|\*)$/.test(s)),
    { minLength: 1, maxLength: 3 },
  ),
  fc.integer({ min: 101, max: 200 }).map((n) => Array.from({ length: n }, () => "payout.*")),
  fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
);
const badWait = fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 25_001 }), notInt, fc.constant(null));
const badDetach = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.boolean()));
const unknownKey = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !KNOWN.includes(k)),
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "accountId"),
);

const hostile = fc
  .record(
    {
      listener: badListener,
      acks: badAcks,
      events: badEvents,
      waitMs: badWait,
      detach: badDetach,
      unknown: fc.tuple(unknownKey, fc.jsonValue()),
    },
    { requiredKeys: [] },
  )
  .filter((bad) => Object.keys(bad).length > 0);

it("refuses every generated hostile poll with 400 naming a field it broke, and the account goes on", async () => {
  await fc.assert(
    fc.asyncProperty(hostile, async (bad) => {
      const { unknown, ...fields } = bad;
      let body = JSON.stringify({ ...VALID, ...fields });
      if (unknown !== undefined)
        body = `${body.slice(0, -1)},${JSON.stringify(unknown[0])}:${JSON.stringify(unknown[1])}}`;
      const answer = await send(body);
      expect(answer).toMatchObject({ status: 400, code: "INVALID_DATA" });
      const broken = [...Object.keys(fields), ...(unknown ? [unknown[0]] : [])];
      expect(
        answer.paths.some((path) => broken.some((field) => path === field || path.startsWith(`${field}.`))),
        `${answer.paths.join(", ")} names none of ${broken.join(", ")}`,
      ).toBe(true);
    }),
    { numRuns: RUNS, seed: SEED },
  );

  // the listener that held the account still does, and a delivery reaches the laptop at once
  const payin = await merchant(mock.url, keys).payin();
  await mock.control.payPayin(payin, { awaitWebhooks: true });
  const [delivery] = (await logOf(mock.control, keys.accountId)).filter((d) => d.resourceId === payin);
  expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([200]);
  await until(() => receiver.arrivals.some((a) => a.id === payin));
  expect(listener.connection).toEqual([]);
  expect(await Promise.race([listener.done.then(() => "stopped"), Promise.resolve("running")])).toBe(
    "running",
  );
}, 180_000);
