// The mock's hot paths, each on its own: ids, the stored order, a record's updatedAt, the memory store's
// payin index and due queue, the Basic auth check (secret keys kept as hashes), and BR Codes.
import { buildBrCode, crc16Ccitt, PayinCreateParams, parseBrCode, validate } from "@paykit/contract";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Account, authenticate, credentialsAccount, hashSecretKey } from "../src/domain/accounts.js";
import { constantTimeEqual, randomString, UlidFactory } from "../src/domain/ids.js";
import { type PayinRecord, recordStatus, storedJson, updatedAtOf } from "../src/domain/records.js";
import type { DueItem, DueKind } from "../src/domain/repository.js";
import { DueQueue } from "../src/stores/memory/due-queue.js";
import { PayinIndex } from "../src/stores/memory/payin-index.js";

const CROCKFORD_ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const T0 = Date.UTC(2026, 0, 31, 12);

function payin(id: string): PayinRecord {
  const order = { customer: { name: "Maria", document: "1", email: "m@x.io", phone: "55" }, items: [] };
  return {
    id,
    accountId: "acct_1",
    externalId: "acq_x",
    referenceId: "order-1",
    paymentMethod: "PIX",
    amount: 10_000,
    orderJson: storedJson(order as never),
    webhookUrl: null,
    createdAt: T0,
    status: "PENDING",
    netAmount: null,
    reservedAmount: null,
    reserveReleaseAt: null,
    threeDS: null,
    card: null,
    pixCharge: null,
    boletoBarcode: null,
    boletoUrl: null,
    openFinanceRedirectUrl: null,
    pageToken: null,
    installments: null,
    transitions: null,
    trace: null,
  };
}

describe("ULIDs and random strings", () => {
  it("gives the prefix, then 10 time characters and 16 random ones, strictly increasing within one millisecond", () => {
    const ids = new UlidFactory();
    const issued = Array.from({ length: 2000 }, () => ids.next(T0, "pi_"));
    for (const id of issued) {
      expect(id.startsWith("pi_")).toBe(true);
      expect(id.slice(3)).toMatch(CROCKFORD_ULID);
      expect(id.slice(3, 13)).toBe(issued[0]!.slice(3, 13));
    }
    expect([...issued].sort()).toEqual(issued);
    expect(new Set(issued).size).toBe(issued.length);
  });

  it("moves the time part with the clock and keeps ids of later milliseconds greater", () => {
    const ids = new UlidFactory();
    const earlier = ids.next(T0);
    const later = ids.next(T0 + 1);
    expect(later > earlier).toBe(true);
    expect(later.slice(0, 10)).not.toBe(earlier.slice(0, 10));
    expect(ids.next(T0 + 1) > later).toBe(true);
  });

  it.each([
    [24, undefined, "acq_"],
    [32, undefined, ""],
    [11, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", "E"],
  ])("draws %i characters of the alphabet after the prefix %#", (length, alphabet, prefix) => {
    const allowed = alphabet ?? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const values = Array.from({ length: 200 }, () => randomString(length, alphabet, prefix));
    for (const value of values) {
      expect(value.startsWith(prefix)).toBe(true);
      expect(value).toHaveLength(prefix.length + length);
      for (const char of value.slice(prefix.length)) expect(allowed).toContain(char);
    }
    expect(new Set(values).size).toBe(values.length);
  });
});

describe("the order a payin keeps", () => {
  it("stores the validated order as JSON.stringify writes it", () => {
    const body = {
      paymentMethod: "PIX",
      amount: 10_000,
      referenceId: "order-1",
      isPhysicalProduct: false,
      payerIp: "200.100.50.25",
      items: [{ unitPrice: 10_000, quantity: 1, title: "Plano mensal" }],
      customer: {
        phone: "5511987654321",
        name: "Maria da Silva",
        document: "12345678909",
        email: "maria@example.com",
        address: {
          street: "Rua Augusta",
          number: "100",
          zipCode: "01305000",
          city: "São Paulo",
          state: "SP",
        },
      },
    };
    const result = validate(PayinCreateParams, body);
    if (!result.success) throw new Error(result.message);
    const order = { customer: result.data.customer, items: result.data.items };
    expect(storedJson(order)).toBe(JSON.stringify(order));
  });
});

describe("a record's updatedAt", () => {
  it("is its creation time until it moves, then the time of its last move", () => {
    const record = payin("pi_01KAKQ6YQ1W3M0G4GQYX8V4D2B");
    expect(updatedAtOf(record)).toBe(T0);
    // a million untouched payins keep no history: one null field each
    expect(record.transitions).toBeNull();
    recordStatus(record, "APPROVED", T0 + 5);
    expect(updatedAtOf(record)).toBe(T0 + 5);
    expect(record.status).toBe("APPROVED");
    expect(record.transitions).toEqual([
      { status: "PENDING", at: T0 },
      { status: "APPROVED", at: T0 + 5 },
    ]);
    recordStatus(record, "REFUNDED" as never, T0 + 9);
    expect(updatedAtOf(record)).toBe(T0 + 9);
  });
});

describe("the payin index", () => {
  it("finds every payin by id, many per millisecond and across milliseconds, and nothing else", () => {
    const ids = new UlidFactory();
    const index = new PayinIndex();
    const records: PayinRecord[] = [];
    for (let ms = 0; ms < 20; ms++)
      for (let i = 0; i < (ms % 4) * 7 + 1; i++)
        records.push(payin(ids.next(T0 + (ms % 7) * 1000 + ms, "pi_")));
    for (const record of records) index.add(record);
    for (const record of records) expect(index.get(record.id)).toBe(record);
    const last = records.at(-1)!.id;
    for (const missing of [
      "",
      "pi_",
      "pi_ILLEGAL000000000000000000",
      `${last.slice(0, -1)}!`,
      `x${last}`,
      last.toLowerCase(),
    ])
      expect(index.get(missing)).toBeUndefined();
    index.clear();
    expect(index.get(records[0]!.id)).toBeUndefined();
  });

  it("forgets one payin (the retention limit), alone in its millisecond or among others, and keeps the rest", () => {
    const ids = new UlidFactory();
    const index = new PayinIndex();
    const alone = payin(ids.next(T0, "pi_"));
    const shared = Array.from({ length: 5 }, () => payin(ids.next(T0 + 1, "pi_")));
    const later = payin(ids.next(T0 + 2, "pi_"));
    for (const record of [alone, ...shared, later]) index.add(record);
    index.delete(alone.id);
    index.delete(shared[2]!.id);
    index.delete("pi_01NOSUCHPAYIN000000000000");
    expect(index.get(alone.id)).toBeUndefined();
    expect(index.get(shared[2]!.id)).toBeUndefined();
    for (const kept of [...shared.slice(0, 2), ...shared.slice(3), later])
      expect(index.get(kept.id)).toBe(kept);
    // a millisecond emptied and filled again
    for (const record of shared) index.delete(record.id);
    const again = payin(ids.next(T0 + 1, "pi_"));
    index.add(again);
    expect(index.get(again.id)).toBe(again);
    expect(index.get(shared[0]!.id)).toBeUndefined();
  });
});

describe("the memory store's due queue (lanes and a heap)", () => {
  const item = (
    kind: DueKind,
    resourceId: string,
    at: number,
    clock: DueItem["clock"] = "account",
  ): DueItem => ({
    kind,
    accountId: "acct_1",
    resourceId,
    at,
    clock,
  });
  const names = (items: DueItem[]) => items.map((i) => i.resourceId);

  it("takes due work in moment order across kinds, lanes and the heap, ties of a kind in scheduling order", () => {
    const queue = new DueQueue("acct_1");
    queue.add(item("payin.expire", "expire-10", T0 + 10));
    queue.add(item("payin.expire", "expire-10b", T0 + 10));
    queue.add(item("payin.release", "release-5", T0 + 5));
    queue.add(item("payin.expire", "expire-20", T0 + 20));
    // The clock was set back: out of the lane's order, the item still comes at its moment.
    queue.add(item("payin.expire", "expire-15", T0 + 15));
    queue.add(item("payout.advance", "advance-12", T0 + 12, "real"));
    expect(queue.size).toBe(6);
    expect(queue.nextAt(0)).toBe(T0 + 5);
    expect(queue.take(T0 + 4, T0 + 4, 100)).toEqual([]);
    expect(names(queue.take(T0 + 9, T0 + 9, 100))).toEqual(["release-5"]);
    expect(names(queue.take(T0 + 30, T0 + 30, 100))).toEqual([
      "expire-10",
      "expire-10b",
      "advance-12",
      "expire-15",
      "expire-20",
    ]);
    expect(queue.size).toBe(0);
    expect(queue.nextAt(0)).toBe(Number.POSITIVE_INFINITY);
  });

  it("runs account-clock work on the account's clock and payout steps on real time", () => {
    const queue = new DueQueue("acct_1");
    queue.add(item("payin.expire", "expire", T0 + 3_600_000));
    queue.add(item("payout.advance", "advance", T0 + 1_000, "real"));
    // the account's clock is an hour ahead of real time: its expiry is due, the payout's step is not
    expect(queue.nextAt(3_600_000)).toBe(T0);
    expect(names(queue.take(T0 + 3_600_000, T0, 100))).toEqual(["expire"]);
    expect(queue.take(T0 + 7_200_000, T0 + 999, 100)).toEqual([]);
    expect(names(queue.take(T0, T0 + 1_000, 100))).toEqual(["advance"]);
  });

  it("takes at most the limit, oldest first, and the rest on the next take", () => {
    const queue = new DueQueue("acct_1");
    for (let i = 0; i < 10; i++) queue.add(item("payin.expire", `e${i}`, T0 + i));
    expect(names(queue.take(T0 + 100, T0, 4))).toEqual(["e0", "e1", "e2", "e3"]);
    expect(names(queue.take(T0 + 100, T0, 100))).toEqual(["e4", "e5", "e6", "e7", "e8", "e9"]);
  });

  it("runs a rescheduled payout step once, at its latest moment, and a cancelled one never", () => {
    const queue = new DueQueue("acct_1");
    // moved later: the first moment no longer counts
    queue.add(item("payout.advance", "po_later", T0 + 10, "real"));
    queue.add(item("payout.advance", "po_later", T0 + 20, "real"));
    // moved earlier: it runs at the earlier moment, and not again at the first
    queue.add(item("payout.advance", "po_earlier", T0 + 50, "real"));
    queue.add(item("payout.advance", "po_earlier", T0 + 30, "real"));
    // scheduled twice for the same moment
    queue.add(item("payout.advance", "po_twice", T0 + 40, "real"));
    queue.add(item("payout.advance", "po_twice", T0 + 40, "real"));
    queue.add(item("payout.advance", "po_cancelled", T0 + 5, "real"));
    queue.cancel("payout.advance", "po_cancelled");
    expect(queue.take(T0, T0 + 15, 100)).toEqual([]);
    expect(names(queue.take(T0, T0 + 25, 100))).toEqual(["po_later"]);
    expect(names(queue.take(T0, T0 + 45, 100))).toEqual(["po_earlier", "po_twice"]);
    expect(queue.take(T0, T0 + 1_000, 100)).toEqual([]);
    // a step scheduled again after it ran is a new step
    queue.add(item("payout.advance", "po_later", T0 + 1_010, "real"));
    expect(names(queue.take(T0, T0 + 1_010, 100))).toEqual(["po_later"]);
  });

  it("keeps thousands of items in order across compactions, and clear() drops them", () => {
    const queue = new DueQueue("acct_1");
    const ran: string[] = [];
    for (let i = 0; i < 5000; i++) queue.add(item("payin.expire", String(i), T0 + i));
    ran.push(...names(queue.take(T0 + 2999, T0, 10_000)));
    for (let i = 5000; i < 6000; i++) queue.add(item("payin.expire", String(i), T0 + i));
    for (
      let taken = queue.take(T0 + 10_000, T0, 700);
      taken.length > 0;
      taken = queue.take(T0 + 10_000, T0, 700)
    )
      ran.push(...names(taken));
    expect(ran).toEqual(Array.from({ length: 6000 }, (_, i) => String(i)));
    queue.add(item("payin.expire", "late", T0 + 20_000));
    queue.add(item("payin.expire", "back", T0 + 19_000));
    queue.add(item("payout.advance", "po", T0 + 19_000, "real"));
    expect(queue.size).toBe(3);
    queue.clear();
    expect(queue.size).toBe(0);
    expect(queue.take(T0 + 30_000, T0 + 30_000, 100)).toEqual([]);
  });
});

describe("the Basic auth check (secret keys kept as hashes)", () => {
  const basic = (pk: string, sk: string) => `Basic ${btoa(`${pk}:${sk}`)}`;
  afterEach(() => {
    vi.restoreAllMocks();
  });
  /** An account as a store keeps it: its secret key's SHA-256, never the key. */
  const accountOf = async (id: string, pk: string, sk: string) =>
    new Account(id, pk, await hashSecretKey(sk), {});

  it("keeps a secret key as its SHA-256 in hex", async () => {
    expect(await hashSecretKey("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    const account = await accountOf("acct_h", "pk_test_h", "sk_test_h");
    expect(account.secretKeyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(account)).not.toContain("sk_test_h");
  });

  it("remembers a header's hash, opens the account the store answers now, and checks KYC every time", async () => {
    const accounts = new Map<string, Account>();
    const find = async (pk: string) => accounts.get(pk) ?? null;
    const account = await accountOf("acct_1", "pk_test_remember", "sk_test_remember");
    accounts.set(account.publicKey, account);
    const reopened = await accountOf("acct_1", "pk_test_remember", "sk_test_remember");
    const header = basic("pk_test_remember", "sk_test_remember");
    const digest = vi.spyOn(crypto.subtle, "digest");
    expect(await authenticate(header, find)).toBe(account);
    expect(await authenticate(header, find)).toBe(account);
    // one SHA-256 for the header, however often a test suite sends it
    expect(digest).toHaveBeenCalledTimes(1);
    account.kycApproved = false;
    await expect(authenticate(header, find)).rejects.toMatchObject({ code: "KYC_NOT_APPROVED", status: 403 });
    // the credentials are still the account's: KYC is the route's to refuse (a fault's caller, rate limit)
    expect(await credentialsAccount(header, find)).toBe(account);
    account.kycApproved = true;
    // An account removed: the remembered hash opens nothing.
    accounts.clear();
    await expect(authenticate(header, find)).rejects.toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    // A reset reads the account again (same keys): the request gets the live one.
    accounts.set(reopened.publicKey, reopened);
    expect(await authenticate(header, find)).toBe(reopened);
    expect(digest).toHaveBeenCalledTimes(1);
  });

  it("hashes every presented key, an unknown account's too (a dummy hash is compared), and opens only on a match", async () => {
    const account = await accountOf("acct_c", "pk_test_c", "sk_test_c");
    const find = async (pk: string) => (pk === account.publicKey ? account : null);
    const digest = vi.spyOn(crypto.subtle, "digest");
    expect(await credentialsAccount(basic("pk_test_c", "sk_test_c"), find)).toBe(account);
    expect(await credentialsAccount(basic("pk_test_c", "sk_test_wrong"), find)).toBeNull();
    // no account: the presented key is hashed all the same, so the answer takes as long
    expect(await credentialsAccount(basic("pk_test_nobody", "sk_test_c"), find)).toBeNull();
    expect(digest).toHaveBeenCalledTimes(3);
  });

  it.each([
    ["equal", "abc", "abc", true],
    ["one character apart", "abc", "abd", false],
    ["a prefix", "abc", "ab", false],
    ["empty against text", "", "a", false],
    ["both empty", "", "", true],
  ])("constantTimeEqual: %s", (_, a, b, equal) => {
    expect(constantTimeEqual(a, b)).toBe(equal);
    expect(constantTimeEqual(b, a)).toBe(equal);
  });

  it.each([
    ["a wrong secret", basic("pk_test_a", "sk_test_b")],
    ["the right secret of another key", basic("pk_test_a", "sk_test_0")],
    ["an unknown key", basic("pk_test_z", "sk_test_a")],
    ["no header", undefined],
    ["a Bearer token", "Bearer sk_test_a"],
    ["a public key alone", `Basic ${btoa("pk_test_a")}`],
  ])("refuses %s, also after more accepted headers than it remembers", async (_, header) => {
    const accounts = new Map<string, Account>();
    const find = async (pk: string) => accounts.get(pk) ?? null;
    const made: Account[] = [];
    for (let i = 0; i < 300; i++) {
      const account = await accountOf(`acct_${i}`, `pk_test_${i}`, `sk_test_${i}`);
      accounts.set(account.publicKey, account);
      made.push(account);
      expect(await authenticate(basic(account.publicKey, `sk_test_${i}`), find)).toBe(account);
    }
    accounts.set("pk_test_a", await accountOf("acct_a", "pk_test_a", "sk_test_a"));
    await expect(authenticate(header, find)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    // the first headers were forgotten past the bound, and are checked again
    expect(await authenticate(basic("pk_test_0", "sk_test_0"), find)).toBe(made[0]);
    expect(await authenticate(basic("pk_test_a", "sk_test_a"), find)).toBe(accounts.get("pk_test_a"));
  });
});

describe("BR Codes built again and again for the same merchants", () => {
  const keys = Array.from(
    { length: 20 },
    (_, i) => `${String(i).padStart(8, "0")}-0d9b-457b-9c01-242bd2cdf498`,
  );

  it("stay well-formed with a matching CRC for every merchant, in any order", () => {
    for (let round = 0; round < 3; round++) {
      for (const [i, pixKey] of keys.entries()) {
        const fields = {
          pixKey,
          merchantName: `Loja ${i}`,
          merchantCity: "São Paulo",
          amountCents: 100 + i,
          txid: `T${i}`,
        };
        const code = buildBrCode(fields);
        expect(crc16Ccitt(code.slice(0, -4))).toBe(code.slice(-4));
        expect(parseBrCode(code)).toMatchObject({ ...fields, merchantCity: "Sao Paulo" });
        expect(buildBrCode({ ...fields, amountCents: undefined })).toMatch(/^000201010211/);
      }
    }
  });

  it("still refuses a bad amount, txid, name or city of a merchant seen before", () => {
    const fields = {
      pixKey: keys[0]!,
      merchantName: "Loja",
      merchantCity: "Recife",
      amountCents: 100,
      txid: "T1",
    };
    buildBrCode(fields);
    expect(() => buildBrCode({ ...fields, amountCents: 0 })).toThrow(
      expect.objectContaining({ field: "amountCents" }),
    );
    expect(() => buildBrCode({ ...fields, txid: "no-dashes" })).toThrow(
      expect.objectContaining({ field: "txid" }),
    );
    expect(() => buildBrCode({ ...fields, merchantName: "✓" })).toThrow(
      expect.objectContaining({ field: "merchantName" }),
    );
    expect(() => buildBrCode({ ...fields, merchantCity: " " })).toThrow(
      expect.objectContaining({ field: "merchantCity" }),
    );
    expect(() => buildBrCode({ ...fields, pixKey: "not a key", amountCents: 0 })).toThrow(
      expect.objectContaining({ field: "pixKey" }),
    );
  });
});
