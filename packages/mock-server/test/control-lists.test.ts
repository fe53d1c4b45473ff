import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CONTROL_LIST_LIMIT,
  type ControlListName,
  createEngine,
  createHttpControl,
  createMockServer,
  type MockEngine,
} from "../src/index.js";
import { basic, payoutBody, pixPayin } from "./fixtures.js";

// Every control list pages one rule (docs/decisions/shared-sandbox-control-lists-page.md): `limit` (default 100, at
// most 1000), an opaque `cursor`, `{ data, nextCursor }`. A list is walked here past the maximum page
// size while records are added between pages: what was there at the start comes exactly once, in the
// list's order, and what was added never moves an entry between the pages still to come.

const OVER_MAX = CONTROL_LIST_LIMIT.max + 5;
const T0 = "2030-03-12T17:00:00.000Z"; // a daytime moment: payout limits do not depend on the hour

// A received webhook, answered at once: deliveries settle without a network.
const accept = async () => new Response(null, { status: 204 });

async function send(engine: MockEngine, method: string, path: string, body?: unknown) {
  const res = await engine.handle(
    new Request(`http://mock.test${path}`, {
      method,
      headers: { authorization: basic(engine.account), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

/** How each list grows by one entry, and the key its order is read by. */
interface Row {
  list: ControlListName;
  path: string;
  order: "newest" | "oldest";
  add: (engine: MockEngine, i: number) => Promise<unknown>;
  keyOf: (entry: Record<string, unknown>) => string;
}

const newPayin = async (engine: MockEngine) => {
  const created = await send(engine, "POST", "/payin", pixPayin());
  expect(created.status).toBe(201);
  return created.body.id as string;
};

const ROWS: Row[] = [
  { list: "payins", path: "/_mock/payins", order: "newest", add: newPayin, keyOf: (p) => p.id as string },
  {
    list: "payouts",
    path: "/_mock/payouts",
    order: "newest",
    add: async (engine) => {
      const created = await send(engine, "POST", "/payout", payoutBody({ amount: 500 }));
      expect(created.status, created.text).toBe(201);
    },
    keyOf: (p) => p.id as string,
  },
  {
    list: "webhooks",
    path: "/_mock/webhooks",
    order: "oldest",
    add: async (engine) => {
      const created = await send(
        engine,
        "POST",
        "/payin",
        pixPayin({ webhookUrl: "https://shop.test/hook" }),
      );
      await engine.control.payPayin(created.body.id);
    },
    keyOf: (d) => d.id as string,
  },
  {
    list: "accounts",
    path: "/_mock/accounts",
    order: "oldest",
    add: (engine) => engine.control.createAccount(),
    keyOf: (a) => a.accountId as string,
  },
  {
    list: "pixKeys",
    path: "/_mock/pix-keys",
    order: "oldest",
    add: (engine, i) =>
      engine.control.registerPixKey({ key: `k${String(i).padStart(5, "0")}@lists.test`, type: "EMAIL" }),
    keyOf: (k) => `${k.type}:${k.key}`,
  },
];

describe.each(ROWS)("the control list $path, paged past the maximum page size", (row) => {
  // One big engine per list, shared by its tests (built once: CPU is scarce); tests only add to it.
  let engine: MockEngine;
  beforeAll(async () => {
    engine = createEngine({ autoAdvance: false, fetch: accept, defaultAccount: { balance: 1_000_000_000 } });
    await engine.control.setClock({ now: T0 });
    for (let i = 0; i < OVER_MAX; i++) await row.add(engine, i);
  }, 120_000);
  afterAll(() => engine?.close());

  it("answers one small page of the big list by default", async () => {
    const first = await send(engine, "GET", row.path);
    expect(first.body.data).toHaveLength(CONTROL_LIST_LIMIT.default);
    expect(typeof first.body.nextCursor).toBe("string");
    let whole = first.text.length;
    let cursor: string | null = first.body.nextCursor;
    while (cursor !== null) {
      const page = await send(engine, "GET", `${row.path}?cursor=${cursor}`);
      whole += page.text.length;
      cursor = page.body.nextCursor;
    }
    // The first answer is its share of the list, not the list.
    expect(first.text.length).toBeLessThan(whole / 5);
  });

  it("the in-process control walks it with listPage and listAll", async () => {
    const all: string[] = [];
    for await (const entry of engine.control.listAll(row.list, { limit: CONTROL_LIST_LIMIT.max }))
      all.push(row.keyOf(entry as never));
    const route = (await send(engine, "GET", `${row.path}?limit=1000`)).body;
    expect(all.slice(0, 1000)).toEqual(route.data.map(row.keyOf));
    expect(all.length).toBeGreaterThan(CONTROL_LIST_LIMIT.max);
    const first = await engine.control.listPage(row.list, { limit: 2 });
    expect(first.data.map((e) => row.keyOf(e as never))).toEqual(all.slice(0, 2));
    const second = await engine.control.listPage(row.list, { limit: 2, cursor: first.nextCursor! });
    expect(second.data.map((e) => row.keyOf(e as never))).toEqual(all.slice(2, 4));
  });

  it("gives every entry once, in order, while entries are added between pages", async () => {
    const before = (await send(engine, "GET", `${row.path}?limit=${CONTROL_LIST_LIMIT.max}`)).body;
    const rest = (await send(engine, "GET", `${row.path}?limit=1000&cursor=${before.nextCursor}`)).body;
    const expected: string[] = [...before.data, ...rest.data].map(row.keyOf);
    expect(expected.length).toBeGreaterThan(CONTROL_LIST_LIMIT.max);
    expect(rest.nextCursor).toBeNull();
    const sorted = [...expected].sort();
    expect(expected).toEqual(row.order === "newest" ? sorted.reverse() : sorted);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? "?limit=300" : `?limit=300&cursor=${cursor}`;
      const page = await send(engine, "GET", `${row.path}${query}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(300);
      seen.push(...page.body.data.map(row.keyOf));
      cursor = page.body.nextCursor;
      pages += 1;
      // New entries between pages: a newest-first list never shows them on a later page, an
      // oldest-first list shows them after everything that was there (PIX keys: in key order).
      await row.add(engine, 10_000 + pages);
      await row.add(engine, 20_000 + pages);
    } while (cursor !== null);

    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((key) => expected.includes(key))).toEqual(expected);
    if (row.order === "newest") expect(seen).toEqual(expected);
    else if (row.list !== "pixKeys") expect(seen.slice(0, expected.length)).toEqual(expected);
  });
});

describe("bad paging input", () => {
  let engine: MockEngine;
  afterEach(async () => {
    await engine.close();
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["limit=-1", "limit"],
    ["limit=2.5", "limit"],
    ["cursor=", "cursor"],
    ["cursor=not%20base64!", "cursor"],
    ["cursor=bm9wZQ", "cursor"], // base64url of "nope": not a cursor of any list
    ["cursor=cGF5b3V0czpwb18x", "cursor"], // a payouts cursor handed to another list
    ["cursor=a&cursor=b", "cursor"],
    ["limit=10&page=2", "page"],
  ])("?%s is 400 INVALID_DATA naming %s on every list", async (query, path) => {
    engine = createEngine({ autoAdvance: false });
    for (const list of ["payins", "webhooks", "accounts", "pix-keys"]) {
      const res = await send(engine, "GET", `/_mock/${list}?${query}`);
      expect(res.status, `${list}?${query}`).toBe(400);
      expect(res.body.code).toBe("INVALID_DATA");
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it("refuses the same in the typed control, as MockControlError", async () => {
    engine = createEngine({ autoAdvance: false });
    await expect(engine.control.listPage("payins", { cursor: "zzz" })).rejects.toMatchObject({
      name: "MockControlError",
      status: 400,
      code: "INVALID_DATA",
      details: [{ path: "cursor" }],
    });
    await expect(engine.control.webhooks(undefined, { limit: 1001 })).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ path: "limit" })],
    });
  });
});

describe("the HTTP control client pages like the in-process one", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it("listAll over HTTP reads every payin of a list longer than a page, newest first", async () => {
    const mock = await createMockServer({ autoAdvance: false });
    close = () => mock.close();
    const control = createHttpControl({ url: mock.url });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await fetch(`${mock.url}/payin`, {
        method: "POST",
        headers: { authorization: basic(mock.account), "content-type": "application/json" },
        body: JSON.stringify(pixPayin()),
      });
      ids.push(((await res.json()) as { id: string }).id);
    }
    const seen: string[] = [];
    for await (const payin of control.listAll("payins", { accountId: mock.account.accountId, limit: 10 }))
      seen.push(payin.id);
    expect(seen).toEqual([...ids].reverse());
    const page = await control.listPage("payins", { limit: 10 });
    expect(page.data).toHaveLength(10);
    const next = await control.listPage("payins", { limit: 10, cursor: page.nextCursor! });
    expect(next.data.map((p) => p.id)).toEqual(seen.slice(10, 20));
    expect(
      (await control.payins(undefined, { limit: 5, cursor: page.nextCursor! })).map((p) => p.id),
    ).toEqual(seen.slice(10, 15));
    await expect(control.listPage("webhooks", { cursor: page.nextCursor! })).rejects.toMatchObject({
      status: 400,
      code: "INVALID_DATA",
    });
  });
});

// The delivery log's filters and order (issue 35: an agent finds the delivery of the payin it just paid).
describe("the delivery log, filtered and newest first", () => {
  let engine: MockEngine;
  let approved: string;
  let expired: string;
  let failing: string;
  beforeAll(async () => {
    // one receiver answers 500: its delivery stays pending, waiting for a retry
    const answer = async (url: string) => new Response(null, { status: url.includes("/down") ? 500 : 204 });
    engine = createEngine({ autoAdvance: false, fetch: answer });
    const payin = async (webhookUrl: string) =>
      (await send(engine, "POST", "/payin", pixPayin({ webhookUrl }))).body.id as string;
    approved = await payin("https://shop.test/hook");
    expired = await payin("https://shop.test/hook");
    failing = await payin("https://shop.test/down");
    await engine.control.payPayin(approved, { awaitWebhooks: true });
    await engine.control.expirePayin(expired, { awaitWebhooks: true });
    await engine.control.payPayin(failing, { awaitWebhooks: true });
  });
  afterAll(() => engine?.close());
  const ids = async (query: string) => {
    const res = await send(engine, "GET", `/_mock/webhooks?${query}`);
    expect(res.status, res.text).toBe(200);
    return (res.body.data as { resourceId: string }[]).map((d) => d.resourceId);
  };

  it.each([
    ["", () => [approved, expired, failing]],
    ["order=newest", () => [failing, expired, approved]],
    ["order=oldest", () => [approved, expired, failing]],
    ["resourceId=%A", () => [approved]],
    ["status=EXPIRED", () => [expired]],
    ["status=APPROVED&order=newest", () => [failing, approved]],
    ["state=pending", () => [failing]],
    ["state=delivered&status=APPROVED", () => [approved]],
    ["resourceId=%A&state=pending", () => []],
    ["resourceId=pi_01JNOSUCHPAYIN0000000000000", () => []],
  ])("GET /_mock/webhooks?%s", async (query, expected) => {
    expect(await ids(query.replace("%A", approved))).toEqual(expected());
  });

  it("pages newest first with the filters kept by the cursor's caller", async () => {
    const first = await send(engine, "GET", "/_mock/webhooks?order=newest&limit=2");
    expect(first.body.data.map((d: { resourceId: string }) => d.resourceId)).toEqual([failing, expired]);
    const next = await send(
      engine,
      "GET",
      `/_mock/webhooks?order=newest&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(next.body.data.map((d: { resourceId: string }) => d.resourceId)).toEqual([approved]);
    expect(next.body.nextCursor).toBeNull();
  });

  it("the typed control takes the same filters, in webhooks() and listPage/listAll", async () => {
    const accountId = engine.account.accountId;
    expect((await engine.control.webhooks(accountId, { resourceId: expired })).map((d) => d.status)).toEqual([
      "EXPIRED",
    ]);
    const page = await engine.control.listPage("webhooks", { accountId, order: "newest", limit: 1 });
    expect(page.data.map((d) => d.resourceId)).toEqual([failing]);
    const all: string[] = [];
    for await (const d of engine.control.listAll("webhooks", { state: "delivered", limit: 1 }))
      all.push(d.resourceId);
    expect(all).toEqual([approved, expired]);
  });

  it.each([
    ["status=approved", "status"],
    ["status=PAID", "status"],
    ["state=lost", "state"],
    ["order=latest", "order"],
    ["resourceId=", "resourceId"],
  ])("?%s is 400 INVALID_DATA naming %s", async (query, path) => {
    const res = await send(engine, "GET", `/_mock/webhooks?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("INVALID_DATA");
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it("another list refuses a delivery filter, naming it", async () => {
    await expect(engine.control.listPage("payins", { resourceId: approved } as never)).rejects.toMatchObject({
      status: 400,
      code: "INVALID_DATA",
      details: [expect.objectContaining({ path: "resourceId" })],
    });
    expect((await send(engine, "GET", "/_mock/payins?order=newest")).status).toBe(400);
  });
});
